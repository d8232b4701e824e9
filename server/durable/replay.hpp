#pragma once
// A world rebuilt from its directory: the newest checkpoint that reads
// whole (older ones if it does not), then its journal and every later one,
// each change applied at its tick, the ticks between stepped as the world
// stepped them. Steps are deterministic, the guards' pauses are recorded, and
// the world's caches are cleared where the running world cleared them (at
// each checkpoint, where one journal ends and the next begins): so the
// rebuilt world is bit-identical to the one that wrote the files, at the
// last tick they reached (or at the tick asked for).
//
// A damaged tail (torn by a crash, or corrupt: checksums) ends the replay at
// the last good record; the warnings say what was left out.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "durable/files.hpp"
#include "durable/record.pb.h"
#include "host/world_host.hpp"

namespace linkage::server::durable {

struct Replayed {
  std::string name;
  WorldHost::State state;
  // The journal the state ends in, and how much of it is good: where a
  // restored world goes on writing.
  std::uint64_t generation = 0;
  std::uint64_t journal_bytes = 0;
  // Files that hold nothing the state has (damaged, or after a damaged
  // end): set aside by a restore.
  std::vector<std::string> unused;
  // What was wrong, for the log.
  std::vector<std::string> warnings;
};

// Asked before each tick a replay steps: true stops it there (a fork's
// caller gave up or its deadline passed). A replay may step thousands of
// ticks, each as long as the world's.
using StopReplay = std::function<bool()>;

// The world in `dir` at the last tick recorded, or at `to_tick` (then
// FAILED_PRECONDITION if the files do not reach it or start after it).
// `base` gives the limits the files do not hold (the server's flags').
// Stopped by `stop`: FAILED_PRECONDITION, saying at which tick.
Result<Replayed> replay(const Dir& dir, const Limits& base, std::optional<std::uint64_t> to_tick = std::nullopt,
                        const StopReplay& stop = {});

// Applies one record to the world, stepping it first to the record's tick;
// INVALID_ARGUMENT if the record cannot apply (its tick is behind the
// world's, or the change fails where it once succeeded), FAILED_PRECONDITION
// if `stop` ended the stepping.
Status apply(const Record& record, WorldHost::State& s, const StopReplay& stop = {});

void clock_to_proto(const WorldHost::State& s, Clock* out);

}  // namespace linkage::server::durable
