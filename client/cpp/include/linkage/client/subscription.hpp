#pragma once
// A live StreamState: snapshots delivered to a callback or a queue, and a
// WorldMirror kept from the stream's change records.
//
// One reader thread per subscription reads frames, updates the mirror and
// then calls `on_snapshot` (on that thread, so keep it short; the mirror it
// is given is the one just updated and does not change during the call) and
// pushes the frame to the queue. The queue keeps the newest `queue_capacity`
// frames and drops the oldest, like the server does for a slow reader:
// memory stays bounded whoever falls behind.
//
// The stream ends when the world is deleted, the server shuts down
// (UNAVAILABLE), the world does not exist (NOT_FOUND), or cancel() is called;
// status() then says why. Destroying the subscription cancels and joins.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "linkage/client/mirror.hpp"
#include "linkage/client/result.hpp"
#include "linkage/v1/service.grpc.pb.h"

namespace linkage::client {

struct SubscribeOptions {
  double rate_hz = 0.0;      // frames per second; 0: every tick (capped by the server)
  bool constraints = false;  // each constraint's λ and error in the frames
  bool diagnostics = false;  // the tick's diagnostics in the frames
  // The tick's contact points and the pairs that began or ended touching
  // (WorldMirror::contacts, contact_changes, touching).
  bool contacts = false;
  // Called on the reader thread after the mirror took the frame.
  std::function<void(const v1::Snapshot&, const WorldMirror&)> on_snapshot{};
  // Frames kept for next(); 0: no queue.
  std::size_t queue_capacity = 0;
};

class Subscription {
 public:
  Subscription(v1::WorldService::Stub& stub, const std::string& world, SubscribeOptions options);
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  // The oldest queued frame, waiting up to `timeout`; nothing if none came or
  // the stream ended with the queue empty.
  std::optional<v1::Snapshot> next(std::chrono::milliseconds timeout);
  // A copy of the mirror as of the last frame.
  WorldMirror mirror() const;
  // Waits until `pred(mirror)` holds, or the stream ends, up to `timeout`.
  bool wait_until(const std::function<bool(const WorldMirror&)>& pred, std::chrono::milliseconds timeout);
  // Frames dropped from a full queue.
  std::uint64_t dropped() const;

  bool ended() const;
  // OK while the stream runs, and after cancel(); else why it ended.
  Status status() const;
  void cancel();

 private:
  void read();

  SubscribeOptions options_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::Snapshot>> reader_{};
  mutable std::mutex mutex_;
  std::condition_variable changed_{};
  WorldMirror mirror_;
  std::deque<v1::Snapshot> queue_{};
  std::uint64_t dropped_ = 0;
  bool ended_ = false, cancelled_ = false;
  grpc::Status status_;
  std::thread thread_{};  // last: started once everything above exists
};

}  // namespace linkage::client
