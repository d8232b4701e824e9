#include "unread.hpp"

#include <algorithm>

#include "log/log.hpp"
#include "mib.hpp"

namespace linkage::server {

bool Unread::fits(std::size_t held, std::size_t bytes) const {
  const auto within = [bytes](std::size_t now, std::int64_t limit) {
    return limit <= 0 || now + bytes <= static_cast<std::size_t>(limit);
  };
  return within(held, limits_.per_peer) && within(total_, limits_.total);
}

bool Unread::take(const std::string& peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  auto it = by_peer_.find(peer);
  if (!fits(it == by_peer_.end() ? 0 : it->second, bytes)) return false;
  (it == by_peer_.end() ? by_peer_[peer] : it->second) += bytes;
  total_ += bytes;
  return true;
}

void Unread::add(const std::string& peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  by_peer_[peer] += bytes;
  total_ += bytes;
}

void Unread::give_back(const std::string& peer, std::size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard lock(mutex_);
  auto it = by_peer_.find(peer);
  if (it == by_peer_.end()) return;
  it->second -= std::min(it->second, bytes);
  total_ -= std::min(total_, bytes);
  if (it->second == 0) by_peer_.erase(it);  // the map holds only peers with answers out
}

void Unread::refused(const std::string& peer) {
  constexpr auto kLogEvery = std::chrono::seconds(10);
  std::uint64_t since = 0;
  std::size_t held = 0, total = 0;
  {
    std::lock_guard lock(mutex_);
    ++refused_;
    const auto now = std::chrono::steady_clock::now();
    if (logged_refused_ != 0 && now - logged_ < kLogEvery) return;
    since = refused_ - logged_refused_;
    logged_refused_ = refused_;
    logged_ = now;
    auto it = by_peer_.find(peer);
    held = it == by_peer_.end() ? 0 : it->second;
    total = total_;
  }
  log::event(spdlog::level::warn, "server.unread_refused", "",
             fmt::format("refused {} calls or frames of clients that had not read their answers (the last for {}, "
                         "which holds {} bytes unread; {} bytes for all clients)",
                         since, peer, held, total),
             {{"refused", since}, {"peer", peer}, {"peer_bytes", held}, {"total_bytes", total}});
}

Unread::Counts Unread::counts() const {
  std::lock_guard lock(mutex_);
  return {total_, by_peer_.size(), refused_};
}

std::string Unread::refusal(const std::string& peer) const {
  std::size_t held = 0, total = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = by_peer_.find(peer);
    held = it == by_peer_.end() ? 0 : it->second;
    total = total_;
  }
  const auto limit = [&](std::int64_t l) { return l <= 0 ? std::string("no limit") : mib(static_cast<std::size_t>(l)); };
  return "the server holds " + mib(held) + " of answers and frames for clients at " + peer +
         " that they have not read yet, with the requests of their calls still under way "
         "(--max-unread-bytes-per-peer: " + limit(limits_.per_peer) + "; " + mib(total) +
         " for all clients, --max-unread-bytes: " + limit(limits_.total) +
         "); read the answers of the calls already made (or cancel them), or wait for them, then call again";
}

}  // namespace linkage::server
