#include "block_jacobian.hpp"

#include <atomic>
#include <cassert>

#include "block_shape.hpp"

namespace linkage {

namespace {

std::atomic<std::uint64_t> stamps{0};  // layouts' and values' alike: a stamp is never reused

}  // namespace

void BlockJacobian::new_layout() {
  layout_ = ++stamps;
  values_stamp_ = ++stamps;
}

double* BlockJacobian::mutable_values() {
  values_stamp_ = ++stamps;
  return values_.data();
}

void BlockJacobian::reset(int rows, int cols) {
  new_layout();
  rows_ = rows;
  cols_ = cols;
  groups_.clear();
  blocks_.clear();
  values_.clear();
}

void BlockJacobian::begin_group(int row, int rows) {
  assert(row >= 0 && rows > 0 && row + rows <= rows_ && "a group's rows are inside J");
  assert(rows <= 3 && "a group is one constraint's rows (Rows::kMax): products sum them in registers");
  assert((groups_.empty() || row == groups_.back().row + groups_.back().rows) && "groups tile J's rows in order");
  new_layout();
  groups_.push_back({row, rows, static_cast<int>(blocks_.size()), 0});
}

double* BlockJacobian::add_block(int col, int cols) {
  assert(!groups_.empty() && "a block belongs to a group");
  assert(col >= 0 && cols > 0 && col + cols <= cols_ && "a block's columns are a body's DOF inside J");
  new_layout();
  Group& g = groups_.back();
  const int offset = static_cast<int>(values_.size());
  blocks_.push_back({col, cols, offset});
  ++g.blocks;
  values_.resize(values_.size() + static_cast<std::size_t>(g.rows * cols), 0.0);
  return values_.data() + offset;
}

namespace {

// Below this many values a product is not worth waking threads for (about
// kParallelRows rows of a few values each).
constexpr std::size_t kParallelValues = 8000;

}  // namespace

// Calls fn(g) for every group, the groups split between the parts when J
// is big enough: each group's rows are written by its part alone.
template <class Fn>
void BlockJacobian::for_each_group(const Parallel& parallel, Fn fn) const {
  const int groups = static_cast<int>(groups_.size());
  const int useful = values_.size() < kParallelValues ? 1 : groups;
  parallel.for_parts(useful, [&](int p, int parts) {
    const auto [first, last] = split(groups, parts, p);
    for (int gi = first; gi < last; ++gi) fn(groups_[static_cast<std::size_t>(gi)]);
  });
}

// out[r] = Σ over group g's blocks of Term::of(row r's values, the body's
// entries of u), summed in registers (a store through `out` would wait on
// J's loads: they may alias).
template <class Term>
inline void BlockJacobian::group_sums(const Group& g, const Eigen::VectorXd& u, double out[3]) const {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
    const Block& b = blocks_[static_cast<std::size_t>(k)];
    const double* v = values_.data() + b.values;
    const double* ub = u.data() + b.col;
    if (b.cols == 3) {
      s0 += Term::template of<3>(v, ub);
      if (g.rows > 1) s1 += Term::template of<3>(v + 3, ub);
      if (g.rows > 2) s2 += Term::template of<3>(v + 6, ub);
    } else {
      s0 += Term::template of<2>(v, ub);
      if (g.rows > 1) s1 += Term::template of<2>(v + 2, ub);
      if (g.rows > 2) s2 += Term::template of<2>(v + 4, ub);
    }
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
}

void BlockJacobian::multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y, const Parallel& parallel) const {
  y.resize(rows_);
  for_each_group(parallel, [&](const Group& g) {
    double sum[3];
    group_sums<RowDot>(g, x, sum);
    for (int r = 0; r < g.rows; ++r) y[g.row + r] = sum[r];
  });
}

