#include "tree_solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <emmintrin.h>
#include <limits>

#include "block_shape.hpp"
#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "tree_projection.hpp"
#include "world_data.hpp"

namespace linkage {
namespace {

// n values from `from` to `to`: a block of one row on a particle or a bar
// written out, where std::copy_n calls memcpy for each block.
inline void copy_block(const double* from, int n, double* to) {
  if (n == 2) {
    to[0] = from[0];
    to[1] = from[1];
  } else if (n == 3) {
    to[0] = from[0];
    to[1] = from[1];
    to[2] = from[2];
  } else {
    std::copy_n(from, n, to);
  }
}

// to[0..1] += v[0..1] · l as one SSE2 pair: a 2D particle's two DOF, the
// same operation on each as the scalar sums.
inline void add_scaled_pair(double* to, const double* v, double l) {
  _mm_storeu_pd(to, _mm_add_pd(_mm_loadu_pd(to), _mm_mul_pd(_mm_loadu_pd(v), _mm_set1_pd(l))));
}

// Where each node's blocks are in J (TreeProjection::JLayout::values) when
// J's layout is the model's for the tree's nodes (one group a node, a block
// per moving end, in order); null when it is not. A layout checked once is
// not walked again.
const int* layout_matches(const BlockJacobian& J, TreeProjection& tp) {
  for (const TreeProjection::JLayout& known : tp.j_layouts)
    if (J.layout() != 0 && known.stamp == J.layout()) return known.values.data();
  TreeProjection::JLayout& l = tp.j_layouts[tp.older];
  l.stamp = 0;
  l.values.assign(2 * tp.nodes.size(), -1);
  if (J.rows() != static_cast<int>(tp.C.size()) || J.groups().size() != tp.nodes.size()) return nullptr;
  for (std::size_t i = 0; i < tp.nodes.size(); ++i) {
    const TreeProjection::Node& n = tp.nodes[i];
    const BlockJacobian::Group& g = J.groups()[static_cast<std::size_t>(n.constraint)];
    int k = g.first_block;
    for (int e = 0; e < 2; ++e) {
      const TreeProjection::End& end = n.end[e];
      if (!end.moves) continue;
      if (k >= g.first_block + g.blocks || J.block(k).col != end.offset || J.block(k).cols != end.dof) return nullptr;
      l.values[2 * i + static_cast<std::size_t>(e)] = J.block(k++).values;
    }
    if (g.row != n.row || g.rows != n.rows || k != g.first_block + g.blocks) return nullptr;
  }
  l.stamp = J.layout();
  tp.older = 1 - tp.older;
  return l.values.data();
}

// Copies J's blocks on moving bodies (the evaluation's, in ws.J) into the
// tree's, which then no longer hold the projection's rows.
void copy_blocks(const BlockJacobian& J, TreeProjection& tp) {
  tp.rows_q.clear();
  const int* known = layout_matches(J, tp);
  for (std::size_t i = 0; i < tp.nodes.size(); ++i) {
    const TreeProjection::Node& n = tp.nodes[i];
    int k = J.groups()[static_cast<std::size_t>(n.constraint)].first_block;
    for (int e = 0; e < 2; ++e) {
      const TreeProjection::End& end = n.end[e];
      if (!end.moves) continue;
      const int from = known ? known[2 * i + static_cast<std::size_t>(e)] : J.block(k).values;
      ++k;
      copy_block(J.values() + from, n.rows * end.dof, tp.J.data() + end.values);
    }
  }
  tp.blocks_of = J.values_stamp();
}

}  // namespace

bool solve_on_tree(const WorldModel& m, Workspace& ws, SolveStats& stats) {
  if (!tree_applies(m, ws)) return false;
  TreeProjection& tp = ws.tree;
  const std::size_t nr = tp.y.size();
  if (static_cast<std::size_t>(ws.J.rows()) != nr || ws.J.groups().size() != m.constraints.size()) return false;
  if (ws.fixed.size() == ws.rhs.size() && ws.fixed.any()) return false;
  // The right-hand side into tp.y as the rows are checked (scratch until
  // the solve: nothing changes where the tree path does not apply). The
  // checks gathered without a branch a row, the arrays in locals (a store
  // to y may not alias them): the pass took 5.6k cycles on a chain of
  // 1000 rows, twice a step.
  const char *held = ws.held.data(), *in_tree = tp.in_tree.data(), *velocity = ws.velocity_row.data();
  const double *reg = ws.reg.data(), *lo = ws.lo.data(), *hi = ws.hi.data(), *rhs = ws.rhs.data();
  double* y = tp.y.data();
  bool outside = false, bounded = false, motors = false;
  for (std::size_t i = 0; i < nr; ++i) {
    const bool free = !held[i];
    outside |= free & (!in_tree[i] | (reg[i] != 0.0));
    bounded |= free & (std::isfinite(lo[i]) | std::isfinite(hi[i]));
    motors |= free & (velocity[i] != 0);
    y[i] = free ? rhs[i] : 0.0;
  }
  if (outside) return false;

  // An unchanged K (the same J, W and held rows) is solved with the
  // factorization there.
  const BlockJacobian& J = ws.J;
  const bool same = tp.factored && J.values_stamp() == tp.factored_values && ws.w_model == tp.factored_w &&
                    tp.factored_held == ws.held;
  if (same) {
    tp.elimination.solve(tp.y.data());
  } else {
    if (J.values_stamp() != tp.blocks_of) copy_blocks(J, tp);
    tp.elimination.factor(tp.J.data(), ws.w.data(), ws.held.data(), ws.diag.data(), tp.y.data());
    tp.elimination.back_substitute(tp.y.data());
    tp.factored = true;
    tp.factored_values = J.values_stamp();
    tp.factored_w = ws.w_model;
    tp.factored_held = ws.held;
  }
  // A motor or a bounded row beside a dependent one (a motor against a
  // lock): which of them the elimination took out is the general path's to
  // choose (SolveRequest::yielding), as its active set's.
  if ((bounded || motors) && tp.elimination.dependent_rows() > 0) return false;
  for (std::size_t i = 0; bounded && i < nr; ++i) {
    const int r = static_cast<int>(i);
    if (!ws.held[i] && std::clamp(tp.y[i], ws.lo[r], ws.hi[r]) != tp.y[i]) return false;
  }

  ws.lambda = Eigen::Map<const Eigen::VectorXd>(tp.y.data(), static_cast<Eigen::Index>(nr));
  ws.active.assign(nr, 0);
  ws.direct.count_tree_solve(!same);
  stats = SolveStats{};
  stats.iterations = 1;
  stats.rank_deficiency = tp.elimination.dependent_rows();
  stats.residual = std::numeric_limits<double>::quiet_NaN();
  return true;
}

double residual_on_tree(const WorldModel& m, const Workspace& ws, const Eigen::VectorXd& dv) {
  const TreeProjection& tp = ws.tree;
  const double* J = tp.J.data();
  const double* x = dv.data();
  const double* rhs = ws.rhs.data();
  const char* held = ws.held.data();
  double res = 0.0, norm = 0.0;
  auto add = [&](int row, double kx) {
    if (held[row]) return;
    const double r = rhs[row];
    res += (r - kx) * (r - kx);
    norm += r * r;
  };
  // Each row's J dv summed from 0 in the same order either way: over its
  // moving ends, then their DOF. The Rods' loop runs in a quarter of the
  // Nodes' time (a chain of 1000: 12k cycles a solve before).
  if (tp.model == m.model_version && tp.particle_rods && tp.rods_move) {
    for (const TreeProjection::Rod& n : tp.rods) {
      double kx = 0.0;
      for (int e = 0; e < 2; ++e) {
        const int o = n.offset[e];
        if (o < 0) continue;
        const double* v = J + n.values[e];
        kx += v[0] * x[o];
        kx += v[1] * x[o + 1];
        if (n.dof == 3) kx += v[2] * x[o + 2];
      }
      add(n.row, kx);
    }
  } else {
    for (const TreeProjection::Node& n : tp.nodes)
      for (int r = 0; r < n.rows; ++r) {
        double kx = 0.0;
        for (const TreeProjection::End& end : n.end) {
          if (!end.moves) continue;
          const double* v = J + end.values + r * end.dof;
          for (int k = 0; k < end.dof; ++k) kx += v[k] * x[end.offset + k];
        }
        add(n.row + r, kx);
      }
  }
  return norm > 0.0 ? std::sqrt(res / norm) : 0.0;
}

namespace {

// Whether tp.J holds the workspace's J's blocks on a model of particle rods
// whose ends all move: Jᵀ λ then goes through the compact Rods.
bool rods_hold_j(const WorldModel& m, const Workspace& ws) {
  const TreeProjection& tp = ws.tree;
  return tp.model == m.model_version && tp.rods_only && tp.rods_move && ws.J.values_stamp() != 0 &&
         tp.blocks_of == ws.J.values_stamp();
}

}  // namespace

void w_jt_on_tree(const WorldModel& m, Workspace& ws, Eigen::VectorXd& out) {
  const TreeProjection& tp = ws.tree;
  const BlockJacobian& J = ws.J;
  if (!rods_hold_j(m, ws)) {
    w_jt_product(m, ws, J, ws.lambda, out);
    return;
  }
  // The same sums in the same order as w_jt_product on one thread: each
  // DOF's Jᵀ λ in row order, then W.
  out.setZero(J.cols());
  double* y = out.data();
  const double* jv = tp.J.data();
  const double* lambda = ws.lambda.data();
  const bool planar = m.settings.dimension == 2;  // every particle's block: 2 values, else 3
  for (const TreeProjection::Rod& n : tp.rods) {
    const double l = lambda[n.row];
    for (int e = 0; e < 2; ++e) {
      const int o = n.offset[e];
      if (o < 0) continue;
      const double* v = jv + n.values[e];
      if (planar) {
        add_scaled_pair(y + o, v, l);
        continue;
      }
      y[o] += v[0] * l;
      y[o + 1] += v[1] * l;
      y[o + 2] += v[2] * l;
    }
  }
  out.array() *= ws.w.array();
}

void constraint_forces_on_tree(const WorldModel& m, WorldData& d, Workspace& ws, double factor, double t) {
  const TreeProjection& tp = ws.tree;
  if (!rods_hold_j(m, ws) || ws.step_lambda.size() != ws.J.rows() || !ws.force_layout.fixed_end.empty()) {
    add_constraint_forces(m, d, ws, ws.J, ws.lambda, factor, t, d.q);
    return;
  }
  // add_constraint_forces' sums: factor λ into the step's λ, and Jᵀ (factor
  // λ) into each end's block of forces.
  const bool planar = m.settings.dimension == 2;
  const double* jv = tp.J.data();
  double* forces = ws.block_forces.data();
  for (const TreeProjection::Rod& n : tp.rods) {
    const double l = factor * ws.lambda[n.row];
    ws.step_lambda[n.row] += l;
    for (int e = 0; e < 2; ++e) {
      if (n.offset[e] < 0) continue;
      const double* v = jv + n.values[e];
      double* f = forces + 3 * n.block[e];
      if (planar) {
        add_scaled_pair(f, v, l);
        continue;
      }
      f[0] += v[0] * l;
      f[1] += v[1] * l;
      f[2] += v[2] * l;
    }
  }
}

bool move_rates_on_tree(const WorldModel& m, Workspace& ws, const Eigen::VectorXd& v) {
  const TreeProjection& tp = ws.tree;
  if (!rods_hold_j(m, ws) || ws.J.rows() != static_cast<int>(tp.C.size()) || ws.Cdot.size() != ws.J.rows() ||
      ws.rows_v.size() != v.size())
    return false;
  // group_sums' row sums: from 0, each moving end's block's RowDot with
  // the velocity's change added in its order, then Ċ += the sum.
  const bool planar = m.settings.dimension == 2;  // every particle's block: 2 values, else 3
  const double* jv = tp.J.data();
  const double* x = v.data();
  const double* from = ws.rows_v.data();
  double* cdot = ws.Cdot.data();
  for (const TreeProjection::Rod& n : tp.rods) {
    double sum = 0.0;
    for (int e = 0; e < 2; ++e) {
      const int o = n.offset[e];
      if (o < 0) continue;
      const double dv[3] = {x[o] - from[o], x[o + 1] - from[o + 1], planar ? 0.0 : x[o + 2] - from[o + 2]};
      sum += planar ? RowDot::of<2>(jv + n.values[e], dv) : RowDot::of<3>(jv + n.values[e], dv);
    }
    cdot[n.row] += sum;
  }
  return true;
}

bool rows_from_tree(const WorldModel& m, const WorldData& d, Workspace& ws, double t) {
  TreeProjection& tp = ws.tree;
  const std::size_t dof = static_cast<std::size_t>(d.q.size());
  if (!tp.rods_only || m.settings.dynamics != Dynamics::velocity_projection || tp.model != m.model_version ||
      !tp.applies || (ws.contacts.active_for(m) && ws.contacts.rows() > 0) || tp.rows_q.size() != dof ||
      std::memcmp(tp.rows_q.data(), d.q.data(), dof * sizeof(double)) != 0)
    return false;
  BlockJacobian& J = ws.J;
  const int* blocks = J.cols() == d.dof() ? layout_matches(J, tp) : nullptr;
  if (!blocks) return false;
  const int nr = static_cast<int>(tp.C.size());
  for (Eigen::VectorXd* v : {&ws.C, &ws.Cdot, &ws.jdot_qdot, &ws.c_tt, &ws.lo, &ws.hi, &ws.soft_omega, &ws.soft_zeta}) v->resize(nr);
  for (std::vector<char>* v : {&ws.velocity_row, &ws.unilateral_row, &ws.contact_row}) v->resize(static_cast<std::size_t>(nr));
  double* values = J.mutable_values();
  const double* v = d.v.data();
  // diag(J W Jᵀ) as the generic evaluation leaves it (gram_diagonal's sums,
  // kept with J's values stamp), where W is the model's.
  const bool with_diag = inverse_masses_current(m, d, ws);
  if (with_diag) ws.diag.resize(nr);
  const double* w = ws.w.data();
  auto gram = [&](const double* j, int dof, int offset) {
    return dof == 3 ? RowGram::of<3>(j, w + offset) : RowGram::of<2>(j, w + offset);
  };
  // The rows' kinds and softness, and J̇q̇ and C_tt (zeros: nothing in
  // this family writes them), stay in place while the model does, as the
  // generic evaluation keeps them: a row then takes 6 stores where it took
  // 13 (a pass bound by its stores). The arrays in locals: stores to the
  // char arrays may alias any object, the vectors' own pointers too, which
  // the loop would otherwise load again after each.
  const bool kinds = ws.kinds_model != m.model_version || ws.kinds_rows != nr;
  double *C = ws.C.data(), *Cdot = ws.Cdot.data(), *jdot_qdot = ws.jdot_qdot.data(), *c_tt = ws.c_tt.data();
  double *lo = ws.lo.data(), *hi = ws.hi.data(), *omega = ws.soft_omega.data(), *zeta = ws.soft_zeta.data();
  double* diags = with_diag ? ws.diag.data() : nullptr;
  char *velocity_row = ws.velocity_row.data(), *unilateral_row = ws.unilateral_row.data(), *contact_row = ws.contact_row.data();
  const double *tc = tp.C.data(), *tlo = tp.lo.data(), *thi = tp.hi.data(), *tj = tp.J.data();
  auto write_row = [=](int row, double cdot, bool rope, double diag) {
    if (diags) diags[row] = diag;
    C[row] = tc[row];
    Cdot[row] = cdot;
    lo[row] = tlo[row];
    hi[row] = thi[row];
    if (!kinds) return;
    jdot_qdot[row] = c_tt[row] = 0.0;
    omega[row] = zeta[row] = 0.0;
    velocity_row[row] = 0;
    unilateral_row[row] = rope;
    contact_row[row] = ContactRows::none;
  };
  if (tp.particle_rods) {  // the same through the compact Rods
    const TreeProjection::Rod* rods = tp.rods.data();
    const std::size_t count = tp.rods.size();
    for (std::size_t i = 0; i < count; ++i) {
      const TreeProjection::Rod& n = rods[i];
      double cdot = 0.0, diag = 0.0;
      for (int e = 0; e < 2; ++e) {
        const int o = n.offset[e];
        if (o < 0) continue;
        const double* j = tj + n.values[e];
        // A fixed or kinematic end too; written out for a particle's two or
        // three DOF (a loop of run-time length took a third of this pass).
        cdot += j[0] * v[o];
        cdot += j[1] * v[o + 1];
        if (n.dof == 3) cdot += j[2] * v[o + 2];
        const int to = blocks[2 * i + static_cast<std::size_t>(e)];
        if (to < 0) continue;
        copy_block(j, n.dof, values + to);
        if (diags) diag += gram(j, n.dof, o);
      }
      write_row(n.row, cdot, n.rope, diag);
    }
  } else {
    for (std::size_t i = 0; i < tp.nodes.size(); ++i) {
      const TreeProjection::Node& n = tp.nodes[i];  // one row: a rod's or a rope's
      double cdot = 0.0, diag = 0.0;
      for (int e = 0; e < 2; ++e) {
        const TreeProjection::End& end = n.end[e];
        if (end.body < 0) continue;
        const double* j = tp.J.data() + end.values;
        for (int x = 0; x < end.dof; ++x) cdot += j[x] * v[end.offset + x];
        if (!end.moves) continue;
        copy_block(j, end.dof, values + blocks[2 * i + static_cast<std::size_t>(e)]);
        if (with_diag) diag += gram(j, end.dof, end.offset);
      }
      write_row(n.row, cdot, n.rope, diag);
    }
  }
  tp.blocks_of = J.values_stamp();
  ws.diag_of = with_diag ? Workspace::DiagOf{J.values_stamp(), ws.w_model} : Workspace::DiagOf{};
  remember_rows(m, ws, t, d.q, d.v);
  return true;
}

}  // namespace linkage
