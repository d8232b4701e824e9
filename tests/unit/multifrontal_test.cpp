// The multifrontal LDLᵀ against a dense factorization of the same K = J W Jᵀ
// + diag(reg), on random Jacobians over random constraint graphs: chains,
// branching trees, graphs with loops, constraints to the world, 1–3 rows per
// constraint, particles and rigid bodies; and redundant rows found.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "random_system.hpp"
#include "solvers/multifrontal.hpp"

using namespace linkage;

namespace {

using test::RandomSystem;
using test::make_system;

Eigen::MatrixXd dense_k(const RandomSystem& s) {
  const Eigen::MatrixXd j = test::dense_j(s.J);
  Eigen::MatrixXd k = j * s.w.asDiagonal() * j.transpose();
  k.diagonal() += s.reg;
  return k;
}

void expect_agrees(const RandomSystem& s, std::mt19937& rng) {
  MultifrontalLdlt f;
  f.analyse(s.J, {});
  f.factor(SystemView{s.J, s.w, s.reg, s.held});
  ASSERT_TRUE(f.dependent_rows().empty());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd r(s.J.rows());
  for (int i = 0; i < r.size(); ++i) r[i] = u(rng);
  Eigen::VectorXd x = r;
  f.solve(x);
  const Eigen::VectorXd expected = dense_k(s).ldlt().solve(r);
  EXPECT_LT((x - expected).norm(), 1e-8 * expected.norm());
}

}  // namespace

TEST(Multifrontal, AgreesOnChains) {
  std::mt19937 rng(1);
  for (int n : {1, 2, 5, 40}) {
    std::vector<std::pair<int, int>> edges{{-1, 0}};
    for (int i = 1; i < n; ++i) edges.push_back({i - 1, i});
    expect_agrees(make_system(rng, n, edges), rng);
  }
}

TEST(Multifrontal, AgreesOnBranchingTreesWithPendants) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 3 + trial * 3;
    std::vector<std::pair<int, int>> edges;
    for (int i = 1; i < n; ++i) edges.push_back({std::uniform_int_distribution<int>(0, i - 1)(rng), i});
    edges.push_back({-1, std::uniform_int_distribution<int>(0, n - 1)(rng)});
    MultifrontalLdlt probe;
    const RandomSystem s = make_system(rng, n, edges);
    probe.analyse(s.J, {});
    EXPECT_EQ(probe.elimination().tree_components, 1);
    expect_agrees(s, rng);
  }
}

TEST(Multifrontal, AgreesOnGraphsWithLoops) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 4 + trial * 2;
    std::vector<std::pair<int, int>> edges;
    for (int i = 1; i < n; ++i) edges.push_back({i - 1, i});
    edges.push_back({0, n - 1});
    edges.push_back({-1, 0});
    MultifrontalLdlt probe;
    const RandomSystem s = make_system(rng, n, edges);
    probe.analyse(s.J, {});
    EXPECT_EQ(probe.elimination().loop_components, 1);
    expect_agrees(s, rng);
  }
}

// Two threads factor and solve independent subtrees apart: the same λ as one
// thread to round-off, and the same bits on every run with two.
TEST(Multifrontal, TwoThreadsAgreeWithOne) {
  std::mt19937 rng(4);
  const int n = 60;
  std::vector<std::pair<int, int>> edges{{-1, 0}};
  for (int i = 1; i < n; ++i) edges.push_back({i - 1, i});
  for (int i = 0; i + 7 < n; i += 5) edges.push_back({i, i + 7});  // loops
  const RandomSystem s = make_system(rng, n, edges);
  Eigen::VectorXd r(s.J.rows());
  for (int i = 0; i < r.size(); ++i) r[i] = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
  auto solve = [&](int threads) {
    Threads pool;
    MultifrontalLdlt f;
    f.analyse(s.J, {});
    f.factor(SystemView{s.J, s.w, s.reg, s.held}, Parallel{&pool, threads});
    Eigen::VectorXd x = r;
    f.solve(x, Parallel{&pool, threads});
    return x;
  };
  const Eigen::VectorXd one = solve(1), two = solve(2);
  EXPECT_LT((one - two).norm(), 1e-12 * one.norm());
  EXPECT_EQ(two, solve(2));
}

namespace {

// A 30 × 30 mesh of bodies, one-row constraints between neighbours and from
// two corners to the world: 1,742 of them, a component large enough for
// nested dissection.
RandomSystem mesh(std::mt19937& rng) {
  const int side = 30;
  std::vector<std::pair<int, int>> edges{{-1, 0}, {-1, side - 1}};
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j) {
      if (i + 1 < side) edges.push_back({i * side + j, (i + 1) * side + j});
      if (j + 1 < side) edges.push_back({i * side + j, i * side + j + 1});
    }
  return make_system(rng, side * side, edges, 1);
}

}  // namespace

