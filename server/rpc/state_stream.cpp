#include "state_stream.hpp"

namespace linkage::server {

grpc::ServerWriteReactor<v1::Snapshot>* StateStream::start(Registry& registry, std::shared_ptr<WorldHost> host,
                                                           std::string peer, double rate_hz, bool constraints,
                                                           bool diagnostics, bool contacts) {
  std::shared_ptr<StateStream> stream(
      new StateStream(registry, host, std::move(peer), rate_hz, constraints, diagnostics, contacts));
  stream->self_ = stream;
  host->subscribe(stream);
  return stream.get();
}

StateStream::StateStream(Registry& registry, std::shared_ptr<WorldHost> host, std::string peer, double rate_hz,
                         bool constraints, bool diagnostics, bool contacts)
    : registry_(registry),
      host_(std::move(host)),
      peer_(std::move(peer)),
      interval_(rate_hz > 0.0 ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate_hz))
                              : Clock::duration::zero()),
      constraints_(constraints),
      diagnostics_(diagnostics),
      contacts_(contacts),
      meters_(host_->meters()) {}

bool StateStream::ready(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  return !finished_ && !writing_ && now >= next_due_;
}

void StateStream::missed(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (meters_ && !finished_ && writing_ && now >= next_due_) meters_->frame_skipped();
}

std::uint64_t StateStream::known_version() const {
  std::lock_guard lock(mutex_);
  return known_version_;
}

std::uint64_t StateStream::known_contact_version() const {
  std::lock_guard lock(mutex_);
  return known_contact_version_;
}

void StateStream::send(std::shared_ptr<const v1::Snapshot> frame) {
  std::lock_guard lock(mutex_);
  if (finished_ || writing_) return;
  // Cheap: a frame is mostly packed columns, whose sizes are their lengths.
  const std::size_t bytes = frame->ByteSizeLong();
  if (!registry_.unread().take(peer_, bytes)) {
    registry_.unread().refused(peer_);
    if (meters_) meters_->frame_skipped();
    return;  // offered the next one, as a slow reader is
  }
  writing_bytes_ = bytes;
  const Clock::time_point now = Clock::now();
  // Due again one interval after this one was due (not after it was sent),
  // so the stream keeps its rate on average; the first frame starts the count.
  const Clock::time_point due = next_due_ == Clock::time_point{} ? now : next_due_;
  next_due_ = std::max(due + interval_, now);
  known_version_ = frame->topology_version();
  known_contact_version_ = frame->contact_version();
  writing_ = std::move(frame);
  StartWrite(writing_.get());
}

void StateStream::end(const std::string& reason) {
  std::lock_guard lock(mutex_);
  finish_locked(grpc::Status(grpc::StatusCode::UNAVAILABLE, reason));
}

void StateStream::finish_locked(grpc::Status status) {
  if (finished_) return;
  finished_ = true;
  // The slot is free once the stream is finished, not once gRPC's OnDone
  // runs later: a client whose stream just ended may open another at once.
  registry_.release_stream();
  if (writing_) {
    finish_after_write_ = std::move(status);
  } else {
    Finish(std::move(status));
  }
}

void StateStream::OnWriteDone(bool ok) {
  std::lock_guard lock(mutex_);
  if (ok && meters_) meters_->frame_sent(writing_bytes_);
  registry_.unread().give_back(peer_, writing_bytes_);
  writing_bytes_ = 0;
  writing_.reset();
  if (finish_after_write_) {
    Finish(*finish_after_write_);
    finish_after_write_.reset();
    return;
  }
  // A failed write means the client is gone; OnCancel follows.
  if (!ok) finish_locked(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
}

void StateStream::OnCancel() {
  std::lock_guard lock(mutex_);
  finish_locked(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the client"));
}

void StateStream::OnDone() {
  host_->unsubscribe(this);
  registry_.unread().give_back(peer_, Unread::kCallBytes);
  std::shared_ptr<StateStream> keep;
  {
    std::lock_guard lock(mutex_);
    keep.swap(self_);  // the last owner may be the host's publish loop: it frees us later
  }
}

}  // namespace linkage::server
