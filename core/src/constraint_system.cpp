#include "constraint_system.hpp"

#include <algorithm>
#include <cassert>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>

#include "body_view.hpp"

namespace linkage {

namespace {

// Below this many constraints an evaluation is not worth waking threads for.
constexpr int kParallelConstraints = 500;

// Where constraint `c`'s blocks go in J: per body end, its first DOF and
// DOF count (−1, 0: no block, the end cannot move).
std::array<int, 4> layout_of(const WorldData& d, const ConstraintRecord& c) {
  std::array<int, 4> out{-1, 0, -1, 0};
  for (int end = 0; end < 2; ++end) {
    const int body = end == 0 ? c.body_a : c.body_b;
    if (body < 0) continue;
    const BodyRecord& b = d.bodies[static_cast<std::size_t>(body)];
    if (b.motion != Motion::dynamic) continue;
    out[static_cast<std::size_t>(2 * end)] = b.offset;
    out[static_cast<std::size_t>(2 * end + 1)] = b.dof;
  }
  return out;
}

void copy_rows(Workspace& ws, const ConstraintRecord& c, const Rows& rows, int row) {
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
}

// Each rigid body's (cos θ, sin θ) at q, for body_view.
void rotations(WorldData& d, const Eigen::VectorXd& q) {
  std::vector<std::pair<double, double>>& out = d.ws.rotation;
  out.resize(d.bodies.size());
  for (std::size_t i = 0; i < d.bodies.size(); ++i) {
    const BodyRecord& r = d.bodies[i];
    if (r.kind == BodyKind::rigid) out[i] = {std::cos(q[r.offset + 2]), std::sin(q[r.offset + 2])};
  }
}

void copy_block(double* out, const Eigen::Matrix3d& block, int rows, int dof) {
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < dof; ++k) out[r * dof + k] = block(r, k);
}

void remember_rows(WorldData& d, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Workspace& ws = d.ws;
  ws.rows_valid = true;
  ws.rows_t = t;
  ws.rows_model = d.model_version;
  ws.rows_q = q;
  ws.rows_v = v;
}

}  // namespace

