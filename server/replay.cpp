// linkaged replay: a world rebuilt from its directory at a recorded tick
// (durable/replay.hpp), printed, and written as a scene if asked.
#include <spdlog/spdlog.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "convert/scene_io.hpp"
#include "durable/replay.hpp"
#include "options.hpp"

namespace linkage::server {

int replay(const ReplayOptions& options) {
  Result<durable::Dir> dir = durable::Dir::open(options.dir, false);
  if (!dir) {
    std::fprintf(stderr, "linkaged replay: %s\n", dir.error().message.c_str());
    return 2;
  }
  Result<durable::Replayed> replayed = durable::replay(dir.value(), Limits{}, options.to_tick);
  if (!replayed) {
    std::fprintf(stderr, "linkaged replay: %s\n", replayed.error().message.c_str());
    return 1;
  }
  const durable::Replayed& r = replayed.value();
  for (const std::string& warning : r.warnings) std::fprintf(stderr, "linkaged replay: warning: %s\n", warning.c_str());
  const World& world = r.state.world.core();
  std::printf("world %s at tick %" PRIu64 " (t = %.17g s): %zu bodies, %zu constraints, %zu forces; %s\n",
              quote(r.name).c_str(), r.state.tick, world.time(), world.body_count(), world.constraint_count(),
              world.force_count(), r.state.paused ? "paused" : "running");
  std::printf("state hash %016" PRIx64 "\n", world.state_hash());
  if (!options.out.empty()) {
    std::ofstream out(options.out);
    out << scene_to_json(save_scene(world, r.state.world.names()));
    if (!out.good()) {
      std::fprintf(stderr, "linkaged replay: cannot write %s\n", options.out.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace linkage::server
