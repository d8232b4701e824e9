#pragma once
// The constraint system both families solve: rows evaluated into the
// workspace, K = J W Jᵀ + diag(reg), and λ from the world's linear solver.

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "solvers/solvers.hpp"
#include "world_data.hpp"

namespace linkage {

// The world's threads, for the solvers and the products with J.
inline Parallel parallel(const WorldModel& m, Workspace& ws) { return Parallel{&ws.threads, m.settings.threads}; }
// Below this many rows a pass over them is not worth waking threads for.
inline constexpr int kParallelRows = 2000;

// The rows of the model's constraints, and of the system (the substep's
// contacts follow the model's rows: contact_rows.hpp).
int model_rows(const WorldModel& m, const Workspace& ws);
int system_rows(const WorldModel& m, const Workspace& ws);

// Every constraint's C, Ċ, J̇q̇, c_tt, bounds and J blocks at (t, q, q̇), in
// row order, then the substep's contacts'. A body that cannot be moved (W =
// 0) gets no block.
void evaluate_constraints(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// The relative regularization of K's diagonal: the setting, but for the
// direct solver, which takes dependent rows out instead.
double regularization(const WorldSettings& s);

// The same rows, reused when they were evaluated at these positions and time
// for this model (Ċ then moves to q̇ by J Δq̇; J̇q̇ is not updated: for the
// impulse family, which does not use it).
void evaluate_rows(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// The rows in the workspace are the ones at (t, q, v) for this model (for
// evaluate_rows to reuse), as an evaluation or the tree path wrote them.
void remember_rows(const WorldModel& m, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// Every constraint's C only, at (t, q), into ws.C (the other rows go stale):
// for projections' line searches.
void evaluate_errors(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q);

// Holds exactly the rows `held` of J (their reg 1, the others' the regularization).
void hold_rows(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const std::vector<char>& held);

// Sets ws.reg (the regularization) and ws.held from diag(J W Jᵀ): a row that
// touches nothing movable is held at λ = 0. Returns how many rows are held.
int prepare_system(const WorldModel& m, Workspace& ws);
int prepare_system(const WorldModel& m, Workspace& ws, const BlockJacobian& J);

// Holds at λ = 0 every one-sided row that is slack by more than `tolerance`
// (C < −tolerance): a slack rope pulls on nothing. Contacts apart stay in
// when `contacts_apart` (a position correction may close their gap, no
// more: their rows push only). Returns the rows it held.
std::vector<int> hold_slack_rows(Workspace& ws, double tolerance, bool contacts_apart = false);

// Soft rows (ws.soft_omega > 0), three ways:
// force-based: held at their spring force λ = −(ω² C + 2ζω Ċ) / K_ii;
void apply_soft_forces(Workspace& ws);
// impulse family: compliance K_ii / (hω (2ζ + hω)) on the diagonal (the
// implicit spring of Box2D's soft step); its bias is soft_bias(...);
void soften_rows(Workspace& ws, double h);
double soft_bias(const Workspace& ws, int row, double h);
// projections: held at 0, free to stretch.
void hold_soft_rows(Workspace& ws);

// ws.lambda ← each constraint's warm-start λ times `scale` (0 on held rows).
void gather_warm(const WorldModel& m, WorldData& d, Workspace& ws, double scale);

// The step's warm λ ← ws.lambda / scale, per row (Workspace::warm), into
// each constraint's state when finish_constraint_forces writes it.
void scatter_warm(const WorldModel& m, Workspace& ws, double scale);

// The step's constraint forces, in shares. begin_ clears them (and each
// constraint's reported λ and reactions); add_ adds one share: factor ·
// lambda over the rows, J's blocks times it for the moving bodies, and the
// constraint evaluated again (at t, q) for a fixed or kinematic end;
// finish_ gives each constraint its λ and reactions. `factor` turns the
// solve's unknown into a force averaged over the step (dt): the
// integrator's weight over the substeps for accelerations' λ, 1/dt for an
// impulse, 1/(h dt) for a position correction W Jᵀ μ whose Δq/h went into
// the velocities (h: the substep).
void begin_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws);
// Adds a generalized force on one body's DOF (x, y[, z | θ]) to `out` as a force and a torque.
void add_reaction(Reaction& out, const double* generalized, bool rigid, int dof);
void add_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws, const BlockJacobian& J, const Eigen::VectorXd& lambda, double factor,
                           double t, const Eigen::VectorXd& q);
void finish_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws);
// ws.substep_lambda ← the step's λ so far, so that a later solve of the
// substep knows what its earlier ones applied (a motor's bound holds for
// the substep's impulses together).
void remember_substep_lambda(Workspace& ws);

// Have the step's solves spent Workspace::work_budget?
bool over_work_budget(const Workspace& ws);

// Solves K λ = ws.rhs into ws.lambda (starting from it), keeping bounded
// rows in [lo, hi]: Gauss–Seidel projects, CG and LDLᵀ use an active set.
SolveStats solve_system(const WorldModel& m, Workspace& ws);
// The same with another Jacobian of the same rows (SHAKE's step directions),
// as `how` asks (a projection's Newton step needs a looser tolerance than the
// world's, and no residual: its progress is |C|), and W Jᵀ λ where it asks.
SolveStats solve_system(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const SolveRequest& how);

// out = W Jᵀ λ: what an impulse λ does to the velocities.
void w_jt_product(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const Eigen::VectorXd& lambda, Eigen::VectorXd& out);

// Adds one solve's statistics to the step's, finding the rank deficiency
// for solvers that cannot tell (once per topology).
void record_solve(const WorldModel& m, Workspace& ws, const SolveStats& stats, int held_rows);

}  // namespace linkage
