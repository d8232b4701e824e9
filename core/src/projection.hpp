#pragma once
// SHAKE and RATTLE: exact projection of positions onto C(q) = 0 and of
// velocities onto J v + C_t = 0, mass-weighted (the correction is W Jᵀ μ).

#include "world_data.hpp"

namespace linkage {

struct ProjectionOutcome {
  int iterations = 0;
  bool capped = false;  // stopped at projection_max_iterations with max |C| ≥ projection_tolerance
  double error = 0.0;   // max |C| over the projected rows when it stopped
};

// Newton's progress on |C|₂ in a projection, to tell a stall on rows only
// nearly dependent: the solver takes them out (their pivots under
// MultifrontalLdlt::kDependentPivot), so no step corrects their C, and
// |C|₂ stays until the iteration cap. Once |C|₂ falls by less than a
// tenth kIterations times in a row while rows are out, the
// projection's solves keep them (SolveRequest::strict).
struct NewtonStall {
  static constexpr double kRatio = 0.9;
  static constexpr int kIterations = 2;
  int count = 0;
  bool strict = false;
  // After an iteration that took |C|₂ from `before` to `after`, with
  // `rank_deficiency` rows out of the step's solves so far.
  void record(double before, double after, int rank_deficiency) {
    count = after > kRatio * before ? count + 1 : 0;
    strict = strict || (count >= kIterations && rank_deficiency > 0);
  }
};

// After the step's velocity solve: which motors are at their bound (they
// slip, and position projection leaves them free; the others it locks).
// ws.lambda is compared with the bounds ws.lo, ws.hi times `scale`.
void mark_free_motors(Workspace& ws, double scale);

// Gauss–Newton iterations on C(q, t) = 0 until max |C| < projection_tolerance
// (or projection_max_iterations: then `capped`). Motors inside their bound
// are held where the step put them. The positions moved are also given to
// the velocities (Δq / h), as SHAKE does.
ProjectionOutcome project_positions(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h);

// The force-based method works on accelerations and cannot stop a body in
// an instant: when a rope goes taut while its ends still separate, this
// removes that separating velocity with one inelastic impulse (pull only).
void catch_taut_rows(const WorldModel& m, WorldData& d, Workspace& ws, double t);

// One solve that removes the velocity error Ċ of every position row and of
// every motor (within its maximum force over the step h).
void project_velocities(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h);

}  // namespace linkage
