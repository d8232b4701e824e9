#include "projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "body_view.hpp"
#include "constraint_system.hpp"
#include "tree_projection.hpp"
#include "tree_solve.hpp"

namespace linkage {
namespace {

// How many times a projection step is halved, and what counts as diverging
// for the nearest-point projection: |C|₂ up by this factor from its start.
constexpr int kMaxCuts = 12;
constexpr double kMaxGrowth = 1e3;
// The first Newton step's linear solve stops at this relative residual;
// later ones at less, as the error falls (an inexact Newton method).
constexpr double kMaxForcing = 0.1;
// PCG iterations a step's last solve may spend on a reused factorization.
constexpr int kEndOfStepReuse = 2;
// The most projections a failed first try at reuse skips (Workspace::FirstReuse).
constexpr int kMaxReuseSkip = 64;
// SHAKE's fixed directions give way to Gauss–Newton once an iteration
// removes less than this share of the error.
constexpr double kShakeContraction = 0.25;

// The rows position projection solves for, and their targets: every
// position row that holds (a slack rope or a soft row is free), and every
// motor inside its bound, locked (its coordinate must not move: the motor
// set it). Sets ws.held and ws.reg for the current ws.J, and ws.C's
// motor rows to 0 (their target). Returns the rows held because they are
// slack (ropes short of their length; a soft rope is held as soft), to
// watch: a correction may draw one taut (release_taut_rows).
std::vector<int> hold_for_positions(const WorldModel& m, Workspace& ws, const BlockJacobian& J) {
  prepare_system(m, ws, J);
  hold_soft_rows(ws);
  std::vector<int> slack = hold_slack_rows(ws, m.settings.projection_tolerance, true);
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.velocity_row[i]) continue;
    const int r = static_cast<int>(i);
    ws.C[r] = 0.0;
    // Friction does not resist a position correction (it pushes along normals only).
    if ((i < ws.motor_free.size() && ws.motor_free[i]) || ws.contact_row[i] == ContactRows::friction) {
      ws.held[i] = 1;
      ws.reg[r] = 1.0;
    }
  }
  return slack;
}

// Row i's error: C, but a one-sided row on its free side (C < 0: a contact
// apart, a slack rope) is not in error. Its multiplier is bounded to one
// sign, so no Newton step can take it back to C = 0 (a rope cannot push):
// counted, a rope that a step's correction left slack held the projection
// at its cap, and a capped step that went nowhere was undone.
double row_error(const Workspace& ws, int i) {
  return ws.unilateral_row[static_cast<std::size_t>(i)] ? std::max(ws.C[i], 0.0) : ws.C[i];
}

// max |C| over the rows projection holds.
double worst_error(const Workspace& ws) {
  double worst = 0.0;
  for (int i = 0; i < ws.C.size(); ++i)
    if (!ws.held[static_cast<std::size_t>(i)] && !ws.velocity_row[static_cast<std::size_t>(i)])
      worst = std::max(worst, std::abs(row_error(ws, i)));
  return worst;
}

// A bound of worst_error before any row is held: every row but those no
// projection holds whatever J is (velocity rows, soft rows; a slack
// one-sided row's error is 0 either way). The rows
// prepare_system would hold besides (they touch nothing movable) can only
// lower it, so a bound under the tolerance passes the check without
// forming diag(J W Jᵀ): most steps end on the manifold.
double error_bound(const WorldModel& m, Workspace& ws) {
  return chunked_max(parallel(m, ws), static_cast<int>(ws.C.size()), [&](int i) {
    const auto row = static_cast<std::size_t>(i);
    if (ws.velocity_row[row] || ws.soft_omega[i] != 0.0) return 0.0;
    return std::abs(row_error(ws, i));
  });
}

// Lets the slack rows a correction drew taut (C ≥ −tolerance) into the
// solve, where their bound keeps them from pushing; none is held again, so
// the set cannot cycle. Held, a rope a mechanism's correction pulled taut
// stayed stretched by millimetres, counted nowhere. Returns whether any
// was let in.
bool release_taut_rows(const Workspace& ws, std::vector<int>& slack, std::vector<char>& held, double tolerance) {
  const auto first = std::partition(slack.begin(), slack.end(), [&](int r) { return ws.C[r] < -tolerance; });
  if (first == slack.end()) return false;
  for (auto it = first; it != slack.end(); ++it) held[static_cast<std::size_t>(*it)] = 0;
  slack.erase(first, slack.end());
  return true;
}

