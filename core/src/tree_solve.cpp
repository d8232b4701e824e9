#include "tree_solve.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "constraint_system.hpp"
#include "tree_projection.hpp"

namespace linkage {
namespace {

// Copies J's blocks on moving bodies (the evaluation's, in ws.J) into the
// tree's; true when they were there already.
bool copy_blocks(const BlockJacobian& J, TreeProjection& tp) {
  bool same = true;
  for (const TreeProjection::Node& n : tp.nodes) {
    int k = J.groups()[static_cast<std::size_t>(n.constraint)].first_block;
    for (const TreeProjection::End& end : n.end) {
      if (!end.moves) continue;
      const double* from = J.values(J.block(k++));
      double* to = tp.J.data() + end.values;
      const std::size_t count = static_cast<std::size_t>(n.rows * end.dof);
      if (same && std::memcmp(to, from, count * sizeof(double)) == 0) continue;
      same = false;
      std::copy_n(from, count, to);
    }
  }
  return same;
}

}  // namespace

bool solve_on_tree(const WorldModel& m, Workspace& ws, bool residual, SolveStats& stats) {
  if (!tree_applies(m, ws)) return false;
  TreeProjection& tp = ws.tree;
  const std::size_t nr = tp.y.size();
  if (static_cast<std::size_t>(ws.J.rows()) != nr || ws.J.groups().size() != m.constraints.size()) return false;
  if (ws.fixed.size() == ws.rhs.size() && ws.fixed.any()) return false;
  bool bounded = false;
  for (std::size_t i = 0; i < nr; ++i) {
    if (ws.held[i]) continue;
    const int r = static_cast<int>(i);
    if (!tp.in_tree[i] || ws.reg[r] != 0.0) return false;
    bounded = bounded || std::isfinite(ws.lo[r]) || std::isfinite(ws.hi[r]);
  }

  // An unchanged K (same blocks, W and held rows) is solved with the
  // factorization there.
  const std::size_t dof = static_cast<std::size_t>(ws.w.size());
  bool same = copy_blocks(ws.J, tp) && tp.factored && tp.factored_w.size() == dof &&
              std::memcmp(tp.factored_w.data(), ws.w.data(), dof * sizeof(double)) == 0 && tp.factored_held == ws.held;
  for (std::size_t i = 0; i < nr; ++i) tp.y[i] = ws.held[i] ? 0.0 : ws.rhs[static_cast<int>(i)];
  if (same) {
    tp.elimination.solve(tp.y.data());
  } else {
    tp.elimination.factor(tp.J.data(), ws.w.data(), ws.held.data(), ws.diag.data(), tp.y.data());
    tp.elimination.back_substitute(tp.y.data());
    tp.factored = true;
    tp.factored_w.assign(ws.w.data(), ws.w.data() + dof);
    tp.factored_held = ws.held;
  }
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
  if (!residual) return true;
  Eigen::VectorXd kx(static_cast<Eigen::Index>(nr));
  SystemView{ws.J, ws.w, ws.reg, ws.held, parallel(m, ws)}.apply(ws.lambda, kx, ws.dof_scratch);
  double res = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < nr; ++i) {
    if (ws.held[i]) continue;
    const int r = static_cast<int>(i);
    res += (ws.rhs[r] - kx[r]) * (ws.rhs[r] - kx[r]);
    norm += ws.rhs[r] * ws.rhs[r];
  }
  stats.residual = norm > 0.0 ? std::sqrt(res / norm) : 0.0;
  return true;
}

}  // namespace linkage