// A mesh large enough for nested dissection: fronts of tens of pivots
// (factored by blocks, solved through dense products), small fronts merged
// into their parents, and the split between two threads; λ agrees with a
// library's sparse LDLᵀ of the same K, on one thread and on two.
TEST(Multifrontal, AgreesOnLargeMeshes) {
  std::mt19937 rng(5);
  const RandomSystem s = mesh(rng);
  Eigen::VectorXd r(s.J.rows());
  for (int i = 0; i < r.size(); ++i) r[i] = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> library(s.J.gram(s.w));
  ASSERT_EQ(library.info(), Eigen::Success);
  const Eigen::VectorXd expected = library.solve(r);
  auto solve = [&](int threads) {
    Threads pool;
    MultifrontalLdlt f;
    f.analyse(s.J, {});
    int widest = 0;
    for (const FrontPlan::Super& front : f.plan().supers) widest = std::max(widest, front.pivots);
    EXPECT_GE(widest, 16);
    EXPECT_LT(f.plan().supers.size(), static_cast<std::size_t>(s.J.rows()) / 2);
    // The front pool is a stack a few fronts deep, not a place for each.
    std::size_t every = 0;
    for (const FrontPlan::Super& front : f.plan().supers) every += static_cast<std::size_t>(front.size * front.size);
    EXPECT_LT(f.serial_pool().values, every / 8);
    f.factor(SystemView{s.J, s.w, s.reg, s.held}, Parallel{&pool, threads});
    EXPECT_TRUE(f.dependent_rows().empty());
    Eigen::VectorXd x = r;
    f.solve(x, Parallel{&pool, threads});
    return x;
  };
  const Eigen::VectorXd one = solve(1), two = solve(2);
  EXPECT_LT((one - expected).norm(), 1e-8 * expected.norm());
  EXPECT_LT((two - expected).norm(), 1e-8 * expected.norm());
  EXPECT_EQ(two, solve(2));
}

namespace {

// J with its groups' blocks and values, leaving out the groups `out` says
// and adding one of one row between the bodies at columns `a` and `b`
// (2 DOF each) where `add`.
BlockJacobian edit(const BlockJacobian& from, const std::vector<char>& out, bool add = false, int a = 0, int b = 0) {
  int rows = 0;
  for (std::size_t g = 0; g < from.groups().size(); ++g)
    if (!out[g]) rows += from.groups()[g].rows;
  BlockJacobian J;
  J.reset(rows + (add ? 1 : 0), from.cols());
  int row = 0;
  for (std::size_t g = 0; g < from.groups().size(); ++g) {
    if (out[g]) continue;
    const BlockJacobian::Group& grp = from.groups()[g];
    J.begin_group(row, grp.rows);
    for (int k = grp.first_block; k < grp.first_block + grp.blocks; ++k) {
      const BlockJacobian::Block& blk = from.block(k);
      double* v = J.add_block(blk.col, blk.cols);
      std::copy_n(from.values(blk), grp.rows * blk.cols, v);
    }
    row += grp.rows;
  }
  if (add) {
    J.begin_group(row, 1);
    for (int col : {a, b}) {
      double* v = J.add_block(col, 2);
      v[0] = col == a ? 0.6 : -0.6;
      v[1] = col == a ? 0.8 : -0.8;
    }
  }
  return J;
}

// K x = r by the factorization `f` analysed, and by one analysed afresh.
std::pair<Eigen::VectorXd, Eigen::VectorXd> solve_both(MultifrontalLdlt& f, const BlockJacobian& J, const Eigen::VectorXd& w) {
  const Eigen::VectorXd reg = Eigen::VectorXd::Zero(J.rows());
  const std::vector<char> held;
  Eigen::VectorXd r(J.rows());
  for (int i = 0; i < r.size(); ++i) r[i] = std::sin(1.0 + i);
  f.factor(SystemView{J, w, reg, held});
  Eigen::VectorXd kept = r;
  f.solve(kept);
  MultifrontalLdlt fresh;
  fresh.analyse(J, {});
  fresh.factor(SystemView{J, w, reg, held});
  Eigen::VectorXd afresh = r;
  fresh.solve(afresh);
  EXPECT_LE(f.plan().factor_flops, 1.1 * fresh.plan().factor_flops);  // about as little fill
  return {kept, afresh};
}

}  // namespace