double error_norm(const Workspace& ws, const std::vector<char>& held) {
  double sum = 0.0;
  for (int i = 0; i < ws.C.size(); ++i) {
    if (held[static_cast<std::size_t>(i)] || ws.velocity_row[static_cast<std::size_t>(i)]) continue;
    const double c = row_error(ws, i);
    sum += c * c;
  }
  return std::sqrt(sum);
}

// Δ = W Jᵀ μ with J W Jᵀ μ = rhs over the rows not held, from μ = 0; on
// the tree (tree_solve.hpp) when `tree` and it applies.
Eigen::VectorXd correction_for(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const Eigen::VectorXd& rhs,
                               const SolveRequest& how, bool tree = false) {
  ws.rhs = rhs;
  for (std::size_t i = 0; i < ws.held.size(); ++i)
    if (ws.held[i]) ws.rhs[static_cast<int>(i)] = 0.0;
  ws.lambda.setZero(rhs.size());
  Eigen::VectorXd dq;  // W Jᵀ μ
  SolveRequest with_dq = how;
  with_dq.w_jt_lambda = &dq;
  SolveStats stats;
  const bool on_tree = tree && solve_on_tree(m, ws, stats);
  if (on_tree) {
    w_jt_on_tree(m, ws, dq);
    if (how.residual) stats.residual = residual_on_tree(m, ws, dq);
  } else {
    stats = solve_system(m, ws, J, with_dq);
  }
  record_solve(m, ws, stats, 0);
  return dq;
}

}  // namespace

void ProjectionPoint::take(double at, const WorldData& d, const Workspace& ws, const double* moved_so_far) {
  error = at;
  q = d.q;
  if (moved_so_far) moved.assign(moved_so_far, moved_so_far + d.q.size());
  step_lambda = ws.step_lambda;
  block_forces = ws.block_forces;
  contact_impulses = ws.contacts.impulses();
  reactions.clear();
  for (const int i : ws.force_layout.fixed_end) {
    const ConstraintState& c = d.constraints[static_cast<std::size_t>(i)];
    reactions.emplace_back(c.on_a, c.on_b);
  }
}

void ProjectionPoint::restore(WorldData& d, Workspace& ws, double* moved_so_far) const {
  d.q = q;
  if (moved_so_far) std::copy(moved.begin(), moved.end(), moved_so_far);
  ws.step_lambda = step_lambda;
  ws.block_forces = block_forces;
  ws.contacts.set_impulses(contact_impulses);
  for (std::size_t k = 0; k < reactions.size(); ++k) {
    ConstraintState& c = d.constraints[static_cast<std::size_t>(ws.force_layout.fixed_end[k])];
    std::tie(c.on_a, c.on_b) = reactions[k];
  }
}

bool velocity_solve_predicts(const WorldSettings& s) {
  return s.dynamics == Dynamics::velocity_projection && s.project_positions && s.projection == Projection::nearest;
}

double velocity_solve_tolerance(const WorldSettings& s, const Workspace& ws, double h, const Eigen::VectorXd& rhs) {
  if (!velocity_solve_predicts(s) || ws.projection_start == 0.0) return s.solver_tolerance;
  const double rhs_norm = rhs.norm();
  if (!(rhs_norm > 0.0)) return s.solver_tolerance;
  const double share = kPredictorShare * ws.projection_start / (h * rhs_norm);
  return std::max(s.solver_tolerance, std::min(share, kPredictorTolerance));
}

void mark_free_motors(Workspace& ws, double scale) {
  ws.motor_free.assign(ws.held.size(), 0);
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.velocity_row[i]) continue;
    const int r = static_cast<int>(i);
    // A motor at its bound slips: projection must not lock it.
    ws.motor_free[i] = ws.held[i] || !(ws.lambda[r] > scale * ws.lo[r] && ws.lambda[r] < scale * ws.hi[r]);
  }
}

namespace {

// Zeroes the motors' C (their target in position projection) and returns |C|₂.
double position_norm(Workspace& ws, const std::vector<char>& held) {
  for (int i = 0; i < ws.C.size(); ++i)
    if (ws.velocity_row[static_cast<std::size_t>(i)]) ws.C[i] = 0.0;
  return error_norm(ws, held);
}

}  // namespace

