// The numeric multifrontal LDLᵀ: fronts assembled from J's blocks and the
// children's update matrices, partially factored, their L kept as panels.
#include "multifrontal.hpp"

#include <algorithm>

#include <Eigen/Dense>

namespace linkage {
namespace {

// Fronts with at least this many pivots are factored by blocks (a
// triangular solve and a rank-p update through Eigen's dense kernels); the
// many small ones by scalar loops.
constexpr int kBlockedPivots = 8;

}  // namespace

MultifrontalLdlt::MultifrontalLdlt(const MultifrontalLdlt& o)
    : graph_(o.graph_),
      elimination_(o.elimination_),
      plan_(o.plan_),
      analysed_(o.analysed_),
      panels_(o.panels_),
      inverse_pivot_(o.inverse_pivot_),
      dependent_(o.dependent_) {}

MultifrontalLdlt& MultifrontalLdlt::operator=(const MultifrontalLdlt& o) {
  if (this != &o) *this = MultifrontalLdlt(o);
  return *this;
}

void MultifrontalLdlt::analyse(const BlockJacobian& J, const std::vector<char>& removed) {
  graph_ = build_constraint_graph(J, removed);
  elimination_ = plan_elimination(graph_);
  plan_ = analyse_fronts(J, graph_, elimination_);
  panels_.assign(plan_.panel_values, 0.0);
  updates_.clear();
  inverse_pivot_.assign(plan_.perm.size(), 0.0);
  dependent_.clear();
  analysed_ = true;
}

void MultifrontalLdlt::factor(const SystemView& k) {
  updates_.resize(plan_.update_values);
  front_.resize(static_cast<std::size_t>(plan_.max_size) * static_cast<std::size_t>(plan_.max_size));
  dependent_.clear();
  for (int s = 0; s < static_cast<int>(plan_.supers.size()); ++s) factor_front(s, k, front_.data());
  std::sort(dependent_.begin(), dependent_.end());
}

void MultifrontalLdlt::factor_front(int si, const SystemView& k, double* f) {
  const FrontPlan::Super& s = plan_.supers[static_cast<std::size_t>(si)];
  const int n = s.size, p = s.pivots;
  const int* index = plan_.index.data() + s.index;
  std::fill(f, f + static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);

  // K's own entries: B_j W B_iᵀ for every pair of blocks on one body.
  const double* jv = k.J.values();
  const double* w = k.w.data();
  for (int x = s.products; x < s.products + s.product_count; ++x) {
    const FrontPlan::Product& pr = plan_.products[static_cast<std::size_t>(x)];
    const double* wb = w + pr.w;
    for (int c = 0; c < pr.size_i; ++c) {
      const double* ri = jv + pr.values_i + pr.rows_i[c] * pr.cols;
      double* to = f + pr.dest + c * n;
      for (int a = pr.diagonal ? c : 0; a < pr.size_j; ++a) {
        const double* rj = jv + pr.values_j + pr.rows_j[a] * pr.cols;
        double sum = 0.0;
        for (int d = 0; d < pr.cols; ++d) sum += rj[d] * wb[d] * ri[d];
        to[a] += sum;
      }
    }
  }
  // Held rows are identity rows: nothing couples to them.
  if (!k.held.empty()) {
    for (int x = 0; x < n; ++x) {
      if (!k.held[static_cast<std::size_t>(plan_.perm[static_cast<std::size_t>(index[x])])]) continue;
      for (int c = 0; c <= x; ++c) f[c * n + x] = 0.0;
      for (int r = x; r < n; ++r) f[x * n + r] = 0.0;
    }
  }
  double scale[kBlockedPivots];
  std::vector<double> big_scale;
  double* pivot_scale = scale;
  if (p > kBlockedPivots) {
    big_scale.resize(static_cast<std::size_t>(p));
    pivot_scale = big_scale.data();
  }
  for (int c = 0; c < p; ++c) {
    f[c * n + c] += k.reg[plan_.perm[static_cast<std::size_t>(index[c])]];
    pivot_scale[c] = f[c * n + c];
  }

  // The children's update matrices (their rows are in this front, in order).
  for (int x = s.children; x < s.children + s.child_count; ++x) {
    const FrontPlan::Super& child = plan_.supers[static_cast<std::size_t>(plan_.children[static_cast<std::size_t>(x)])];
    const int nu = child.size - child.pivots;
    const double* u = updates_.data() + child.update;
    const int* rel = plan_.relative.data() + child.relative;
    for (int cc = 0; cc < nu; ++cc) {
      const double* col = u + cc * nu;
      double* to = f + rel[cc] * n;
      for (int rr = cc; rr < nu; ++rr) to[rel[rr]] += col[rr];
    }
  }

  // Partial LDLᵀ of the pivots. A pivot that vanishes against its row's
  // diagonal is a dependent row: out of the solve, its column dropped.
  double* inverse = inverse_pivot_.data() + s.first;
  const int block_end = p >= kBlockedPivots ? p : n;  // scalar updates reach this far
  for (int c = 0; c < p; ++c) {
    double* col = f + c * n;
    const double d = col[c];
    if (!(d > kDependentPivot * pivot_scale[c])) {
      inverse[c] = 0.0;
      std::fill(col + c + 1, col + n, 0.0);
      const int row = plan_.perm[static_cast<std::size_t>(index[c])];
      if (!k.is_held(row)) dependent_.push_back(row);
      continue;
    }
    const double inv = 1.0 / d;
    inverse[c] = inv;
    for (int j = c + 1; j < block_end; ++j) {
      const double lj = col[j] * inv;
      if (lj == 0.0) continue;
      double* to = f + j * n;
      for (int r = j; r < block_end; ++r) to[r] -= col[r] * lj;
    }
    for (int r = c + 1; r < block_end; ++r) col[r] *= inv;
  }
  if (p >= kBlockedPivots && n > p) {
    // L21 = F21 L11⁻ᵀ D⁻¹, then F22 −= L21 D L21ᵀ.
    Eigen::Map<Eigen::MatrixXd> F(f, n, n);
    auto f21 = F.bottomLeftCorner(n - p, p);
    F.topLeftCorner(p, p).triangularView<Eigen::UnitLower>().transpose().solveInPlace<Eigen::OnTheRight>(f21);
    for (int c = 0; c < p; ++c)
      if (inverse[c] == 0.0) f21.col(c).setZero();
    const Eigen::MatrixXd wd = f21;  // L21 D
    f21 *= Eigen::Map<const Eigen::VectorXd>(inverse, p).asDiagonal();
    F.bottomRightCorner(n - p, n - p).triangularView<Eigen::Lower>() -= wd * f21.transpose();
  }

  double* panel = panels_.data() + s.panel;
  for (int c = 0; c < p; ++c) std::copy(f + c * n, f + (c + 1) * n, panel + c * n);
  const int nu = n - p;
  double* update = updates_.data() + s.update;
  for (int cc = 0; cc < nu; ++cc) std::copy(f + (p + cc) * n + p, f + (p + cc + 1) * n, update + cc * nu);
}

void MultifrontalLdlt::solve(Eigen::VectorXd& x) const {
  Eigen::VectorXd& y = permuted_;
  y.resize(static_cast<Eigen::Index>(plan_.perm.size()));
  const std::vector<int>& perm = plan_.perm;
  for (std::size_t i = 0; i < perm.size(); ++i) y[static_cast<Eigen::Index>(i)] = x[perm[i]];
  x.setZero();
  for (const FrontPlan::Super& s : plan_.supers) {
    const double* panel = panels_.data() + s.panel;
    const int* index = plan_.index.data() + s.index;
    for (int c = 0; c < s.pivots; ++c) {
      const double yc = y[s.first + c];
      const double* col = panel + c * s.size;
      for (int r = c + 1; r < s.pivots; ++r) y[s.first + r] -= col[r] * yc;
      for (int r = s.pivots; r < s.size; ++r) y[index[r]] -= col[r] * yc;
    }
  }
  y.array() *= Eigen::Map<const Eigen::ArrayXd>(inverse_pivot_.data(), y.size());
  for (auto it = plan_.supers.rbegin(); it != plan_.supers.rend(); ++it) {
    const FrontPlan::Super& s = *it;
    const double* panel = panels_.data() + s.panel;
    const int* index = plan_.index.data() + s.index;
    for (int c = s.pivots - 1; c >= 0; --c) {
      const double* col = panel + c * s.size;
      double acc = y[s.first + c];
      for (int r = c + 1; r < s.pivots; ++r) acc -= col[r] * y[s.first + r];
      for (int r = s.pivots; r < s.size; ++r) acc -= col[r] * y[index[r]];
      y[s.first + c] = acc;
    }
  }
  for (std::size_t i = 0; i < perm.size(); ++i) x[perm[i]] = y[static_cast<Eigen::Index>(i)];
}

}  // namespace linkage
