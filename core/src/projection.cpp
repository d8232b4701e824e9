#include "projection.hpp"

#include <cmath>
#include <limits>

#include "constraint_system.hpp"

namespace linkage {
namespace {

// Position projection and velocity projection solve for position rows only:
// a velocity row (a motor) has no C to project.
int hold_velocity_rows(WorldData& d) {
  Workspace& ws = d.ws;
  int held = prepare_system(d);
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.velocity_row[i] || ws.held[i]) continue;
    ws.held[i] = 1;
    ws.reg[static_cast<int>(i)] = 1.0;
    ++held;
  }
  // Projections are equalities: bounds belong to the velocity solve.
  ws.lo.setConstant(-std::numeric_limits<double>::infinity());
  ws.hi.setConstant(std::numeric_limits<double>::infinity());
  return held;
}

// Δ = W Jᵀ μ for the workspace's μ.
Eigen::VectorXd correction(const Workspace& ws, int dof) {
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(dof);
  ws.J.add_transpose_product(ws.lambda, dq);
  return ws.w.cwiseProduct(dq);
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
  // back to Newton with the current J, which converges from farther out.
  bool newton = false;
  double previous = std::numeric_limits<double>::infinity();
  int iterations = 0;
  for (; iterations < s.projection_max_iterations; ++iterations) {
    evaluate_constraints(d, t, d.q, d.v);
    hold_velocity_rows(d);
    const double error = worst_position_error(ws);
    if (error < s.projection_tolerance) break;
    if (!newton && (error > 0.5 * previous || ws.J.rows() != step_direction.rows())) newton = true;
    previous = error;
    if (!newton) ws.J = step_direction;
    ws.rhs = -ws.C;
    for (std::size_t i = 0; i < ws.held.size(); ++i)
      if (ws.held[i]) ws.rhs[static_cast<int>(i)] = 0.0;
    ws.lambda.setZero(ws.C.size());
    solve_system(d);
    const Eigen::VectorXd dq = correction(ws, d.dof());
    d.q += dq;
    d.v += dq / h;
  }
  return iterations;
}

void project_velocities(WorldData& d, double t) {
  Workspace& ws = d.ws;
  evaluate_constraints(d, t, d.q, d.v);
  hold_velocity_rows(d);
  ws.rhs = -ws.Cdot;
  for (std::size_t i = 0; i < ws.held.size(); ++i)
    if (ws.held[i]) ws.rhs[static_cast<int>(i)] = 0.0;
  ws.lambda.setZero(ws.C.size());
  solve_system(d);
  d.v += correction(ws, d.dof());
}

}  // namespace linkage
