#include "constraint_system.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "body_view.hpp"

namespace linkage {

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
  ws.unilateral_row.assign(static_cast<std::size_t>(m), 0);
  ws.soft_omega.resize(m);
  ws.soft_zeta.resize(m);
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
      ws.unilateral_row[static_cast<std::size_t>(row + r)] = rows.unilateral;
      ws.soft_omega[row + r] = 2.0 * std::numbers::pi * c.softness.frequency;
      ws.soft_zeta[row + r] = c.softness.damping_ratio;
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

int prepare_system(WorldData& d) {
  Workspace& ws = d.ws;
  const int m = ws.J.rows();
  ws.diag = ws.J.gram_diagonal(ws.w);
  ws.reg = d.settings.regularization * ws.diag;
  ws.held.assign(static_cast<std::size_t>(m), 0);
  ws.fixed.setZero(m);
  int held = 0;
  for (int i = 0; i < m; ++i) {
    if (ws.diag[i] > 0.0) continue;
    ws.held[static_cast<std::size_t>(i)] = 1;
    ws.reg[i] = 1.0;
    ++held;
  }
  return held;
}

int hold_slack_rows(WorldData& d, double tolerance) {
  Workspace& ws = d.ws;
  int held = 0;
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.unilateral_row[i] || ws.held[i] || ws.C[static_cast<int>(i)] >= -tolerance) continue;
    ws.held[i] = 1;
    ws.reg[static_cast<int>(i)] = 1.0;
    ++held;
  }
  return held;
}

void apply_soft_forces(WorldData& d) {
  Workspace& ws = d.ws;
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    const double w = ws.soft_omega[i];
    if (w == 0.0 || ws.held[static_cast<std::size_t>(i)]) continue;
    ws.held[static_cast<std::size_t>(i)] = 1;
    ws.reg[i] = 1.0;
    ws.fixed[i] = -(w * w * ws.C[i] + 2.0 * ws.soft_zeta[i] * w * ws.Cdot[i]) / ws.diag[i];
  }
}

void soften_rows(WorldData& d, double h) {
  Workspace& ws = d.ws;
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    const double w = ws.soft_omega[i];
    if (w == 0.0 || ws.held[static_cast<std::size_t>(i)]) continue;
    ws.reg[i] += ws.diag[i] / (h * w * (2.0 * ws.soft_zeta[i] + h * w));
  }
}

double soft_bias(const Workspace& ws, int row, double h) {
  const double w = ws.soft_omega[row];
  return w / (2.0 * ws.soft_zeta[row] + h * w) * ws.C[row];
}

void hold_soft_rows(WorldData& d) {
  Workspace& ws = d.ws;
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    if (ws.soft_omega[i] == 0.0) continue;
    ws.held[static_cast<std::size_t>(i)] = 1;
    ws.reg[i] = 1.0;
  }
}

void gather_warm(WorldData& d, double scale) {
  Workspace& ws = d.ws;
  ws.lambda.resize(ws.J.rows());
  if (!d.settings.warm_start) scale = 0.0;
  int row = 0;
  for (const ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) ws.lambda[row + r] = ws.held[static_cast<std::size_t>(row + r)] ? 0.0 : scale * c.warm[r];
    row += c.rows;
  }
}

void scatter_lambda(WorldData& d, double scale, double weight) {
  const Workspace& ws = d.ws;
  int row = 0;
  for (ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) {
      c.warm[r] = ws.lambda[row + r] / scale;
      c.lambda[r] += weight * c.warm[r];
    }
    row += c.rows;
  }
}

namespace {

bool has_bounds(const Workspace& ws) {
  for (int i = 0; i < ws.lo.size(); ++i)
    if (std::isfinite(ws.lo[i]) || std::isfinite(ws.hi[i])) return true;
  return false;
}

// The free rows' solve, with bounded rows met by projection (Gauss–Seidel)
// or an active set (CG, LDLᵀ).
SolveStats solve_free_rows(WorldData& d, const SystemView& k) {
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;
  if (s.solver == LinearSolver::gauss_seidel)
    return solve_gauss_seidel(k, ws.rhs, ws.lambda, ws.lo, ws.hi, s.solver_tolerance, s.solver_max_iterations);

  auto solve_free = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda) {
    if (s.solver == LinearSolver::ldlt) return ws.direct.solve(k, rhs, lambda, s.solver_tolerance);
    return solve_cg(k, rhs, lambda, s.solver_tolerance, s.solver_max_iterations);
  };
  SolveStats stats = solve_free(ws.rhs, ws.lambda);
  if (!has_bounds(ws)) return stats;

  // Active set: a row past its bound is held there, its coupling moved to
  // the right-hand side, and the rest solved again.
  const int m = static_cast<int>(ws.rhs.size());
  Eigen::VectorXd held_lambda = Eigen::VectorXd::Zero(m);
  const std::vector<char> held_before = ws.held;
  const std::vector<char> none;
  for (int round = 0; round < m; ++round) {
    bool clamped = false;
    for (int i = 0; i < m; ++i) {
      if (ws.held[static_cast<std::size_t>(i)]) continue;
      const double bound = std::clamp(ws.lambda[i], ws.lo[i], ws.hi[i]);
      if (bound == ws.lambda[i]) continue;
      ws.held[static_cast<std::size_t>(i)] = 1;
      held_lambda[i] = bound;
      clamped = true;
    }
    if (!clamped) break;
    Eigen::VectorXd coupling(m);
    SystemView{ws.J, ws.w, ws.reg, none}.apply(held_lambda, coupling, ws.dof_scratch);
    const Eigen::VectorXd rhs = ws.rhs - coupling;
    for (int i = 0; i < m; ++i)
      if (ws.held[static_cast<std::size_t>(i)]) ws.lambda[i] = 0.0;
    const SolveStats more = solve_free(rhs, ws.lambda);
    stats.iterations += more.iterations;
    stats.residual = more.residual;
    if (more.rank_deficiency >= 0) stats.rank_deficiency = more.rank_deficiency;
    ws.lambda += held_lambda;
  }
  ws.held = held_before;
  return stats;
}

}  // namespace

SolveStats solve_system(WorldData& d) {
  Workspace& ws = d.ws;
  const SystemView k{ws.J, ws.w, ws.reg, ws.held};
  const std::vector<char> none;
  const bool has_fixed = ws.fixed.size() == ws.rhs.size() && ws.fixed.any();
  if (has_fixed) {
    // Held rows with a known λ push on the free ones: move that to the right side.
    Eigen::VectorXd coupling(ws.rhs.size());
    SystemView{ws.J, ws.w, ws.reg, none}.apply(ws.fixed, coupling, ws.dof_scratch);
    ws.rhs -= coupling;
  }
  SolveStats stats = solve_free_rows(d, k);
  if (has_fixed) ws.lambda += ws.fixed;
  return stats;
}

void record_solve(WorldData& d, const SolveStats& stats, int held_rows) {
  Workspace& ws = d.ws;
  ws.iterations += stats.iterations;
  ws.residual = std::max(ws.residual, stats.residual);
  int deficiency = stats.rank_deficiency;
  if (deficiency < 0) {
    if (ws.rank_topology != d.topology_version) {
      ws.rank_deficiency = count_dependent_rows(SystemView{ws.J, ws.w, ws.reg, ws.held});
      ws.rank_topology = d.topology_version;
    }
    deficiency = ws.rank_deficiency;
  }
  ws.step_rank_deficiency = std::max(ws.step_rank_deficiency, deficiency + held_rows);
}

}  // namespace linkage
