#include "projection.hpp"

#include <cmath>
#include <limits>

#include "constraint_system.hpp"

namespace linkage {
namespace {

// Position projection and velocity projection solve for the position rows
// that hold: a velocity row (a motor) has no C to project, and a slack rope
// nothing to hold. A taut rope keeps its bound: it only pulls.
void hold_free_rows(WorldData& d) {
  Workspace& ws = d.ws;
  prepare_system(d);
  hold_slack_rows(d, d.settings.projection_tolerance);
  hold_soft_rows(d);
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.velocity_row[i]) continue;
    ws.held[i] = 1;
    ws.reg[static_cast<int>(i)] = 1.0;
  }
}

// Δ = W Jᵀ μ with J W Jᵀ μ = rhs over the rows not held, from μ = 0.
Eigen::VectorXd correction_for(WorldData& d, const Eigen::VectorXd& rhs) {
  Workspace& ws = d.ws;
  ws.rhs = rhs;
  for (std::size_t i = 0; i < ws.held.size(); ++i)
    if (ws.held[i]) ws.rhs[static_cast<int>(i)] = 0.0;
  ws.lambda.setZero(rhs.size());
  solve_system(d);
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(d.dof());
  ws.J.add_transpose_product(ws.lambda, dq);
  return ws.w.cwiseProduct(dq);
}

// How many times SHAKE halves a Newton step that does not reduce |C|.
constexpr int kMaxCuts = 12;

struct Merit {
  double worst = 0.0;  // max |C|: the stopping test
  double norm = 0.0;   // |C|₂: what each Newton step must reduce
};

double position_error_norm(const Workspace& ws) {
  double sum = 0.0;
  for (int i = 0; i < ws.C.size(); ++i)
    if (!ws.velocity_row[static_cast<std::size_t>(i)] && !ws.held[static_cast<std::size_t>(i)]) sum += ws.C[i] * ws.C[i];
  return std::sqrt(sum);
}

double worst_position_error(const Workspace& ws) {
  double worst = 0.0;
  for (int i = 0; i < ws.C.size(); ++i)
    if (!ws.velocity_row[static_cast<std::size_t>(i)] && !ws.held[static_cast<std::size_t>(i)])
      worst = std::max(worst, std::abs(ws.C[i]));
  return worst;
}

}  // namespace

int project_positions(WorldData& d, double t, double h) {
  const BlockJacobian& step_direction = d.ws.step_J;
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;
  // SHAKE moves along the step's own constraint directions W J(qₙ)ᵀ, not
  // the current ones: corrected this way the chord of the step keeps its
  // tangential length, and the method stays symplectic (moving along the
  // current J instead loses O(h) of the kinetic energy per unit time).
  // The matrix J(qₙ) W J(qₙ)ᵀ is then the same every iteration.
  // If the step moved so far that J(qₙ) no longer contracts the error, fall
  // back to Newton with the current J, which converges from farther out;
  // and every step is cut back (halved) until the error |C| falls, so that
  // a violent step (a whipping chain) still converges.
  auto measure = [&] {
    evaluate_constraints(d, t, d.q, d.v);
    hold_free_rows(d);
    return Merit{worst_position_error(ws), position_error_norm(ws)};
  };
  Merit now = measure();
  bool newton = false;
  double previous = std::numeric_limits<double>::infinity();
  int iterations = 0;
  for (; iterations < s.projection_max_iterations && now.worst >= s.projection_tolerance; ++iterations) {
    if (!newton && (now.worst > 0.5 * previous || ws.J.rows() != step_direction.rows())) newton = true;
    previous = now.worst;
    if (!newton) {
      ws.J = step_direction;
      hold_free_rows(d);
    }
    const Eigen::VectorXd dq = correction_for(d, -ws.C);
    const Eigen::VectorXd start = d.q;
    double alpha = 1.0;
    Merit next{};
    for (int cut = 0; cut < kMaxCuts; ++cut, alpha *= 0.5) {
      d.q = start + alpha * dq;
      next = measure();
      if (next.norm < now.norm) break;
    }
    d.v += (alpha / h) * dq;
    now = next;
  }
  return iterations;
}

void catch_taut_rows(WorldData& d, double t) {
  Workspace& ws = d.ws;
  evaluate_constraints(d, t, d.q, d.v);
  prepare_system(d);
  bool any = false;
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    const int r = static_cast<int>(i);
    const bool catching = ws.unilateral_row[i] && ws.C[r] >= -d.settings.projection_tolerance && ws.Cdot[r] > 0.0;
    if (catching && !ws.held[i]) {
      any = true;
      continue;
    }
    ws.held[i] = 1;
    ws.reg[r] = 1.0;
  }
  if (!any) return;
  d.v += correction_for(d, -ws.Cdot);
}

void project_velocities(WorldData& d, double t, double h) {
  Workspace& ws = d.ws;
  evaluate_constraints(d, t, d.q, d.v);
  hold_free_rows(d);
  // A motor is a velocity row: SHAKE's correction (Δq/h) moved its bodies'
  // velocities, so RATTLE imposes it again, its bound an impulse now (N·s).
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    const int r = static_cast<int>(i);
    if (!ws.velocity_row[i] || !(ws.diag[r] > 0.0)) continue;
    ws.held[i] = 0;
    ws.reg[r] = d.settings.regularization * ws.diag[r];
    ws.lo[r] *= h;
    ws.hi[r] *= h;
  }
  d.v += correction_for(d, -ws.Cdot);
}

}  // namespace linkage