void evaluate_constraints(WorldData& d, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Workspace& ws = d.ws;
  int m = 0;
  for (const ConstraintRecord& c : d.constraints) m += c.rows;
  ws.C.resize(m);
  ws.Cdot.resize(m);
  ws.jdot_qdot.resize(m);
  ws.c_tt.resize(m);
  ws.lo.resize(m);
  ws.hi.resize(m);
  ws.velocity_row.resize(static_cast<std::size_t>(m));
  ws.unilateral_row.resize(static_cast<std::size_t>(m));
  ws.soft_omega.resize(m);
  ws.soft_zeta.resize(m);
  const int dim = d.settings.dimension;

  rotations(d, q);
  const auto& rot = ws.rotation;
  // J keeps its layout while the constraints and the bodies' motions do:
  // then the blocks are written where they are (the common case: every
  // evaluation of a step, and every step until the topology changes).
  const bool checked = ws.J.layout() == ws.layout_checked && ws.layout_model == d.model_version;
  bool same = checked || (ws.J.rows() == m && ws.J.cols() == d.dof() && ws.J.groups().size() == d.constraints.size());
  for (std::size_t i = 0; same && !checked && i < d.constraints.size(); ++i) {
    const std::array<int, 4> l = layout_of(d, d.constraints[i]);
    const BlockJacobian::Group& g = ws.J.groups()[i];
    int k = g.first_block;
    for (int end = 0; end < 2 && same; ++end) {
      if (l[static_cast<std::size_t>(2 * end + 1)] == 0) continue;
      same = k < g.first_block + g.blocks && ws.J.block(k).col == l[static_cast<std::size_t>(2 * end)] &&
             ws.J.block(k).cols == l[static_cast<std::size_t>(2 * end + 1)];
      ++k;
    }
    same = same && k == g.first_block + g.blocks;
  }
  if (same) {
    ws.layout_checked = ws.J.layout();
    ws.layout_model = d.model_version;
    double* values = ws.J.mutable_values();
    const int n = static_cast<int>(d.constraints.size());
    parallel(d).for_parts(n < kParallelConstraints ? 1 : n, [&](int p, int parts) {
      const auto [first, last] = split(n, parts, p);
      for (int i = first; i < last; ++i) {
        const ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
        const BlockJacobian::Group& g = ws.J.groups()[static_cast<std::size_t>(i)];
        Rows rows;
        evaluate_constraint(c.def, body_view(d, c.body_a, q, v, rot), body_view(d, c.body_b, q, v, rot), t, dim, rows);
        copy_rows(ws, c, rows, g.row);
        int k = g.first_block;
        for (int end = 0; end < 2; ++end) {
          const int body = end == 0 ? c.body_a : c.body_b;
          if (body < 0 || d.bodies[static_cast<std::size_t>(body)].motion != Motion::dynamic) continue;
          const BlockJacobian::Block& b = ws.J.block(k++);
          copy_block(values + b.values, end == 0 ? rows.Ja : rows.Jb, c.rows, b.cols);
        }
      }
    });
    remember_rows(d, t, q, v);
    return;
  }

  ws.J.reset(m, d.dof());
  int row = 0;
  for (const ConstraintRecord& c : d.constraints) {
    Rows rows;
    evaluate_constraint(c.def, body_view(d, c.body_a, q, v, rot), body_view(d, c.body_b, q, v, rot), t, dim, rows);
    copy_rows(ws, c, rows, row);
    ws.J.begin_group(row, c.rows);
    const std::array<int, 4> l = layout_of(d, c);
    for (int end = 0; end < 2; ++end) {
      const int dof = l[static_cast<std::size_t>(2 * end + 1)];
      if (dof == 0) continue;
      copy_block(ws.J.add_block(l[static_cast<std::size_t>(2 * end)], dof), end == 0 ? rows.Ja : rows.Jb, c.rows, dof);
    }
    row += c.rows;
  }
  ws.layout_checked = ws.J.layout();
  ws.layout_model = d.model_version;
  remember_rows(d, t, q, v);
}

void evaluate_rows(WorldData& d, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Workspace& ws = d.ws;
  const bool current = ws.rows_valid && ws.rows_model == d.model_version && ws.rows_t == t &&
                       ws.rows_q.size() == q.size() &&
                       (q.size() == 0 ||  // memcmp wants valid pointers, and an empty vector has none
                        std::memcmp(ws.rows_q.data(), q.data(), sizeof(double) * static_cast<std::size_t>(q.size())) == 0);
  if (!current) {
    evaluate_constraints(d, t, q, v);
    return;
  }
  if (ws.rows_v.size() == v.size() && ws.rows_v == v) return;
  Eigen::VectorXd dv = v - ws.rows_v, jdv;
  ws.J.multiply(dv, jdv, parallel(d));
  ws.Cdot += jdv;
  ws.rows_v = v;
}

double regularization(const WorldSettings& s) {
  // The direct solver takes dependent rows out instead, and would not see
  // them through a regularized diagonal (their pivots would not vanish).
  const bool direct = s.solver == LinearSolver::ldlt && s.dynamics != Dynamics::sequential_impulses;
  return direct ? 0.0 : s.regularization;
}

void evaluate_errors(WorldData& d, double t, const Eigen::VectorXd& q) {
  Workspace& ws = d.ws;
  ws.rows_valid = false;  // C no longer matches the rest of the rows
  const int n = static_cast<int>(d.constraints.size());
  ws.first_row.resize(static_cast<std::size_t>(n) + 1);
  ws.first_row[0] = 0;
  for (int i = 0; i < n; ++i) ws.first_row[static_cast<std::size_t>(i) + 1] = ws.first_row[static_cast<std::size_t>(i)] + d.constraints[static_cast<std::size_t>(i)].rows;
  ws.C.resize(ws.first_row.back());
  rotations(d, q);
  const auto& rot = ws.rotation;
  parallel(d).for_parts(n < kParallelConstraints ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    Rows rows;
    for (int i = first; i < last; ++i) {
      const ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
      evaluate_constraint(c.def, body_view(d, c.body_a, q, d.v, rot), body_view(d, c.body_b, q, d.v, rot), t,
                          d.settings.dimension, rows);
      for (int r = 0; r < c.rows; ++r) ws.C[ws.first_row[static_cast<std::size_t>(i)] + r] = rows.C[r];
    }
  });
}