ProjectionOutcome project_positions(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h) {
  const WorldSettings& s = m.settings;
  ProjectionOutcome out;
  // Acyclic constraint graphs: the same iterations, fused (tree_projection.hpp).
  if (project_positions_on_tree(m, d, ws, t, h, LineSearch{kMaxCuts, kMaxGrowth}, out)) return out;
  // Newton iterations on C(q) = 0, each q += α W Dᵀ μ with J W Dᵀ μ ≈ −C:
  // - SHAKE (Projection::shake): D = J(qₙ), the step's own rows (ws.step_J),
  //   so that the chord of the step keeps its tangential length (symplectic);
  //   J(qₙ) W J(qₙ)ᵀ is the matrix the step's velocity solve factored, so an
  //   iteration is one C evaluation and one solve. Where that contracts
  //   slowly (the step turned the rows far), Gauss–Newton finishes. Each
  //   step is halved until |C| falls.
  // - nearest (Projection::nearest): Gauss–Newton from the start, D = J(q):
  //   the W-nearest point. Newton may raise |C| on the way (a chain's long,
  //   ill-conditioned modes), so full steps are taken and halved only where
  //   they would diverge (|C| non-finite, or up kMaxGrowth-fold).
  const int rows = system_rows(m, ws);
  std::vector<int> slack;  // rows held because they began slack (hold_for_positions)
  const bool shake = s.projection == Projection::shake && ws.step_J.rows() == rows && rows > 0;
  if (shake) {
    evaluate_errors(m, d, ws, t, d.q);
    slack = hold_for_positions(m, ws, ws.step_J);
  } else {
    evaluate_rows(m, d, ws, t, d.q, d.v);
    out.error = error_bound(m, ws);
    if (out.error < s.projection_tolerance) {
      for (int i = 0; i < ws.C.size(); ++i)
        if (ws.velocity_row[static_cast<std::size_t>(i)]) ws.C[i] = 0.0;  // the motors' target, as held below
      return out;
    }
    slack = hold_for_positions(m, ws, ws.J);
  }
  out.error = out.start = worst_error(ws);
  if (out.error < s.projection_tolerance) return out;
  std::vector<char> held = ws.held;
  double norm = error_norm(ws, held);
  const double initial = norm;
  bool newton = !shake;
  double forcing = kMaxForcing;
  NewtonStall stall;
  // A solve that gave up on reuse (PCG from the last factorization, then a
  // factorization anyway) says K moves too far between this projection's
  // iterations for the factorization to serve the next: they factor at
  // once, without the PCG iteration each such try cost (cloth_100_slack:
  // 5.9 -> 3.2 PCG iterations a step for 4.28 -> 4.33 factorizations).
  // The first iteration's try reuses the velocity solve's factorization
  // across a whole step's motion: where that failed, the next projections
  // skip it, twice as many after each failure (a moving cloth fails it in
  // 296 of 300 steps; a structure at rest passes it).
  Workspace::FirstReuse& first_reuse = ws.first_reuse;
  bool refactor = first_reuse.skip > 0;
  if (refactor) --first_reuse.skip;
  const bool first_try = !refactor;
  Eigen::VectorXd moved = Eigen::VectorXd::Zero(d.dof());
  // Each iteration moves q by α W Dᵀ μ, and Δq/h goes into the velocities:
  // a force Dᵀ (α μ) / (h dt) averaged over the step. A Newton iteration's
  // D = J(q) is rewritten by its line search, so its share is taken whole
  // before; a step the line search cut gives back the part it did not take
  // through J where it ended (a difference of the order of the cut step).
  const double force = 1.0 / (h * s.dt);
  const int cap = projection_cap(s, ws);
  BestPoint best(cap);
  while (out.error >= s.projection_tolerance) {
    if (out.iterations == cap || over_work_budget(ws)) {
      out.capped = true;
      if (best.restore_if_better(out.error, d, ws, moved.data())) out.error = best.error();
      if (went_nowhere(out)) {
        d.q -= moved;
        moved.setZero();
        out.error = out.start;
      }
      break;
    }
    ++out.iterations;
    const BlockJacobian& J = newton ? ws.J : ws.step_J;
    hold_rows(m, ws, J, held);
    SolveRequest request{.tolerance = forcing, .residual = false};
    request.strict = stall.strict;
    if (refactor) request.max_reuse = 0;
    const int factorizations = ws.direct.factorizations, pcg = ws.direct.pcg_iterations;
    const Eigen::VectorXd dq = correction_for(m, ws, J, -ws.C, request);
    const bool tried = ws.direct.pcg_iterations > pcg, failed = tried && ws.direct.factorizations > factorizations;
    refactor = refactor || failed;
    if (newton && out.iterations == 1 && first_try && tried) {
      first_reuse.skip = failed ? first_reuse.next : 0;
      first_reuse.next = failed ? std::min(2 * first_reuse.next, kMaxReuseSkip) : 1;
    }
    const bool along_current = newton;
    if (along_current) add_constraint_forces(m, d, ws, J, ws.lambda, force, t, d.q);
    const Eigen::VectorXd start = d.q;
    double alpha = 1.0, trial = norm;
    int cut = 0;
    for (;; ++cut, alpha *= 0.5) {
      d.q = start + alpha * dq;
      if (newton) {
        evaluate_constraints(m, d, ws, t, d.q, d.v);  // C for the test, J for the next iteration
      } else {
        evaluate_errors(m, d, ws, t, d.q);
      }
      trial = position_norm(ws, held);
      if (cut == kMaxCuts) break;
      const bool accept = s.projection == Projection::nearest
                              ? std::isfinite(trial) && trial <= kMaxGrowth * initial
                              : trial < norm;
      if (accept) break;
    }
    moved += alpha * dq;
    if (!along_current) {
      add_constraint_forces(m, d, ws, J, ws.lambda, alpha * force, t, start);
    } else if (alpha < 1.0) {
      add_constraint_forces(m, d, ws, J, ws.lambda, (alpha - 1.0) * force, t, d.q);
    }
    const double before = out.error;
    // Eisenstat–Walker: solve the next Newton step only as well as the last
    // one paid off; the outer loop judges by |C| itself.
    forcing = std::clamp(0.9 * (trial / norm) * (trial / norm), s.solver_tolerance, kMaxForcing);
    if (newton) stall.record(norm, trial, ws.step_rank_deficiency);
    norm = trial;
    if (release_taut_rows(ws, slack, held, s.projection_tolerance)) norm = position_norm(ws, held);
    ws.held = held;
    out.error = worst_error(ws);
    best.see(out.iterations, out.error, d, ws, moved.data());
    if (!newton && out.error >= s.projection_tolerance && (cut > 0 || out.error > kShakeContraction * before)) {
      newton = true;
      evaluate_constraints(m, d, ws, t, d.q, d.v);
      position_norm(ws, held);
    }
  }
  d.v += moved / h;
  return out;
}

