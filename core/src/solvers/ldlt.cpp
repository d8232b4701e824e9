#include <algorithm>
#include <cmath>

#include "solvers.hpp"

namespace linkage {
namespace {

// Redundant rows of K: pivots of its LDLᵀ that vanish against their own
// diagonal (a redundant row leaves a pivot of the size of the regularization).
int count_vanishing_pivots(const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>& ldlt,
                           const Eigen::SparseMatrix<double>& lower, const std::vector<char>& held) {
  constexpr double kRelativePivot = 1e-8;
  const Eigen::VectorXd d = ldlt.vectorD();
  const auto& perm = ldlt.permutationP().indices();
  const Eigen::VectorXd diag = lower.diagonal();
  int deficient = 0;
  for (int row = 0; row < diag.size(); ++row) {
    if (!held.empty() && held[static_cast<std::size_t>(row)]) continue;
    if (!(std::abs(d[perm[row]]) > kRelativePivot * diag[row])) ++deficient;
  }
  return deficient;
}

}  // namespace

void LdltSolver::reset() {
  structure_.clear();
  products_.clear();
  block_rows_.clear();
  dest_.clear();
  diagonal_.clear();
  k_ = {};
  factored_.resize(0);
  factored_held_.clear();
  ldlt_.reset();
}

bool LdltSolver::same_structure(const BlockJacobian& J) const {
  std::size_t i = 0;
  auto next = [&](int v) { return i < structure_.size() && structure_[i++] == v; };
  if (!next(J.rows()) || !next(J.cols()) || !next(static_cast<int>(J.groups().size()))) return false;
  for (const BlockJacobian::Group& g : J.groups()) {
    if (!next(g.row) || !next(g.rows) || !next(g.blocks)) return false;
    for (int b = g.first_block; b < g.first_block + g.blocks; ++b)
      if (!next(J.block(b).col) || !next(J.block(b).cols)) return false;
  }
  return i == structure_.size();
}

void LdltSolver::analyse(const BlockJacobian& J) {
  structure_ = {J.rows(), J.cols(), static_cast<int>(J.groups().size())};
  const int blocks = J.groups().empty() ? 0 : J.groups().back().first_block + J.groups().back().blocks;
  std::vector<int> group_of(static_cast<std::size_t>(blocks));
  block_rows_.assign(group_of.size(), 0);
  for (std::size_t gi = 0; gi < J.groups().size(); ++gi) {
    const BlockJacobian::Group& g = J.groups()[gi];
    structure_.insert(structure_.end(), {g.row, g.rows, g.blocks});
    for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
      structure_.insert(structure_.end(), {J.block(b).col, J.block(b).cols});
      group_of[static_cast<std::size_t>(b)] = static_cast<int>(gi);
      block_rows_[static_cast<std::size_t>(b)] = g.rows;
    }
  }
  // Blocks by the body (column range) they sit on; every pair on one body
  // couples the two groups' rows in K.
  std::vector<std::vector<int>> on_body(static_cast<std::size_t>(J.cols()));
  for (int b = 0; b < blocks; ++b) on_body[static_cast<std::size_t>(J.block(b).col)].push_back(b);
  products_.clear();
  std::vector<Eigen::Triplet<double>> entries;
  auto row_of = [&](int block) { return J.groups()[static_cast<std::size_t>(group_of[static_cast<std::size_t>(block)])]; };
  for (const std::vector<int>& blocks : on_body) {
    for (std::size_t x = 0; x < blocks.size(); ++x) {
      for (std::size_t y = 0; y <= x; ++y) {
        int bi = blocks[x], bj = blocks[y];
        if (row_of(bi).row < row_of(bj).row) std::swap(bi, bj);  // bi: the lower rows
        products_.push_back({bi, bj, 0});
        const BlockJacobian::Group& gi = row_of(bi);
        const BlockJacobian::Group& gj = row_of(bj);
        for (int r = 0; r < gi.rows; ++r)
          for (int c = 0; c < gj.rows; ++c)
            if (gi.row + r >= gj.row + c) entries.emplace_back(gi.row + r, gj.row + c, 0.0);
      }
    }
  }
  for (int i = 0; i < J.rows(); ++i) entries.emplace_back(i, i, 0.0);
  k_.resize(J.rows(), J.rows());
  k_.setFromTriplets(entries.begin(), entries.end());
  k_.makeCompressed();

