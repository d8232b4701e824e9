#include "dynamics.hpp"

#include <chrono>

#include "body_view.hpp"
#include "forces.hpp"

namespace linkage {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// C, Ċ, J̇q̇, c_tt, bounds and J blocks of every constraint, in row order. A
// body that cannot be moved (W = 0) gets no block: it adds nothing to K.
void evaluate_constraints(WorldData& d, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Workspace& ws = d.ws;
  int m = 0;
  for (const ConstraintRecord& c : d.constraints) m += c.rows;
  ws.J.reset(m, d.dof());
  ws.C.resize(m);
  ws.Cdot.resize(m);
  ws.jdot_qdot.resize(m);
  ws.c_tt.resize(m);
  ws.lo.resize(m);
  ws.hi.resize(m);
  ws.velocity_row.assign(static_cast<std::size_t>(m), 0);
  int row = 0;
  for (const ConstraintRecord& c : d.constraints) {
    Rows rows;
    evaluate_constraint(c.def, body_view(d, c.body_a, q, v), body_view(d, c.body_b, q, v), t, d.settings.dimension,
                        rows);
    for (int r = 0; r < c.rows; ++r) {
      ws.C[row + r] = rows.C[r];
      ws.Cdot[row + r] = rows.Cdot[r];
      ws.jdot_qdot[row + r] = rows.jdot_qdot[r];
      ws.c_tt[row + r] = rows.c_tt[r];
      ws.lo[row + r] = rows.lo[r];
      ws.hi[row + r] = rows.hi[r];
      ws.velocity_row[static_cast<std::size_t>(row + r)] = rows.velocity_level;
    }
    ws.J.begin_group(row, c.rows);
    auto add = [&](int body, const Eigen::Matrix3d& block) {
      if (body < 0) return;
      const BodyRecord& b = d.bodies[static_cast<std::size_t>(body)];
      if (b.motion != Motion::dynamic) return;
      double* out = ws.J.add_block(b.offset, b.dof);
      for (int r = 0; r < c.rows; ++r)
        for (int k = 0; k < b.dof; ++k) out[r * b.dof + k] = block(r, k);
    };
    add(c.body_a, rows.Ja);
    add(c.body_b, rows.Jb);
    row += c.rows;
  }
}

bool has_bounds(const Workspace& ws) {
  for (int i = 0; i < ws.lo.size(); ++i)
    if (std::isfinite(ws.lo[i]) || std::isfinite(ws.hi[i])) return true;
  return false;
}

// Solves for λ with the world's solver. Bounded rows (a motor's maximum
// force) are met by Gauss–Seidel's projection, or for the other solvers by an
// active set: a row that exceeds its bound is held at it, its coupling moved
// to the right-hand side, and the rest solved again.
SolveStats solve(WorldData& d) {
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;
  const SystemView k{ws.J, ws.w, ws.reg, ws.held};
  if (s.solver == LinearSolver::gauss_seidel)
    return solve_gauss_seidel(k, ws.rhs, ws.lambda, ws.lo, ws.hi, s.solver_tolerance, s.solver_max_iterations);

  auto solve_free = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda) {
    if (s.solver == LinearSolver::ldlt) return ws.ldlt.solve(k, rhs, lambda);
    return solve_cg(k, rhs, lambda, s.solver_tolerance, s.solver_max_iterations);
  };
  SolveStats stats = solve_free(ws.rhs, ws.lambda);
  if (!has_bounds(ws)) return stats;