bool settle_onto_constraints(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h) {
  const WorldSettings& s = m.settings;
  if (!velocity_solve_predicts(s) || d.diagnostics.projection_capped || ws.projection_capped) return false;
  if (error_bound(m, ws) < s.projection_tolerance) return false;
  // The velocities, forces and contact impulses as they were: only q moves.
  ProjectionPoint before;
  before.take(0.0, d, ws, nullptr);
  const Eigen::VectorXd v = d.v;
  const ProjectionOutcome out = project_positions(m, d, ws, t, h);
  Eigen::VectorXd q = std::move(d.q);
  before.restore(d, ws, nullptr);
  d.q = std::move(q);
  d.v = v;
  ws.projection_iterations += out.iterations;
  ws.projection_capped = ws.projection_capped || out.capped;
  ws.projection_error = std::max(ws.projection_error, out.error);
  return out.iterations > 0;
}

void catch_taut_rows(const WorldModel& m, WorldData& d, Workspace& ws, double t) {
  evaluate_constraints(m, d, ws, t, d.q, d.v);
  prepare_system(m, ws);
  bool any = false;
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    const int r = static_cast<int>(i);
    const bool catching = ws.unilateral_row[i] && ws.C[r] >= -m.settings.projection_tolerance && ws.Cdot[r] > 0.0;
    if (catching && !ws.held[i]) {
      any = true;
      continue;
    }
    ws.held[i] = 1;
    ws.reg[r] = 1.0;
  }
  if (!any) return;
  d.v += correction_for(m, ws, ws.J, -ws.Cdot, SolveRequest{.tolerance = m.settings.solver_tolerance, .residual = false});
  add_constraint_forces(m, d, ws, ws.J, ws.lambda, 1.0 / m.settings.dt, t, d.q);  // an impulse
}

