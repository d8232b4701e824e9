// Sparse LDLᵀ of the assembled K = J W Jᵀ + diag(reg). Held rows become
// identity rows (λ = r = 0 there). Eigen's SimplicialLDLT computes a
// fill-reducing ordering in analyzePattern(); that is kept while the pattern
// is unchanged, so a steady topology pays only for the numeric factorization.
#include <cmath>

#include "solvers.hpp"

namespace linkage {

void LdltSolver::reset() {
  ldlt_.reset();
  outer_.clear();
  inner_.clear();
  analysed_ = false;
}

namespace {

Eigen::SparseMatrix<double> assemble(const SystemView& k) {
  Eigen::SparseMatrix<double> m = k.J.gram(k.w);
  Eigen::SparseMatrix<double> d(m.rows(), m.cols());
  d.reserve(Eigen::VectorXi::Constant(m.cols(), 1));
  for (int i = 0; i < m.rows(); ++i) d.insert(i, i) = k.reg[i];
  m += d;  // the diagonal is now always in the pattern
  if (!k.held.empty()) {
    for (int col = 0; col < m.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(m, col); it; ++it)
        if (k.held[it.row()] || k.held[it.col()]) it.valueRef() = it.row() == it.col() ? 1.0 : 0.0;
  }
  return m;
}

}  // namespace

SolveStats LdltSolver::solve(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda) {
  SolveStats stats;
  const int n = static_cast<int>(r.size());
  if (n == 0) {
    stats.rank_deficiency = 0;
    return stats;
  }
  const Eigen::SparseMatrix<double> m = assemble(k);
  const bool same = analysed_ && outer_.size() == static_cast<std::size_t>(m.outerSize() + 1) &&
                    std::equal(outer_.begin(), outer_.end(), m.outerIndexPtr()) &&
                    inner_.size() == static_cast<std::size_t>(m.nonZeros()) &&
                    std::equal(inner_.begin(), inner_.end(), m.innerIndexPtr());
  if (!same) {
    ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
    ldlt_->analyzePattern(m);
    outer_.assign(m.outerIndexPtr(), m.outerIndexPtr() + m.outerSize() + 1);
    inner_.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
    analysed_ = true;
    ++analyses_;
  }
  ldlt_->factorize(m);
  Eigen::VectorXd rhs = r;
  for (int i = 0; i < n; ++i)
    if (k.is_held(i)) rhs[i] = 0.0;
  lambda = ldlt_->solve(rhs);
  stats.iterations = 1;
  const double norm_r = rhs.norm();
  stats.residual = norm_r > 0.0 ? (rhs - m * lambda).norm() / norm_r : 0.0;
  stats.rank_deficiency = rank_deficiency(*ldlt_, m, k.held);
  return stats;
}

int estimate_rank_deficiency(const SystemView& k) {
  if (k.J.rows() == 0) return 0;
  const Eigen::SparseMatrix<double> m = assemble(k);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(m);
  return rank_deficiency(ldlt, m, k.held);
}

int rank_deficiency(const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>& ldlt,
                    const Eigen::SparseMatrix<double>& k, const std::vector<char>& held) {
  // A redundant row leaves a pivot of the size of the regularization alone:
  // vanishing against the row's own diagonal.
  constexpr double kRelativePivot = 1e-8;
  const Eigen::VectorXd d = ldlt.vectorD();
  const auto& perm = ldlt.permutationP().indices();
  const Eigen::VectorXd diag = k.diagonal();
  int deficient = 0;
  for (int row = 0; row < diag.size(); ++row) {
    if (!held.empty() && held[row]) continue;
    const double pivot = d[perm[row]];
    if (!(std::abs(pivot) > kRelativePivot * diag[row])) ++deficient;
  }
  return deficient;
}

}  // namespace linkage
