// Gauss–Seidel on K λ = r, matrix-free: keeps u = W Jᵀ λ up to date, so row
// i's product is (K λ)_i = J_i u + reg_i λ_i, and a change δ of λ_i adds
// δ W J_iᵀ to u. Clamping λ_i to [lo_i, hi_i] in the sweep makes it projected
// Gauss–Seidel, which is how bounded rows (a motor's maximum torque) are met.
//
// The residual that stops it is measured with a product by K, which costs
// as much as a sweep; each sweep measures on the way the residual of every
// row just before its update (the later rows' λ not yet swept), which
// converges with it, and the product is taken only once that is within the
// tolerance: a sweep that does not converge (a pile of contacts stops at
// its cap) costs half what it did.
#include <algorithm>

#include "solvers.hpp"

namespace linkage {

SolveStats solve_gauss_seidel(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& x,
                              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, double tolerance,
                              int max_iterations) {
  const BlockJacobian& J = k.J;
  const int n = static_cast<int>(r.size());
  SolveStats stats;
  if (n == 0) return stats;
  // The scale of the residual: r over the rows λ = 0 would not already
  // satisfy (a one-sided row at its bound 0 with r pushing outward, such as
  // a contact apart, is no work however large its r: counted, it made a
  // pile's penetrations read as converged before a sweep).
  double norm_r = 0.0;
  for (int i = 0; i < n; ++i) {
    const bool satisfied = (lo[i] == 0.0 && r[i] < 0.0) || (hi[i] == 0.0 && r[i] > 0.0);
    if (!k.is_held(i) && !satisfied) norm_r += r[i] * r[i];
  }
  norm_r = std::sqrt(norm_r);
  const Eigen::VectorXd diag = k.diagonal();
  Eigen::VectorXd u = Eigen::VectorXd::Zero(J.cols());
  J.add_transpose_product(x, u);
  u.array() *= k.w.array();

  // A row at its bound with the residual pushing outward is satisfied.
  auto projected = [&](int i, double ri) { return (x[i] <= lo[i] && ri < 0.0) || (x[i] >= hi[i] && ri > 0.0) ? 0.0 : ri; };
  Eigen::VectorXd kx(n), dof;
  auto residual = [&] {
    k.apply(x, kx, dof);
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
      if (k.is_held(i)) continue;
      const double ri = projected(i, r[i] - kx[i]);
      s += ri * ri;
    }
    return norm_r > 0.0 ? std::sqrt(s) / norm_r : std::sqrt(s);
  };

  double rel = residual();
  while (rel > tolerance && stats.iterations < max_iterations) {
    double swept = 0.0;  // Σ of the rows' residuals before their updates
    for (const BlockJacobian::Group& g : J.groups()) {
      for (int row = 0; row < g.rows; ++row) {
        const int i = g.row + row;
        if (k.is_held(i)) continue;
        double ji_u = 0.0;
        for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
          const BlockJacobian::Block& blk = J.block(b);
          const double* v = J.values(blk) + row * blk.cols;
          for (int c = 0; c < blk.cols; ++c) ji_u += v[c] * u[blk.col + c];
        }
        const double old = x[i];
        const double ri = r[i] - ji_u - k.reg[i] * old, seen = projected(i, ri);
        swept += seen * seen;
        x[i] = std::clamp(old + ri / diag[i], lo[i], hi[i]);
        const double delta = x[i] - old;
        if (delta == 0.0) continue;
        for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
          const BlockJacobian::Block& blk = J.block(b);
          const double* v = J.values(blk) + row * blk.cols;
          for (int c = 0; c < blk.cols; ++c) u[blk.col + c] += k.w[blk.col + c] * v[c] * delta;
        }
      }
    }
    ++stats.iterations;
    const double estimate = norm_r > 0.0 ? std::sqrt(swept) / norm_r : std::sqrt(swept);
    if (estimate <= tolerance || stats.iterations == max_iterations) rel = residual();
  }
  stats.residual = rel;
  return stats;
}

}  // namespace linkage