void hold_rows(WorldData& d, const BlockJacobian& J, const std::vector<char>& held) {
  Workspace& ws = d.ws;
  ws.held = held;
  const double relative = regularization(d.settings);
  if (relative > 0.0) ws.diag = J.gram_diagonal(ws.w, parallel(d));
  ws.reg.resize(J.rows());
  for (std::size_t i = 0; i < held.size(); ++i)
    ws.reg[static_cast<int>(i)] = held[i] ? 1.0 : relative > 0.0 ? relative * ws.diag[static_cast<int>(i)] : 0.0;
}

int prepare_system(WorldData& d) { return prepare_system(d, d.ws.J); }

int prepare_system(WorldData& d, const BlockJacobian& J) {
  Workspace& ws = d.ws;
  const int m = J.rows();
  ws.diag = J.gram_diagonal(ws.w, parallel(d));
  ws.reg = regularization(d.settings) * ws.diag;
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

void scatter_warm(WorldData& d, double scale) {
  const Workspace& ws = d.ws;
  int row = 0;
  for (ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) c.warm[r] = ws.lambda[row + r] / scale;
    row += c.rows;
  }
}

namespace {

// A generalized force on one body's DOF (x, y[, z | θ]) as a force and a torque.
void add_reaction(Reaction& out, const double* generalized, bool rigid, int dof) {
  if (rigid) {
    out.force.x() += generalized[0];
    out.force.y() += generalized[1];
    out.torque += generalized[2];
  } else {
    for (int i = 0; i < dof; ++i) out.force[i] += generalized[i];
  }
}

bool moves(const WorldData& d, int body) {
  return body >= 0 && d.bodies[static_cast<std::size_t>(body)].motion == Motion::dynamic;
}

}  // namespace

void begin_constraint_forces(WorldData& d) {
  Workspace& ws = d.ws;
  int rows = 0, blocks = 0;
  ws.fixed_end_constraints.clear();
  for (std::size_t i = 0; i < d.constraints.size(); ++i) {
    ConstraintRecord& c = d.constraints[i];
    c.lambda = {};
    c.on_a = c.on_b = {};
    rows += c.rows;
    blocks += moves(d, c.body_a) + moves(d, c.body_b);
    if ((c.body_a >= 0 && !moves(d, c.body_a)) || (c.body_b >= 0 && !moves(d, c.body_b)))
      ws.fixed_end_constraints.push_back(static_cast<int>(i));
  }
  ws.step_lambda.setZero(rows);
  ws.block_forces.assign(static_cast<std::size_t>(3 * blocks), 0.0);
}

void remember_substep_lambda(WorldData& d) { d.ws.substep_lambda = d.ws.step_lambda; }

