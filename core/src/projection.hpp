#pragma once
// SHAKE and RATTLE: exact projection of positions onto C(q) = 0 and of
// velocities onto J v + C_t = 0, mass-weighted (the correction is W Jᵀ μ).

#include "world_data.hpp"

namespace linkage {

// Newton iterations on C(q, t) = 0 until max |C| < projection_tolerance,
// along the step's own rows (ws.step_J, set by the step). The positions
// moved are also given to the velocities (Δq / h), as SHAKE does.
// Returns the iterations taken.
int project_positions(WorldData& d, double t, double h);

// The force-based method works on accelerations and cannot stop a body in
// an instant: when a rope goes taut while its ends still separate, this
// removes that separating velocity with one inelastic impulse (pull only).
void catch_taut_rows(WorldData& d, double t);

// One solve that removes the velocity error Ċ of every position row and of
// every motor (within its maximum force over the step h).
void project_velocities(WorldData& d, double t, double h);

}  // namespace linkage
