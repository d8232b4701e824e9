#pragma once
// Answers made for clients that have not read them yet, by client address.
//
// gRPC keeps an answer until HTTP/2 flow control lets it out, that is until
// its client reads it, and a client may open calls and never read their
// answers: 200 ListBodies of a 90,000-body world on one connection whose
// window stayed shut held 7.3 GB (each answer 4.7 MB on the wire and about
// 36 MB in memory, the message and its serialized copy), and nothing
// bounded how many. So every unary call and every stream frame counts here,
// under its peer's address, from when it is made until gRPC is done with it
// (a call that runs on a world with its request: it may wait there);
// a call from a peer over its share, or made while the server is over its
// total, is refused with RESOURCE_EXHAUSTED before it runs, and a read
// whose answer would not fit is refused instead of answered. Streams skip
// the frames that would not fit.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace linkage::server {

struct UnreadLimits {
  std::int64_t total = std::int64_t{256} << 20;    // bytes, all clients together; 0: no limit
  std::int64_t per_peer = std::int64_t{64} << 20;  // bytes from one address; 0: no limit
};

class Unread {
 public:
  // What gRPC holds for a call besides its answer (its state, its request,
  // metadata: about 10 kB measured), counted for every call so that the
  // limits also bound calls left unread whose answers are small.
  static constexpr std::size_t kCallBytes = 8 * 1024;

  explicit Unread(UnreadLimits limits) : limits_(limits) {}

  // Counts `bytes` for `peer` if both limits leave room for them.
  bool take(const std::string& peer, std::size_t bytes);
  // Counts them whatever the limits: an answer to a change already made is
  // sent, never refused after the fact.
  void add(const std::string& peer, std::size_t bytes);
  void give_back(const std::string& peer, std::size_t bytes);
  // Counts a refusal made because of these limits (a call refused, a
  // frame skipped), and logs them as server.unread_refused at most every
  // 10 s.
  void refused(const std::string& peer);

  struct Counts {
    std::uint64_t bytes = 0;    // held now, all peers
    std::uint64_t peers = 0;    // addresses holding any
    std::uint64_t refused = 0;  // calls refused, and frames skipped, so far
  };
  Counts counts() const;
  // Why `peer` was refused, for the person reading the status.
  std::string refusal(const std::string& peer) const;

 private:
  bool fits(std::size_t held, std::size_t bytes) const;

  const UnreadLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> by_peer_;
  std::size_t total_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t logged_refused_ = 0;  // refused_ when last logged
  std::chrono::steady_clock::time_point logged_{};
};

}  // namespace linkage::server
