#pragma once
// What the server's metrics (server/metrics/) count about one world, as the
// world's own threads see it happen. The host knows only this interface, so
// linkage_host stays free of the metrics library; with no --metrics-listen
// there is no factory and every world's meters are null.

#include <cstddef>
#include <memory>
#include <string>

#include "linkage/diagnostics.hpp"

namespace linkage::server {

class WorldMeters {
 public:
  virtual ~WorldMeters() = default;
  // The tick thread, after each step (its time and each stage's).
  virtual void stepped(const StepDiagnostics& d) = 0;
  // The tick thread: a frame built for the world's streams (one per
  // kind a tick, plus one per stream that is owed changes).
  virtual void frame_built() = 0;
  // The tick thread: a stream due a frame still writing the last one (a slow
  // reader), so it misses this one.
  virtual void frame_skipped() = 0;
  // gRPC's threads: a frame written to a stream, of `bytes` serialized.
  virtual void frame_sent(std::size_t bytes) = 0;
};

class WorldMeterFactory {
 public:
  virtual ~WorldMeterFactory() = default;
  virtual std::shared_ptr<WorldMeters> meters(const std::string& world) = 0;
};

// Set once at start-up, before any world is made (null: no metrics); the
// factory outlives every world.
void set_world_meter_factory(WorldMeterFactory* factory);
WorldMeterFactory* world_meter_factory();
// The meters of the world named `world`, or null without a factory.
std::shared_ptr<WorldMeters> world_meters(const std::string& world);

}  // namespace linkage::server
