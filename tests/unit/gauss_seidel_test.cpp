// Projected Gauss–Seidel (solvers/gauss_seidel.cpp) on bounded systems: it
// meets the bounds and complementarity to its tolerance, and measures that
// tolerance against the work there is, not against rows that λ = 0 already
// satisfies.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "random_system.hpp"
#include "solvers/solvers.hpp"

using namespace linkage;
using linkage::test::dense_j;
using linkage::test::make_system;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// |r − K λ| over the rows not satisfied by their bounds (a row at a bound
// with r − K λ pushing outward is), as the solver measures it.
double projected_residual(const Eigen::MatrixXd& K, const Eigen::VectorXd& r, const Eigen::VectorXd& lambda,
                          const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  const Eigen::VectorXd res = r - K * lambda;
  double sum = 0.0;
  for (int i = 0; i < r.size(); ++i) {
    const bool satisfied = (lambda[i] <= lo[i] && res[i] < 0.0) || (lambda[i] >= hi[i] && res[i] > 0.0);
    if (!satisfied) sum += res[i] * res[i];
  }
  return std::sqrt(sum);
}

}  // namespace

// Ten one-sided rows (λ ≤ 0, a contact's), one of them asking to push by
// 1e-3 and the others far apart (r = 1e3: λ = 0 satisfies them). Measured
// against |r|, the push's residual read as 1e-6 relative and the solver
// returned before its first sweep with λ = 0 (a pile's projection then
// moved nothing for 200 iterations); measured against the rows that need
// work, it sweeps until the push is met.
TEST(GaussSeidel, RowsSatisfiedAtZeroDoNotSetTheScale) {
  std::mt19937 rng(7);
  std::vector<std::pair<int, int>> edges;
  for (int b = 0; b < 10; ++b) edges.emplace_back(b, -1);
  const test::RandomSystem s = make_system(rng, 10, edges, 1);
  const int n = s.J.rows();
  ASSERT_EQ(n, 10);
  const Eigen::MatrixXd j = dense_j(s.J);
  const Eigen::MatrixXd K = j * s.w.asDiagonal() * j.transpose();
  Eigen::VectorXd r = Eigen::VectorXd::Constant(n, 1e3), lo = Eigen::VectorXd::Constant(n, -kInf),
                  hi = Eigen::VectorXd::Zero(n);
  r[4] = -1e-3;
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(n);
  const double tolerance = 1e-2;
  const SolveStats stats = solve_gauss_seidel(SystemView{s.J, s.w, s.reg, s.held}, r, lambda, lo, hi, tolerance, 500);
  EXPECT_GT(stats.iterations, 0);
  EXPECT_LT(lambda[4], 0.0);  // it pushes
  for (int i = 0; i < n; ++i) EXPECT_LE(lambda[i], 0.0) << i;
  EXPECT_LE(projected_residual(K, r, lambda, lo, hi), tolerance * 1e-3);
  EXPECT_LE(stats.residual, tolerance);
}

// Equality rows only: the scale is |r| as for any linear solve, and the
// solve reaches a tight tolerance (its stopping test is the true residual).
TEST(GaussSeidel, SolvesAnUnboundedSystemToItsTolerance) {
  std::mt19937 rng(11);
  const test::RandomSystem s = make_system(rng, 6, {{0, -1}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}, 1);
  const int n = s.J.rows();
  const Eigen::MatrixXd j = dense_j(s.J);
  const Eigen::MatrixXd K = j * s.w.asDiagonal() * j.transpose();
  Eigen::VectorXd r(n);
  for (int i = 0; i < n; ++i) r[i] = std::sin(1.0 + i);
  const Eigen::VectorXd lo = Eigen::VectorXd::Constant(n, -kInf), hi = Eigen::VectorXd::Constant(n, kInf);
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(n);
  const SolveStats stats = solve_gauss_seidel(SystemView{s.J, s.w, s.reg, s.held}, r, lambda, lo, hi, 1e-10, 100000);
  EXPECT_LE(stats.residual, 1e-10);
  EXPECT_LE((r - K * lambda).norm(), 1e-10 * r.norm());
}