// A change of topology keeps the fill-reducing order of a large component
// with loops (no nested dissection again): a constraint taken out, then one
// added, are followed (kept_order().changed() counts them) and solved alike
// with an analysis made afresh; once more than KeptOrder::kReorderShare of
// the nodes have come or gone, the order is made afresh.
TEST(Multifrontal, KeepsItsOrderAcrossSmallChangesOfTopology) {
  std::mt19937 rng(11);
  const RandomSystem s = mesh(rng);
  MultifrontalLdlt f;
  f.analyse(s.J, {});
  EXPECT_EQ(f.kept_order().changed(), 0);
  std::vector<char> out(s.J.groups().size(), 0);
  out[900] = 1;
  const BlockJacobian less = edit(s.J, out);
  f.analyse(less, {});
  EXPECT_EQ(f.kept_order().changed(), 1);
  auto [kept, afresh] = solve_both(f, less, s.w);
  EXPECT_LT((kept - afresh).norm(), 1e-10 * afresh.norm());
  // A new one-row constraint between the bodies of two groups' first
  // blocks: a new node, ordered last.
  const BlockJacobian more = edit(s.J, out, true, s.J.block(0).col, s.J.block(s.J.groups()[100].first_block).col);
  f.analyse(more, {});
  EXPECT_EQ(f.kept_order().changed(), 2);
  std::tie(kept, afresh) = solve_both(f, more, s.w);
  EXPECT_LT((kept - afresh).norm(), 1e-10 * afresh.norm());
  // Over 5 % of the nodes gone: ordered afresh.
  for (std::size_t g = 200; g < 300; ++g) out[g] = 1;
  f.analyse(edit(s.J, out), {});
  EXPECT_EQ(f.kept_order().changed(), 0);
}

namespace {

// J less the body at column `col` (`dof` columns) and every group on it,
// the later bodies' columns moved down as the world moves them; and where
// each of J's columns went (−1: gone).
std::pair<BlockJacobian, std::vector<int>> without_body(const BlockJacobian& from, int col, int dof) {
  std::vector<char> out(from.groups().size(), 0);
  for (std::size_t g = 0; g < from.groups().size(); ++g) {
    const BlockJacobian::Group& grp = from.groups()[g];
    for (int k = grp.first_block; k < grp.first_block + grp.blocks; ++k) out[g] |= from.block(k).col == col;
  }
  const BlockJacobian kept = edit(from, out);
  std::vector<int> new_column(static_cast<std::size_t>(from.cols()));
  for (int c = 0; c < from.cols(); ++c) new_column[static_cast<std::size_t>(c)] = c < col ? c : c < col + dof ? -1 : c - dof;
  BlockJacobian J;
  J.reset(kept.rows(), from.cols() - dof);
  for (const BlockJacobian::Group& grp : kept.groups()) {
    J.begin_group(grp.row, grp.rows);
    for (int k = grp.first_block; k < grp.first_block + grp.blocks; ++k) {
      const BlockJacobian::Block& blk = kept.block(k);
      std::copy_n(kept.values(blk), grp.rows * blk.cols, J.add_block(new_column[static_cast<std::size_t>(blk.col)], blk.cols));
    }
  }
  return {std::move(J), std::move(new_column)};
}

}  // namespace

// A body taken out moves every later body's columns; told where they went
// (columns_moved, as the world does), the analysis keeps its order for the
// constraints left (the body's four counted as gone) and solves alike with
// one made afresh. Not told, it finds most nodes new and orders afresh.
TEST(Multifrontal, KeepsItsOrderWhenABodyIsTakenOut) {
  std::mt19937 rng(13);
  const RandomSystem s = mesh(rng);
  const int body = 15 * 30 + 15;  // inside the mesh: four constraints
  // Its first column and DOF: the bodies' first columns, from J's blocks.
  std::vector<int> starts;
  for (int k = 0; k < s.J.groups().back().first_block + s.J.groups().back().blocks; ++k) starts.push_back(s.J.block(k).col);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  const int col = starts[static_cast<std::size_t>(body)];
  const int dof = starts[static_cast<std::size_t>(body) + 1] - col;
  auto [less, new_column] = without_body(s.J, col, dof);
  Eigen::VectorXd w(less.cols());
  for (int c = 0; c < s.J.cols(); ++c)
    if (new_column[static_cast<std::size_t>(c)] >= 0) w[new_column[static_cast<std::size_t>(c)]] = s.w[c];

  MultifrontalLdlt f;
  f.analyse(s.J, {});
  f.columns_moved(new_column);
  f.analyse(less, {});
  EXPECT_EQ(f.kept_order().changed(), 4);
  auto [kept, afresh] = solve_both(f, less, w);
  EXPECT_LT((kept - afresh).norm(), 1e-10 * afresh.norm());

  MultifrontalLdlt untold;
  untold.analyse(s.J, {});
  untold.analyse(less, {});
  EXPECT_EQ(untold.kept_order().changed(), 0);  // made afresh
}

// An analysis whose factor would pass its budget of entries stops there and
// says so (over_budget), holding no memory for fronts; the same mesh fits
// the default budget.
TEST(Multifrontal, AFactorPastItsBudgetIsNotPlanned) {
  std::mt19937 rng(12);
  const RandomSystem s = mesh(rng);
  MultifrontalLdlt f;
  f.analyse(s.J, {});
  ASSERT_FALSE(f.over_budget());
  const std::size_t fill = f.plan().panel_values;
  f.analyse(s.J, {}, fill / 2);
  EXPECT_TRUE(f.over_budget());
  EXPECT_EQ(f.serial_pool().values, 0u);
  f.analyse(s.J, {}, fill);
  EXPECT_FALSE(f.over_budget());
}
