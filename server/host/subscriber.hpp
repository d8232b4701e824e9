#pragma once
// A stream of a world's snapshots, as the tick thread sees it.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "linkage/v1/snapshot.pb.h"

namespace linkage::server {

class Subscriber {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~Subscriber() = default;

  // Whether the subscriber can take a frame now: no write in flight, and
  // its rate allows one. Called on the tick thread after every tick.
  virtual bool ready(Clock::time_point now) = 0;
  // It was not ready for a new frame (a tick's or an edit's, not one it is
  // owed and offered again): a stream due one while still writing counts it
  // as skipped (metrics).
  virtual void missed(Clock::time_point /*now*/) {}
  // The topology version of the last frame it was given (0: none yet).
  virtual std::uint64_t known_version() const = 0;
  virtual bool wants_constraints() const = 0;
  virtual bool wants_diagnostics() const = 0;
  // Contact points and begin/end events (off unless a subscriber asks).
  virtual bool wants_contacts() const { return false; }
  // The contact_version of the last frame it was given (0: none yet).
  virtual std::uint64_t known_contact_version() const { return 0; }
  // Hands a frame over to be written; the subscriber keeps it alive until written.
  virtual void send(std::shared_ptr<const v1::Snapshot> frame) = 0;
  // The world is going away (deleted, or the server stopping).
  virtual void end(const std::string& reason) = 0;
};

}  // namespace linkage::server
