#pragma once
// SHAKE and RATTLE: exact projection of positions onto C(q) = 0 and of
// velocities onto J v + C_t = 0, mass-weighted (the correction is W Jᵀ μ).

#include "world_data.hpp"

namespace linkage {

struct ProjectionOutcome {
  double start = 0.0;   // max |C| over the projected rows where it began
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

// The relative residual the step's velocity solve stops at, for the right
// side `rhs`. Before a nearest-point projection it only
// predicts where the step goes: the projection removes what its residual
// r leaves in C (at most h |r|₂), and RATTLE what it leaves in Ċ. So it
// may leave up to kPredictorShare of the error the last step's projection
// began from (Workspace::projection_start), and no more than
// kPredictorTolerance: a moving cloth stops at about 1e-6, a structure at
// rest (nothing projected) at solver_tolerance, so that it stays at one
// solve a step. Bounded rows' solves stay at solver_tolerance whatever is
// asked (an active set reads λ's signs).
constexpr double kPredictorShare = 0.01;
constexpr double kPredictorTolerance = 1e-6;
double velocity_solve_tolerance(const WorldSettings& s, const Workspace& ws, double h, const Eigen::VectorXd& rhs);
// Whether the step's velocity solve only predicts: the exact family's
// before a nearest-point projection.
bool velocity_solve_predicts(const WorldSettings& s);

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
