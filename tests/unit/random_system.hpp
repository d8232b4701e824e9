#pragma once
// Random constraint systems K = J W Jᵀ for the solver tests: J's blocks
// over a given graph of bodies, random values, and the same J dense.
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "block_jacobian.hpp"

namespace linkage::test {

struct RandomSystem {
  BlockJacobian J;
  Eigen::VectorXd w, reg;
  std::vector<char> held;
};

// `edges`: pairs of bodies (−1: the world). Bodies have 2 or 3 DOF, a
// constraint 1 to `max_rows` rows.
inline RandomSystem make_system(std::mt19937& rng, int bodies, const std::vector<std::pair<int, int>>& edges, int max_rows = 2) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.5, 2.0);
  std::uniform_int_distribution<int> dof(2, 3), rows(1, 3);
  std::vector<int> offset, size;
  int cols = 0;
  for (int b = 0; b < bodies; ++b) {
    offset.push_back(cols);
    size.push_back(dof(rng));
    cols += size.back();
  }
  RandomSystem s;
  int m = 0;
  std::vector<int> row_count;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    row_count.push_back(std::min(rows(rng), max_rows));
    m += row_count.back();
  }
  s.J.reset(m, cols);
  int row = 0;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    s.J.begin_group(row, row_count[e]);
    for (int body : {edges[e].first, edges[e].second}) {
      if (body < 0) continue;
      double* v = s.J.add_block(offset[static_cast<std::size_t>(body)], size[static_cast<std::size_t>(body)]);
      for (int k = 0; k < row_count[e] * size[static_cast<std::size_t>(body)]; ++k) v[k] = u(rng);
    }
    row += row_count[e];
  }
  s.w.resize(cols);
  for (int i = 0; i < cols; ++i) s.w[i] = pos(rng);
  s.reg = Eigen::VectorXd::Zero(m);
  return s;
}

// J as a dense matrix.
inline Eigen::MatrixXd dense_j(const BlockJacobian& J) {
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(J.rows(), J.cols());
  for (const auto& g : J.groups())
    for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
      const auto& blk = J.block(b);
      for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < blk.cols; ++c) j(g.row + r, blk.col + c) = J.values(blk)[r * blk.cols + c];
    }
  return j;
}

}  // namespace linkage::test