  auto index_of = [&](int row, int col) {
    const int* begin = k_.innerIndexPtr() + k_.outerIndexPtr()[col];
    const int* end = k_.innerIndexPtr() + k_.outerIndexPtr()[col + 1];
    return static_cast<int>(std::lower_bound(begin, end, row) - k_.innerIndexPtr());
  };
  dest_.clear();
  for (Product& p : products_) {
    const BlockJacobian::Group& gi = row_of(p.block_i);
    const BlockJacobian::Group& gj = row_of(p.block_j);
    p.dest = static_cast<int>(dest_.size());
    for (int r = 0; r < gi.rows; ++r)
      for (int c = 0; c < gj.rows; ++c)
        dest_.push_back(gi.row + r >= gj.row + c ? index_of(gi.row + r, gj.row + c) : -1);
  }
  diagonal_.resize(static_cast<std::size_t>(J.rows()));
  for (int i = 0; i < J.rows(); ++i) diagonal_[static_cast<std::size_t>(i)] = index_of(i, i);

  ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
  ldlt_->analyzePattern(k_);
  factored_.resize(0);
  ++analyses_;
}

void LdltSolver::assemble(const SystemView& k) {
  const BlockJacobian& J = k.J;
  double* values = k_.valuePtr();
  std::fill(values, values + k_.nonZeros(), 0.0);
  for (const Product& p : products_) {
    const BlockJacobian::Block& bi = J.block(p.block_i);
    const BlockJacobian::Block& bj = J.block(p.block_j);
    const double* vi = J.values(bi);
    const double* vj = J.values(bj);
    const int* dest = dest_.data() + p.dest;
    const int ri = block_rows_[static_cast<std::size_t>(p.block_i)];
    const int rj = block_rows_[static_cast<std::size_t>(p.block_j)];
    for (int r = 0; r < ri; ++r) {
      for (int c = 0; c < rj; ++c, ++dest) {
        if (*dest < 0) continue;
        double s = 0.0;
        for (int x = 0; x < bi.cols; ++x) s += vi[r * bi.cols + x] * k.w[bi.col + x] * vj[c * bj.cols + x];
        values[*dest] += s;
      }
    }
  }
  for (int i = 0; i < J.rows(); ++i) values[diagonal_[static_cast<std::size_t>(i)]] += k.reg[i];
  if (k.held.empty()) return;
  for (int col = 0; col < k_.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(k_, col); it; ++it)
      if (k.held[static_cast<std::size_t>(it.row())] || k.held[static_cast<std::size_t>(it.col())])
        it.valueRef() = it.row() == it.col() ? 1.0 : 0.0;
}

SolveStats LdltSolver::solve(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda) {
  SolveStats stats;
  const int n = static_cast<int>(r.size());
  if (n == 0) {
    stats.rank_deficiency = 0;
    return stats;
  }
  if (!ldlt_ || !same_structure(k.J)) analyse(k.J);
  assemble(k);
  const Eigen::Map<const Eigen::VectorXd> values(k_.valuePtr(), k_.nonZeros());
  if (factored_.size() != values.size() || factored_ != values || factored_held_ != k.held) {
    ldlt_->factorize(k_);
    factored_ = values;
    factored_held_ = k.held;
    rank_deficiency_ = count_vanishing_pivots(*ldlt_, k_, k.held);
    ++factorizations_;
  }
  Eigen::VectorXd rhs = r;
  for (int i = 0; i < n; ++i)
    if (k.is_held(i)) rhs[i] = 0.0;
  lambda = ldlt_->solve(rhs);
  stats.iterations = 1;
  const double norm_r = rhs.norm();
  stats.residual = norm_r > 0.0 ? (rhs - k_.selfadjointView<Eigen::Lower>() * lambda).norm() / norm_r : 0.0;
  stats.rank_deficiency = rank_deficiency_;
  return stats;
}

int estimate_rank_deficiency(const SystemView& k) {
  if (k.J.rows() == 0) return 0;
  LdltSolver once;
  Eigen::VectorXd lambda;
  return once.solve(k, Eigen::VectorXd::Zero(k.J.rows()), lambda).rank_deficiency;
}

}  // namespace linkage
