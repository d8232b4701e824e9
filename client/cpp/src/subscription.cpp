#include "linkage/client/subscription.hpp"

namespace linkage::client {

Subscription::Subscription(v1::WorldService::Stub& stub, const std::string& world, SubscribeOptions options)
    : options_(std::move(options)) {
  v1::StreamStateRequest req;
  req.set_world(world);
  req.set_rate_hz(options_.rate_hz);
  req.set_constraints(options_.constraints);
  req.set_diagnostics(options_.diagnostics);
  req.set_contacts(options_.contacts);
  // No deadline: a stream lives until it is cancelled or the server ends it.
  reader_ = stub.StreamState(&context_, req);
  thread_ = std::thread([this] { read(); });
}

Subscription::~Subscription() {
  cancel();
  thread_.join();
}

void Subscription::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  context_.TryCancel();
}

void Subscription::read() {
  v1::Snapshot frame;
  while (reader_->Read(&frame)) {
    {
      std::lock_guard lock(mutex_);
      mirror_.apply(frame);
    }
    // Only this thread writes the mirror, so the callback may read it unlocked.
    if (options_.on_snapshot) options_.on_snapshot(frame, mirror_);
    std::lock_guard lock(mutex_);
    if (options_.queue_capacity > 0) {
      if (queue_.size() == options_.queue_capacity) {
        queue_.pop_front();
        ++dropped_;
      }
      queue_.push_back(frame);
    }
    changed_.notify_all();
  }
  const grpc::Status status = reader_->Finish();
  std::lock_guard lock(mutex_);
  ended_ = true;
  status_ = status;
  changed_.notify_all();
}

std::optional<v1::Snapshot> Subscription::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return !queue_.empty() || ended_; });
  if (queue_.empty()) return std::nullopt;
  v1::Snapshot frame = std::move(queue_.front());
  queue_.pop_front();
  return frame;
}

WorldMirror Subscription::mirror() const {
  std::lock_guard lock(mutex_);
  return mirror_;
}

bool Subscription::wait_until(const std::function<bool(const WorldMirror&)>& pred, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return ended_ || pred(mirror_); });
  return pred(mirror_);
}

std::uint64_t Subscription::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

bool Subscription::ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

Status Subscription::status() const {
  std::lock_guard lock(mutex_);
  if (!ended_ || status_.ok()) return {};
  // Our own cancel() ends the stream with CANCELLED: that is not an error.
  if (cancelled_ && status_.error_code() == grpc::StatusCode::CANCELLED) return {};
  return Error::from(status_);
}

}  // namespace linkage::client
