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

// A mesh large enough for nested dissection: fronts of tens of pivots
// (factored by blocks, solved through dense products), small fronts merged
// into their parents, and the split between two threads; λ agrees with a
// library's sparse LDLᵀ of the same K, on one thread and on two.
TEST(Multifrontal, AgreesOnLargeMeshes) {
  std::mt19937 rng(5);
  const int side = 30;
  std::vector<std::pair<int, int>> edges{{-1, 0}, {-1, side - 1}};
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j) {
      if (i + 1 < side) edges.push_back({i * side + j, (i + 1) * side + j});
      if (j + 1 < side) edges.push_back({i * side + j, i * side + j + 1});
    }
  const RandomSystem s = make_system(rng, side * side, edges, 1);
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
