#include "block_jacobian.hpp"

namespace linkage {

void BlockJacobian::reset(int rows, int cols) {
  rows_ = rows;
  cols_ = cols;
  groups_.clear();
  blocks_.clear();
  values_.clear();
}

void BlockJacobian::begin_group(int row, int rows) {
  groups_.push_back({row, rows, static_cast<int>(blocks_.size()), 0});
}

double* BlockJacobian::add_block(int col, int cols) {
  Group& g = groups_.back();
  const int offset = static_cast<int>(values_.size());
  blocks_.push_back({col, cols, offset});
  ++g.blocks;
  values_.resize(values_.size() + static_cast<std::size_t>(g.rows * cols), 0.0);
  return values_.data() + offset;
}

void BlockJacobian::multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  y.setZero(rows_);
  for (const Group& g : groups_) {
    for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
      const Block& b = blocks_[k];
      const double* v = values_.data() + b.values;
      for (int r = 0; r < g.rows; ++r) {
        double s = 0.0;
        for (int c = 0; c < b.cols; ++c) s += v[r * b.cols + c] * x[b.col + c];
        y[g.row + r] += s;
      }
    }
  }
}

void BlockJacobian::add_transpose_product(const Eigen::VectorXd& l, Eigen::VectorXd& y) const {
  for (const Group& g : groups_) {
    for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
      const Block& b = blocks_[k];
      const double* v = values_.data() + b.values;
      for (int r = 0; r < g.rows; ++r) {
        const double lr = l[g.row + r];
        for (int c = 0; c < b.cols; ++c) y[b.col + c] += v[r * b.cols + c] * lr;
      }
    }
  }
}

Eigen::VectorXd BlockJacobian::gram_diagonal(const Eigen::VectorXd& w) const {
  Eigen::VectorXd d = Eigen::VectorXd::Zero(rows_);
  for (const Group& g : groups_) {
    for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
      const Block& b = blocks_[k];
      const double* v = values_.data() + b.values;
      for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < b.cols; ++c) d[g.row + r] += v[r * b.cols + c] * v[r * b.cols + c] * w[b.col + c];
    }
  }
  return d;
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
