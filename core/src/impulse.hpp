#pragma once
// The impulse family: one solver step of length h on velocities.

#include "world_data.hpp"

namespace linkage {

// v* = v + h W Q_a, then the velocity constraints J v + b = −(β/h) C are met
// by global velocity projection or by sequential impulses (per the world's
// settings); then q += h v. Advances q and v, not the clock.
void impulse_step(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h);

}  // namespace linkage
