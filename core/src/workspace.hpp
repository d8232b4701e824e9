#pragma once
// Scratch space of the derivative evaluation and the solvers' caches, derived
// from the world's state. The next step reuses some of it (the rows evaluated
// at the current state, the direct solver's factorization), and what it
// reuses decides its round-off: a copy keeps all of it, so that a saved
// world continues bit-identically.

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "block_jacobian.hpp"
#include "contact_rows.hpp"
#include "linkage/diagnostics.hpp"
#include "parallel.hpp"
#include "planar_rows.hpp"
#include "solvers/direct.hpp"
#include "stage_clock.hpp"
#include "step_split.hpp"
#include "tree_projection.hpp"

namespace linkage {

struct Workspace {
  BlockJacobian J;
  BlockJacobian step_J;  // the rows at the step's start: SHAKE's directions
  Eigen::VectorXd Qa, w;                  // per DOF: applied forces, inverse masses
  std::uint64_t w_model = ~0ull;          // the model version w is of
  Eigen::VectorXd C, Cdot, jdot_qdot, c_tt, lo, hi;  // per row
  Eigen::VectorXd diag, rhs, reg, lambda, dof_scratch;  // diag: diag(J W Jᵀ)
  // The J (by its values stamp) and the inverse masses (by their model
  // version) diag is of: an evaluation leaves it with the rows it writes,
  // and gram_diagonal keeps it while both stay.
  struct DiagOf {
    std::uint64_t values = ~0ull, w_model = ~0ull;
  } diag_of;
  Eigen::VectorXd soft_omega, soft_zeta;  // per row: 2π·frequency (0: rigid) and damping ratio
  // λ of held rows that is known rather than 0 (a soft row in the
  // force-based method); solve_system moves its coupling to the right side.
  Eigen::VectorXd fixed;
  std::vector<char> velocity_row, unilateral_row, held;
  std::vector<char> contact_row;  // per row: ContactRows::Kind (none: a model constraint's)
  // The model version whose rows' kinds (velocity_row, unilateral_row,
  // contact_row, soft_omega, soft_zeta) are in place for its rows (the
  // first kinds_rows), and whether any of those rows has a finite bound.
  std::uint64_t kinds_model = ~0ull;
  int kinds_rows = 0;
  bool kinds_bounded = false;
  // The active set of the last bounded solve (per row: −1 held at lo, 1 at
  // hi, 0 free), and the one the next solve starts from (empty: none held).
  std::vector<signed char> active, active_start;
  std::vector<int> first_row;  // per constraint (and one past the last): its first row
  std::vector<std::pair<double, double>> rotation;  // per body: (cos θ, sin θ) of the evaluation under way
  struct Turning {  // the rigid bodies of a model version: each one's index and θ's place in q
    std::uint64_t model = ~0ull;
    std::vector<std::pair<int, int>> bodies;
  } turning;
  std::vector<char> motor_free;  // per row: a motor at its bound in the step's velocity solve
  // Per row: a motor (SolveRequest::yielding), made for model version
  // yielding_model; any_yielding: some row is one.
  std::vector<char> yielding;
  std::uint64_t yielding_model = ~0ull;
  bool any_yielding = false;
  // The step's constraint forces as its solves add them (see
  // add_constraint_forces): per row, λ, and where the substep began; per
  // block of J (constraint order, a's before b's), Jᵀλ on that block's
  // body, 3 values each.
  Eigen::VectorXd step_lambda, substep_lambda;
  std::vector<double> block_forces;
  bool forces_clear = false;  // both are zero (finish_constraint_forces leaves them so)
  // Each model row's warm-start λ as the step's solves leave it
  // (scatter_warm: λ / scale). finish_constraint_forces writes them into the
  // constraints' states in its pass over them; until then (pending), and
  // after while the model and the steps are these, gather_warm reads them
  // here: a flat vector instead of a field of every state.
  struct Warm {
    Eigen::VectorXd rows;
    std::uint64_t model = ~0ull, steps = ~0ull;
    bool pending = false;
  } warm;
  // Where each constraint's share of those lives, for one model version:
  // its first row and first block (and one past the last constraint's);
  // and the constraints with a fixed or kinematic end, whose reaction
  // there is evaluated as each share comes.
  // And per constraint its two ends as finish_constraint_forces reports
  // them, so that it need not read the body records again.
  struct ForceLayout {
    struct End {
      enum Kind : signed char { world, fixed, moving } kind = world;
      bool rigid = false;
      signed char dof = 0;
    };
    std::uint64_t model = ~0ull;
    std::vector<int> row, block, fixed_end;
    std::vector<std::array<End, 2>> ends;
    bool ropes = false;  // any rope among the constraints (a one-sided row)
  } force_layout;
  // The rows (C, J, Ċ, ...) were evaluated at (rows_t, rows_q) with Ċ at
  // rows_v, for model version rows_model: evaluate_rows reuses them at the
  // same positions (Ċ is affine in q̇: Ċ += J Δq̇), so a state is evaluated
  // once (RATTLE's rows measure the step and start the next one).
  bool rows_valid = false;
  // J layouts (by their stamps) last found to match the constraints and
  // bodies of a model version and the contacts: evaluations skip the check.
  // Two, as J and step_J take turns.
  struct CheckedLayout {
    std::uint64_t layout = ~0ull, model = ~0ull, contacts = 0;
  };
  CheckedLayout layouts_checked[2];
  // The model's 2D rods and pins as the evaluation's short loop reads them
  // (planar_rows.hpp), for J's two layouts; `planar_older` is replaced next.
  // planar_enabled false: every constraint through the generic evaluation
  // (the tests compare the two).
  PlanarRows planar_rows[2];
  int planar_older = 0;
  bool planar_enabled = true;
  double rows_t = 0.0;
  std::uint64_t rows_model = 0, rows_contacts = 0;
  Eigen::VectorXd rows_q, rows_v;

