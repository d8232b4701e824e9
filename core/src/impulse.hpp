#pragma once
// The impulse family: one solver step of length h on velocities.

#include "world_data.hpp"

namespace linkage {

// v* = v + h W Q_a, then the velocity constraints J v + b = −(β/h) C are met
// by global velocity projection or by sequential impulses (per the world's
// settings); then q += h v. Advances q and v, not the clock. `settle`: a
// world's step first moves positions that begin off their constraints onto
// them (settle_onto_constraints, with the contacts found where it begins).
void impulse_step(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h, bool settle = false);

// Box2D's caps: no body moves more than max_translation or turns more than
// max_rotation in a step of h; a faster one has that velocity scaled down.
void clamp_motion(const WorldModel& m, double h, Eigen::VectorXd& v);

}  // namespace linkage