void add_constraint_forces(WorldData& d, const BlockJacobian& J, const Eigen::VectorXd& lambda, double factor,
                           double t, const Eigen::VectorXd& q) {
  Workspace& ws = d.ws;
  assert(J.groups().size() == d.constraints.size() && lambda.size() == J.rows() &&
         ws.step_lambda.size() == J.rows());
  ws.step_lambda += factor * lambda;
  double* forces = ws.block_forces.data();
  for (const BlockJacobian::Group& g : J.groups()) {
    double l[3];
    for (int r = 0; r < g.rows; ++r) l[r] = factor * lambda[g.row + r];
    for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
      const BlockJacobian::Block& b = J.block(k);
      assert(static_cast<std::size_t>(3 * k + b.cols) <= ws.block_forces.size());
      const double* v = J.values(b);
      double* f = forces + 3 * k;
      if (b.cols == 2) {  // a 2D particle's block, the most common
        for (int r = 0; r < g.rows; ++r) {
          f[0] += v[2 * r] * l[r];
          f[1] += v[2 * r + 1] * l[r];
        }
      } else {
        assert(b.cols == 3);  // a rigid body's (x, y, θ) or a 3D particle's
        for (int r = 0; r < g.rows; ++r)
          for (int x = 0; x < 3; ++x) f[x] += v[3 * r + x] * l[r];
      }
    }
  }
  Rows rows;
  for (const int i : ws.fixed_end_constraints) {
    ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
    const int row = J.groups()[static_cast<std::size_t>(i)].row;
    rows = Rows{};
    evaluate_constraint(c.def, body_view(d, c.body_a, q, d.v), body_view(d, c.body_b, q, d.v), t,
                        d.settings.dimension, rows);
    for (int end = 0; end < 2; ++end) {
      const int body = end == 0 ? c.body_a : c.body_b;
      if (body < 0 || moves(d, body)) continue;
      const BodyRecord& b = d.bodies[static_cast<std::size_t>(body)];
      const Eigen::Matrix3d& block = end == 0 ? rows.Ja : rows.Jb;
      double generalized[3] = {};
      for (int r = 0; r < c.rows; ++r)
        for (int x = 0; x < b.dof; ++x) generalized[x] += block(r, x) * factor * lambda[row + r];
      add_reaction(end == 0 ? c.on_a : c.on_b, generalized, b.kind == BodyKind::rigid, b.dof);
    }
  }
}

void finish_constraint_forces(WorldData& d) {
  const Workspace& ws = d.ws;
  int row = 0, k = 0;
  for (ConstraintRecord& c : d.constraints) {
    for (int r = 0; r < c.rows; ++r) c.lambda[static_cast<std::size_t>(r)] = ws.step_lambda[row + r];
    row += c.rows;
    for (int end = 0; end < 2; ++end) {
      const int body = end == 0 ? c.body_a : c.body_b;
      if (!moves(d, body)) continue;
      const BodyRecord& b = d.bodies[static_cast<std::size_t>(body)];
      add_reaction(end == 0 ? c.on_a : c.on_b, ws.block_forces.data() + 3 * k++, b.kind == BodyKind::rigid, b.dof);
    }
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
SolveStats solve_free_rows(WorldData& d, const SystemView& k, const SolveRequest& how) {
  const double tolerance = how.tolerance;
  const BlockJacobian& J = k.J;
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;
  if (s.solver == LinearSolver::gauss_seidel)
    return solve_gauss_seidel(k, ws.rhs, ws.lambda, ws.lo, ws.hi, tolerance, s.solver_max_iterations);

  auto solve_free = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda) {
    if (s.solver == LinearSolver::ldlt)
      return ws.direct.solve(k, rhs, lambda, how);
    return solve_cg(k, rhs, lambda, tolerance, s.solver_max_iterations);
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
    SystemView{J, ws.w, ws.reg, none, k.parallel}.apply(held_lambda, coupling, ws.dof_scratch);
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

SolveStats solve_system(WorldData& d) { return solve_system(d, d.ws.J, SolveRequest{d.settings.solver_tolerance}); }

SolveStats solve_system(WorldData& d, const BlockJacobian& J, const SolveRequest& how) {
  Workspace& ws = d.ws;
  const SystemView k{J, ws.w, ws.reg, ws.held, parallel(d)};
  const std::vector<char> none;
  const bool has_fixed = ws.fixed.size() == ws.rhs.size() && ws.fixed.any();
  if (has_fixed) {
    // Held rows with a known λ push on the free ones: move that to the right side.
    Eigen::VectorXd coupling(ws.rhs.size());
    SystemView{J, ws.w, ws.reg, none, k.parallel}.apply(ws.fixed, coupling, ws.dof_scratch);
    ws.rhs -= coupling;
  }
  SolveStats stats = solve_free_rows(d, k, how);
  if (has_fixed) ws.lambda += ws.fixed;
  return stats;
}

void record_solve(WorldData& d, const SolveStats& stats, int held_rows) {
  Workspace& ws = d.ws;
  ws.iterations += stats.iterations;
  if (!std::isnan(stats.residual)) ws.residual = std::max(ws.residual, stats.residual);
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
