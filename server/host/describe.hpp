#pragma once
// A world as the API shows it (linkage.v1.World): settings, limits, counters
// and why it paused itself. Built on the world's tick thread, for answers and
// for the summary every world publishes after each tick and command.

#include <string>

#include "linkage/v1/world.pb.h"
#include "world_host.hpp"

namespace linkage::server {

// Everything but `subscribers` and `busy_seconds`, which the host knows
// (WorldHost::summary); `subscribers` is given for answers built on the tick
// thread. `state_hash` only with `hash`: it reads the whole state, as much
// work as a good part of a step.
void describe(const std::string& name, const WorldHost::State& s, int subscribers, v1::World* out, bool hash = true);

void halt_to_proto(const Halt& halt, v1::Halt* out);

}  // namespace linkage::server