  const int m = static_cast<int>(ws.rhs.size());
  Eigen::VectorXd held_lambda = Eigen::VectorXd::Zero(m);
  const std::vector<char> dead_rows = ws.held;
  const std::vector<char> none;
  for (int round = 0; round < m; ++round) {
    bool clamped = false;
    for (int i = 0; i < m; ++i) {
      if (ws.held[i]) continue;
      const double bound = ws.lambda[i] > ws.hi[i] ? ws.hi[i] : ws.lambda[i] < ws.lo[i] ? ws.lo[i] : ws.lambda[i];
      if (bound == ws.lambda[i]) continue;
      ws.held[i] = 1;
      held_lambda[i] = bound;
      clamped = true;
    }
    if (!clamped) break;
    Eigen::VectorXd coupling(m);
    SystemView{ws.J, ws.w, ws.reg, none}.apply(held_lambda, coupling, ws.dof_scratch);
    const Eigen::VectorXd rhs = ws.rhs - coupling;
    for (int i = 0; i < m; ++i)
      if (ws.held[i]) ws.lambda[i] = 0.0;
    const SolveStats more = solve_free(rhs, ws.lambda);
    stats.iterations += more.iterations;
    stats.residual = more.residual;
    if (more.rank_deficiency >= 0) stats.rank_deficiency = more.rank_deficiency;
    ws.lambda += held_lambda;
  }
  ws.held = dead_rows;
  return stats;
}

}  // namespace

void update_inverse_masses(WorldData& d) {
  d.ws.w.setZero(d.dof());
  for (const BodyRecord& b : d.bodies) {
    for (int i = 0; i < b.dof; ++i) d.ws.w[b.offset + i] = b.inv_mass;
    if (b.kind == BodyKind::rigid) d.ws.w[b.offset + 2] = b.inv_inertia;
  }
}

void accelerations(WorldData& d, double h, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Eigen::VectorXd& a, double weight) {
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;

  auto start = Clock::now();
  ws.Qa.setZero(d.dof());
  accumulate_forces(d, q, v, ws.Qa);
  ws.times.forces += seconds_since(start);

  start = Clock::now();
  evaluate_constraints(d, t, q, v);
  ws.times.constraints += seconds_since(start);

  start = Clock::now();
  const int m = ws.J.rows();
  // rhs = −(J̇q̇ + J W Q_a + c_tt + k_s C + k_d Ċ); a velocity row closes its
  // error J q̇ + b at rate 1/h instead.
  Eigen::VectorXd wq = ws.w.cwiseProduct(ws.Qa);
  ws.J.multiply(wq, ws.rhs);
  ws.rhs += ws.jdot_qdot + ws.c_tt;
  for (int i = 0; i < m; ++i)
    ws.rhs[i] += ws.velocity_row[i] ? ws.Cdot[i] / h : s.feedback_stiffness * ws.C[i] + s.feedback_damping * ws.Cdot[i];
  ws.rhs = -ws.rhs;

  // A row that touches nothing movable has K_ii = 0: hold its λ at 0.
  const Eigen::VectorXd diag = ws.J.gram_diagonal(ws.w);
  ws.reg = s.regularization * diag;
  ws.held.assign(static_cast<std::size_t>(m), 0);
  int dead = 0;
  for (int i = 0; i < m; ++i) {
    if (diag[i] > 0.0) continue;
    ws.held[i] = 1;
    ws.reg[i] = 1.0;
    ++dead;
  }

  ws.lambda.resize(m);
  int row = 0;
  for (const ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) ws.lambda[row + r] = ws.held[row + r] ? 0.0 : c.warm[r];
    row += c.rows;
  }

  const SolveStats stats = solve(d);
  ws.iterations += stats.iterations;
  ws.residual = std::max(ws.residual, stats.residual);
  if (stats.rank_deficiency >= 0) {
    ws.step_rank_deficiency = std::max(ws.step_rank_deficiency, stats.rank_deficiency + dead);
  } else {
    if (ws.rank_topology != d.topology_version) {
      ws.rank_deficiency = estimate_rank_deficiency(SystemView{ws.J, ws.w, ws.reg, ws.held});
      ws.rank_topology = d.topology_version;
    }
    ws.step_rank_deficiency = std::max(ws.step_rank_deficiency, ws.rank_deficiency + dead);
  }

  row = 0;
  for (ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) {
      c.warm[r] = ws.lambda[row + r];
      c.lambda[r] += weight * ws.lambda[row + r];
    }
    row += c.rows;
  }

  // q̈ = W (Q_a + Jᵀ λ)
  ws.J.add_transpose_product(ws.lambda, ws.Qa);
  a = ws.w.cwiseProduct(ws.Qa);
  ws.times.solve += seconds_since(start);
}

}  // namespace linkage