void project_velocities(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h) {
  if (!rows_from_tree(m, d, ws, t)) evaluate_rows(m, d, ws, t, d.q, d.v);
  // The check below, bounded before any row is held: every row's |Ċ| but
  // the soft rows' and the slack one-sided rows' (held whatever J is). A
  // bound within the tolerance skips forming diag(J W Jᵀ).
  const double bound = chunked_max(parallel(m, ws), static_cast<int>(ws.Cdot.size()), [&](int i) {
    const bool slack = ws.unilateral_row[static_cast<std::size_t>(i)] && ws.C[i] < -m.settings.projection_tolerance;
    return ws.soft_omega[i] == 0.0 && !slack ? std::abs(ws.Cdot[i]) : 0.0;
  });
  if (bound * h < m.settings.projection_tolerance) return;
  prepare_system(m, ws);
  hold_slack_rows(ws, m.settings.projection_tolerance);
  hold_soft_rows(ws);
  // Friction acted in the velocity solve; here it would hold a bounce or a
  // slide. A contact that has not pushed in the substep (it met its body
  // just now) is the next step's, which bounces it: here it would stop dead.
  const int first_contact = model_rows(m, ws);
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    const ContactRows::Kind kind = static_cast<ContactRows::Kind>(ws.contact_row[i]);
    if (kind == ContactRows::none || (kind == ContactRows::normal && ws.contacts.pushed(static_cast<int>(i) - first_contact)))
      continue;
    ws.held[i] = 1;
    ws.reg[static_cast<int>(i)] = 1.0;
  }
  // Velocities that would keep every held row within projection_tolerance
  // over a whole step already are the projection (a structure at rest):
  // nothing to solve. A contact that separates needs nothing either.
  double worst = 0.0, sum2 = 0.0;
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    const double rate = ws.Cdot[static_cast<int>(i)];
    if (ws.held[i]) continue;
    worst = std::max(worst, ws.contact_row[i] == ContactRows::normal ? rate : std::abs(rate));
    sum2 += rate * rate;
  }
  if (worst * h < m.settings.projection_tolerance) return;
  // A motor is a velocity row: SHAKE's correction (Δq/h) may have moved its
  // bodies' velocities, so RATTLE imposes it again, its bound an impulse now
  // (N·s), less what the substep's earlier solves applied: the bound holds
  // for the substep as a whole.
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.velocity_row[i] || ws.contact_row[i] != ContactRows::none) continue;
    const int r = static_cast<int>(i);
    const double applied = (ws.step_lambda[r] - ws.substep_lambda[r]) * m.settings.dt;
    ws.lo[r] = std::min(ws.lo[r] * h - applied, 0.0);
    ws.hi[r] = std::max(ws.hi[r] * h - applied, 0.0);
  }
  // The same measure says how well to solve: to a residual that leaves no
  // row's |Ċ| h above half the tolerance (|r|∞ ≤ |r|₂ = ρ |Ċ|₂), no looser
  // than kMaxForcing, no tighter than the world's solves. The step's last
  // solve: its K is the next step's first, so where that one is solved
  // tightly (it does not only predict, or the step projected nothing) a
  // factorization here serves both, where PCG would run twice.
  const double enough = 0.5 * m.settings.projection_tolerance / (h * std::sqrt(sum2));
  SolveRequest how{.tolerance = std::clamp(enough, m.settings.solver_tolerance, kMaxForcing), .residual = false};
  // The need itself is per row, and PCG's residual is each row's Ċ after
  // the solve: it may stop there, where the 2-norm bound above asks for
  // more (its last iteration often for a factor of 3 or 4).
  how.row_residual = 0.5 * m.settings.projection_tolerance / h;
  if (!velocity_solve_predicts(m.settings) || ws.projection_start <= m.settings.projection_tolerance)
    how.max_reuse = kEndOfStepReuse;
  d.v += correction_for(m, ws, ws.J, -ws.Cdot, how, true);
  constraint_forces_on_tree(m, d, ws, 1.0 / m.settings.dt, t);  // an impulse
}

}  // namespace linkage