void BlockJacobian::multiply_add_diagonal(const Eigen::VectorXd& x, const Eigen::VectorXd& d, const Eigen::VectorXd& z,
                                          const std::vector<char>& held, Eigen::VectorXd& y, const Parallel& parallel) const {
  y.resize(rows_);
  const char* h = held.empty() ? nullptr : held.data();
  for_each_group(parallel, [&](const Group& g) {
    double sum[3];
    group_sums<RowDot>(g, x, sum);
    for (int r = 0; r < g.rows; ++r) {
      const int i = g.row + r;
      const double row = sum[r] + d[i] * z[i];
      y[i] = h && h[i] ? 0.0 : row;
    }
  });
}

void BlockJacobian::add_transpose_product(const Eigen::VectorXd& l, Eigen::VectorXd& y, const Parallel& parallel) const {
  add_transpose_product(l, {}, y, parallel);
}

void BlockJacobian::add_transpose_product(const Eigen::VectorXd& l, const std::vector<char>& held, Eigen::VectorXd& y,
                                          const Parallel& parallel) const {
  const int groups = static_cast<int>(groups_.size());
  const char* h = held.empty() ? nullptr : held.data();
  auto accumulate = [&](int first, int last, Eigen::VectorXd& into) {
    for (int gi = first; gi < last; ++gi) {
      const Group& g = groups_[static_cast<std::size_t>(gi)];
      double l_free[3];
      for (int r = 0; r < g.rows; ++r) l_free[r] = h && h[g.row + r] ? 0.0 : l[g.row + r];
      for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
        const Block& b = blocks_[static_cast<std::size_t>(k)];
        const double* v = values_.data() + b.values;
        double* yb = into.data() + b.col;
        if (b.cols == 3) block_transpose_add<3>(v, g.rows, l_free, yb);
        else block_transpose_add<2>(v, g.rows, l_free, yb);
      }
    }
  };
  const int useful = values_.size() < kParallelValues ? 1 : groups;
  if (parallel.count <= 1 || useful <= 1) {
    accumulate(0, groups, y);
    return;
  }
  // The first part adds into y itself, the others into their own sums,
  // which are then added to y in part order, the columns split between
  // the threads.
  part_sums_.resize(static_cast<std::size_t>(parallel.count));
  const int parts = parallel.for_parts(useful, [&](int p, int parts) {
    const auto [first, last] = split(groups, parts, p);
    if (p == 0) {
      accumulate(first, last, y);
      return;
    }
    Eigen::VectorXd& sum = part_sums_[static_cast<std::size_t>(p)];
    sum.setZero(cols_);
    accumulate(first, last, sum);
  });
  parallel.for_parts(cols_, [&](int p, int column_parts) {
    const auto [first, last] = split(cols_, column_parts, p);
    for (int q = 1; q < parts; ++q) y.segment(first, last - first) += part_sums_[static_cast<std::size_t>(q)].segment(first, last - first);
  });
}

Eigen::VectorXd BlockJacobian::gram_diagonal(const Eigen::VectorXd& w, const Parallel& parallel) const {
  Eigen::VectorXd d(rows_);
  for_each_group(parallel, [&](const Group& g) {
    double sum[3];
    group_sums<RowGram>(g, w, sum);
    for (int r = 0; r < g.rows; ++r) d[g.row + r] = sum[r];
  });
  return d;
}

void BlockJacobian::gram_diagonal(const Group& g, const Eigen::VectorXd& w, double* out) const {
  double sum[3];
  group_sums<RowGram>(g, w, sum);
  for (int r = 0; r < g.rows; ++r) out[r] = sum[r];
}

Eigen::SparseMatrix<double> BlockJacobian::gram(const Eigen::VectorXd& w) const {
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(values_.size());
  for (const Group& g : groups_) {
    for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
      const Block& b = blocks_[k];
      const double* v = values_.data() + b.values;
      for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < b.cols; ++c) t.emplace_back(g.row + r, b.col + c, v[r * b.cols + c]);
    }
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor> j(rows_, cols_);
  j.setFromTriplets(t.begin(), t.end());
  Eigen::SparseMatrix<double, Eigen::RowMajor> jw = j * w.asDiagonal();
  return Eigen::SparseMatrix<double>(jw * j.transpose());
}

}  // namespace linkage
