#pragma once
// SHAKE and RATTLE: exact projection of positions onto C(q) = 0 and of
// velocities onto J v + C_t = 0, mass-weighted (the correction is W Jᵀ μ).

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "world_data.hpp"

namespace linkage {

struct ProjectionOutcome {
  double start = 0.0;   // max |C| over the projected rows where it began
  int iterations = 0;
  bool capped = false;  // stopped at projection_max_iterations with max |C| ≥ projection_tolerance
  double error = 0.0;   // max |C| over the projected rows when it stopped
};

// The iterations a position projection may take: the settings' cap, or
// less for an attempt at a step that may still split (Workspace::projection_cap).
inline int projection_cap(const WorldSettings& s, const Workspace& ws) {
  return ws.projection_cap > 0 ? std::min(ws.projection_cap, s.projection_max_iterations) : s.projection_max_iterations;
}

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

// Where a projection has taken a step so far, to go back to: the
// positions, the correction it hands the velocities (Δq summed, `moved`),
// and the constraint forces its corrections added (the step's λ, each
// block's force, the reactions on the ends that do not move: what
// add_constraint_forces writes), with max |C| there. `moved` may be null:
// not kept.
struct ProjectionPoint {
  double error = 0.0;
  Eigen::VectorXd q, step_lambda;
  std::vector<double> moved, block_forces, contact_impulses;
  std::vector<std::pair<Reaction, Reaction>> reactions;  // per Workspace::ForceLayout::fixed_end
  void take(double error, const WorldData& d, const Workspace& ws, const double* moved);
  void restore(WorldData& d, Workspace& ws, double* moved) const;
};

// A projection still over its tolerance after a quarter of its iterations
// wanders: a singular configuration (a row of rods pinned taut at both
// ends, which would take infinite tension), where Gauss–Newton may climb as
// well as fall. From there on it keeps the best point it visits, and one
// that stops at its cap ends there instead of wherever its last step
// landed (a taut 3D cloth's capped steps ended 2.6 times worse than their
// best point in the median, 370 times in the worst).
class BestPoint {
 public:
  explicit BestPoint(int max_iterations) : from_(std::max(1, max_iterations / 4)) {}
  // After iteration `iteration`, at max |C| `error`.
  void see(int iteration, double error, const WorldData& d, const Workspace& ws, const double* moved) {
    if (iteration < from_ || !std::isfinite(error) || (kept_ && !(error < best_.error))) return;
    best_.take(error, d, ws, moved);
    kept_ = true;
  }
  // Goes back to the best point if it is better than `error`, the last
  // point's; returns whether it did.
  bool restore_if_better(double error, WorldData& d, Workspace& ws, double* moved) const {
    if (!kept_ || !(best_.error < error)) return false;
    best_.restore(d, ws, moved);
    return true;
  }
  double error() const { return best_.error; }

 private:
  int from_;
  bool kept_ = false;
  ProjectionPoint best_;
};

// Constraints that cannot all hold (a rope shorter than the gap between its
// fixed ends, rods whose lengths contradict one another) leave Gauss–Newton
// no step that lowers the error for good: it flails to its cap, and the
// velocity of its motion (Δq/h) flung bodies at hundreds of m/s. A capped
// projection whose best point is not kCappedProgress of where it began
// (the error it ends with over the one it began from) goes back to where it
// began, and its bodies take no velocity from it; the step says so
// (capped). A feasible projection that reaches its cap has made orders of
// magnitude of progress by then (a taut cloth's: 1e-3 of its start and
// less); one that converges slowly, however slowly, is not capped. Fewer
// than kJudged iterations (a cap set that low, a step out of its work
// budget) are too few to tell.
constexpr double kCappedProgress = 0.1;
constexpr int kJudged = 16;
inline bool went_nowhere(const ProjectionOutcome& out) {
  return out.iterations >= kJudged && !(out.error <= kCappedProgress * out.start);
}

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

// A step that begins off its constraints (a body a client moved, a
// constraint added at another length than its bodies have, a mechanism
// built where its parts do not meet, bodies made overlapping) is first
// moved onto them, positions alone: that correction is not the step's
// motion, and as a velocity (Δq / h) it launched mechanisms from rest at
// tens of m/s and more. Where the step before stopped short (capped), its
// error is the step's own to carry on with: a taut cloth's each step.
// Rows evaluated at (t, d.q) in ws; the exact family (nearest-point
// projection) only. Returns whether it moved them (the rows then need
// evaluating again).
bool settle_onto_constraints(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h);

// The force-based method works on accelerations and cannot stop a body in
// an instant: when a rope goes taut while its ends still separate, this
// removes that separating velocity with one inelastic impulse (pull only).
void catch_taut_rows(const WorldModel& m, WorldData& d, Workspace& ws, double t);

// One solve that removes the velocity error Ċ of every position row and of
// every motor (within its maximum force over the step h).
void project_velocities(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h);

}  // namespace linkage
