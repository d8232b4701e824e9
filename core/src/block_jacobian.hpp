#pragma once
// The sparse block Jacobian J: each constraint contributes one small dense
// block (its rows × a body's DOF) per movable body it touches. J is never
// stored densely; products with J and Jᵀ walk the blocks.

#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "parallel.hpp"

namespace linkage {

class BlockJacobian {
 public:
  struct Block {
    int col, cols;  // the body's DOF range
    int values;     // offset of the row-major rows × cols values
  };
  // The rows of one constraint and the blocks that cover them.
  struct Group {
    int row, rows;
    int first_block, blocks;
  };

  void reset(int rows, int cols);
  void begin_group(int row, int rows);
  // Appends a block to the current group; returns its row-major storage.
  double* add_block(int col, int cols);

  // A stamp of the layout (rows, groups, blocks): every change of layout
  // takes a new one, and a copy keeps its original's, so equal stamps mean
  // equal layouts and a check of the whole layout can be skipped.
  std::uint64_t layout() const { return layout_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const std::vector<Group>& groups() const { return groups_; }
  const Block& block(int i) const { return blocks_[i]; }
  const double* values(const Block& b) const { return values_.data() + b.values; }
  const double* values() const { return values_.data(); }
  std::size_t value_count() const { return values_.size(); }
  // The values, to rewrite in place while the layout stays (see
  // evaluate_constraints): each call takes a new values stamp.
  double* mutable_values();
  // A stamp of the values: every access that may change them (a new block,
  // mutable_values) takes a new one, and a copy keeps its original's, so
  // that what was worked out from J's values (its gram diagonal) can be
  // kept with the stamp they had.
  std::uint64_t values_stamp() const { return values_stamp_; }

  // The products split by groups between a world's threads (see
  // parallel.hpp): rows are written by one part each; Jᵀ l sums each part's
  // own vector, in part order.
  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& y, const Parallel& parallel = {}) const;  // y = J x
  void add_transpose_product(const Eigen::VectorXd& l, Eigen::VectorXd& y,
                             const Parallel& parallel = {}) const;  // y += Jᵀ l
  // The two halves of K z = J W Jᵀ z + diag(d) z over the rows not held
  // (SystemView::apply), each one pass: y += Jᵀ l with held rows of l read
  // as 0; y = J x + d ∘ z with held rows 0 (`held` empty: none held).
  void add_transpose_product(const Eigen::VectorXd& l, const std::vector<char>& held, Eigen::VectorXd& y,
                             const Parallel& parallel = {}) const;
  void multiply_add_diagonal(const Eigen::VectorXd& x, const Eigen::VectorXd& d, const Eigen::VectorXd& z,
                             const std::vector<char>& held, Eigen::VectorXd& y, const Parallel& parallel = {}) const;
  Eigen::VectorXd gram_diagonal(const Eigen::VectorXd& w, const Parallel& parallel = {}) const;  // diag(J W Jᵀ)
  void gram_diagonal(const Group& g, const Eigen::VectorXd& w, double* out) const;  // g's rows of it, into out[0, g.rows)
  Eigen::SparseMatrix<double> gram(const Eigen::VectorXd& w) const;                // J W Jᵀ

 private:
  void new_layout();
  template <class Term>
  void group_sums(const Group& g, const Eigen::VectorXd& u, double out[3]) const;
  template <class Fn>
  void for_each_group(const Parallel& parallel, Fn fn) const;

  int rows_ = 0, cols_ = 0;
  std::uint64_t layout_ = 0;  // 0: the empty layout of a new J
  std::uint64_t values_stamp_ = 0;
  std::vector<Group> groups_;
  std::vector<Block> blocks_;
  std::vector<double> values_;
  mutable std::vector<Eigen::VectorXd> part_sums_;  // per part: its share of Jᵀ l
};

}  // namespace linkage
