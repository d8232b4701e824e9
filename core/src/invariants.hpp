#pragma once
// Debug-build checks of what every part of the core assumes of a world
// (compiled out under NDEBUG, as Box2D's and Jolt's asserts are): the
// bodies' DOF ranges tile q and q̇ in order, every id maps to its record's
// dense index, every constraint and force names bodies that exist, a
// constraint has 1 to 3 rows, and the data hold one entry per constraint
// and force of the model.

#include "world_data.hpp"

namespace linkage {

void assert_invariants(const WorldModel& m, const WorldData& d);

}  // namespace linkage