  // The exact family's contacts of the substep under way: rows after the
  // model's (found again at every substep; stale once the model changes).
  ContactRows contacts;

  DirectSolver direct;
  // A step's solves stop asking for more once their work (direct.work, in
  // the cost model's nanoseconds) passes this: position projection stops as
  // at its cap (and says so), an active set that has not settled gives way
  // to projected Gauss–Seidel, and friction bounds are not solved again.
  // Constraints that cannot all hold (rods pulling disks into each other)
  // made a step of 60 bodies take up to 110 s; at 4e9 (about 4 s where the
  // model was fitted) no scene of the benchmarks comes near it. A field,
  // not a constant, so that the tests can lower it.
  double work_budget = 4e9;
  // An attempt at a step that may still split (step_split.hpp) stops its
  // position projections here; 0: at the settings' cap.
  int projection_cap = 0;
  StepSplit split;
  // Position projection's first try at reuse (PCG from the factorization
  // the step's velocity solve left), once it failed: the projections still
  // to factor at once, and how many the next failure skips.
  struct FirstReuse {
    int skip = 0, next = 1;
  } first_reuse;
  // The largest max |C| the last step's position projections began from
  // (0: none ran): how far a step moves off the manifold, which the next
  // velocity solve's residual may add to (velocity_solve_tolerance).
  double projection_start = 0.0;
  TreeProjection tree;  // position projection's path for acyclic constraint graphs
  std::uint64_t solved_model = ~0ull;  // the model version the last step solved
  // The model's settings and model versions the direct solver last saw: new
  // settings start it over, any other change of the model has it look for
  // dependent rows again (model edits never touch a workspace, which a saved
  // state may share).
  std::uint64_t settings_seen = ~0ull, dependencies_seen = ~0ull;
  Threads threads;
  // The rank deficiency found for this topology, for the iterative solvers.
  std::uint64_t rank_topology = std::numeric_limits<std::uint64_t>::max();
  int rank_deficiency = 0;

  // Accumulated over one step.
  StageClock clock;
  int iterations = 0;
  double residual = 0.0;
  int step_rank_deficiency = 0;
  int projection_iterations = 0;
  bool projection_capped = false;
  bool contacts_capped = false;  // a contact search of this step left pairs out (kContactPairsPerBody)
  double projection_error = 0.0;
};

}  // namespace linkage
