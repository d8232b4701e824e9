// The passes over J that K z = J W Jᵀ z + diag(reg) z is made of, with held
// rows, against the dense matrices; and W Jᵀ λ as the direct solver leaves
// it beside λ when it solves by PCG on a reused factorization.
#include <gtest/gtest.h>

#include <random>

#include <Eigen/Dense>

#include "random_system.hpp"
#include "solvers/direct.hpp"

using namespace linkage;

namespace {

// A side × side grid of bodies (2 or 3 DOF), each joined to its right and
// lower neighbours, the top row to the world, by 1 to max_rows rows: loops
// and fill, so that the direct solver's cost model reuses its
// factorization through PCG.
test::RandomSystem make_grid(std::mt19937& rng, int side, int max_rows) {
  std::vector<std::pair<int, int>> edges;
  const int n = side * side;
  for (int b = 0; b < n; ++b) {
    if (b < side) edges.push_back({-1, b});
    if (b % side + 1 < side) edges.push_back({b, b + 1});
    if (b + side < n) edges.push_back({b, b + side});
  }
  test::RandomSystem s = test::make_system(rng, n, edges, max_rows);
  s.held.assign(static_cast<std::size_t>(s.J.rows()), 0);
  return s;
}

Eigen::VectorXd random_vector(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

}  // namespace

TEST(SystemProducts, KzSkipsHeldRowsOnOneAndTwoThreads) {
  std::mt19937 rng(11);
  test::RandomSystem s = make_grid(rng, 20, 2);  // over the size where products take a second thread
  for (std::size_t i = 0; i < s.held.size(); i += 7) s.held[i] = 1;
  for (int i = 0; i < s.reg.size(); ++i) s.reg[i] = 0.1 * (i % 3);
  const Eigen::VectorXd z = random_vector(rng, s.J.rows());
  Eigen::VectorXd free_z = z;
  for (std::size_t i = 0; i < s.held.size(); ++i)
    if (s.held[i]) free_z[static_cast<int>(i)] = 0.0;
  const Eigen::MatrixXd j = test::dense_j(s.J);
  Eigen::VectorXd expected = j * s.w.asDiagonal() * j.transpose() * free_z + s.reg.cwiseProduct(z);
  for (std::size_t i = 0; i < s.held.size(); ++i)
    if (s.held[i]) expected[static_cast<int>(i)] = 0.0;
  for (int threads : {1, 2}) {
    Threads pool;
    const SystemView k{s.J, s.w, s.reg, s.held, Parallel{&pool, threads}};
    Eigen::VectorXd y, dof;
    k.apply(z, y, dof);
    EXPECT_LT((y - expected).norm(), 1e-12 * expected.norm()) << threads << " threads";
    for (std::size_t i = 0; i < s.held.size(); ++i) {
      if (s.held[i]) {
        EXPECT_EQ(y[static_cast<int>(i)], 0.0);
      }
    }
    // What apply leaves in its scratch is W Jᵀ z over the free rows.
    const Eigen::VectorXd w_jt = s.w.cwiseProduct(j.transpose() * free_z);
    EXPECT_LT((dof - w_jt).norm(), 1e-12 * w_jt.norm()) << threads << " threads";
  }
}

// A factorization reused for a nearby K (PCG, as a moving mechanism's next
// step asks) leaves W Jᵀ λ beside λ; a fresh factorization leaves it to
// the caller (solve_system works it out then).
TEST(SystemProducts, ReusedFactorizationLeavesWJtLambda) {
  std::mt19937 rng(12);
  test::RandomSystem s = make_grid(rng, 30, 1);  // fewer rows than DOF: none dependent
  DirectSolver solver;
  Eigen::VectorXd lambda, w_jt;
  SolveRequest how;
  how.w_jt_lambda = &w_jt;
  const Eigen::VectorXd r = random_vector(rng, s.J.rows());
  const SolveStats first = solver.solve(SystemView{s.J, s.w, s.reg, s.held}, r, lambda, how);
  EXPECT_EQ(solver.factorizations, 1);
  EXPECT_FALSE(first.w_jt_lambda);

  // The next K: J's values moved by 1e-7 relative.
  std::uniform_real_distribution<double> u(-1e-7, 1e-7);
  double* v = s.J.mutable_values();
  for (std::size_t i = 0; i < s.J.value_count(); ++i) v[i] *= 1.0 + u(rng);
  for (const bool warm : {false, true}) {
    if (!warm) lambda.setZero(s.J.rows());
    const SolveStats next = solver.solve(SystemView{s.J, s.w, s.reg, s.held}, r, lambda, how);
    ASSERT_EQ(solver.factorizations, 1) << "the factorization is reused";
    ASSERT_GT(solver.pcg_iterations, 0);
    EXPECT_TRUE(next.w_jt_lambda);
    EXPECT_LE(next.residual, how.tolerance);
    const Eigen::MatrixXd j = test::dense_j(s.J);
    const Eigen::VectorXd expected = s.w.cwiseProduct(j.transpose() * lambda);
    EXPECT_LT((w_jt - expected).norm(), 1e-12 * expected.norm()) << (warm ? "from the warm start" : "from 0");
  }
}

// A caller whose need is per row (RATTLE: each row's Ċ) gives
// SolveRequest::row_residual: PCG stops once no row's residual exceeds it,
// though the relative residual is above the tolerance, and says so.
TEST(SystemProducts, ReuseStopsOnceEveryRowIsWithinItsResidual) {
  std::mt19937 rng(13);
  test::RandomSystem s = make_grid(rng, 30, 1);
  const Eigen::VectorXd r = random_vector(rng, s.J.rows());
  DirectSolver strict, per_row;
  Eigen::VectorXd lambda_strict, lambda_row;
  SolveRequest tight{1e-12};
  tight.residual = true;
  strict.solve(SystemView{s.J, s.w, s.reg, s.held}, r, lambda_strict, tight);
  per_row.solve(SystemView{s.J, s.w, s.reg, s.held}, r, lambda_row, tight);

  std::uniform_real_distribution<double> u(-1e-4, 1e-4);  // far enough that PCG iterates
  double* v = s.J.mutable_values();
  for (std::size_t i = 0; i < s.J.value_count(); ++i) v[i] *= 1.0 + u(rng);
  const SystemView k{s.J, s.w, s.reg, s.held};
  const SolveStats full = strict.solve(k, r, lambda_strict, tight);
  ASSERT_EQ(strict.factorizations, 1) << "the factorization is reused";
  ASSERT_GE(full.iterations, 2);
  EXPECT_LE(full.residual, tight.tolerance);

  SolveRequest rows = tight;
  rows.row_residual = 1e-6 * r.cwiseAbs().maxCoeff();
  const SolveStats early = per_row.solve(k, r, lambda_row, rows);
  ASSERT_EQ(per_row.factorizations, 1);
  EXPECT_LT(early.iterations, full.iterations);
  EXPECT_GT(early.residual, tight.tolerance) << "the residual reported is the one reached";
  const Eigen::MatrixXd j = test::dense_j(s.J);
  const Eigen::VectorXd left = r - (j * s.w.asDiagonal() * j.transpose() * lambda_row + s.reg.cwiseProduct(lambda_row));
  EXPECT_LE(left.cwiseAbs().maxCoeff(), rows.row_residual * (1.0 + 1e-9));
}

// A system whose factor is past MultifrontalLdlt's budget (3,000 one-row
// constraints, each between a body of its own and one body they all share:
// K is dense, its factorization 4.5 G multiply-adds) is solved by conjugate
// gradient in bounded memory, path iterative: no factorization, the
// residual it reports the one reached (here, short of the tolerance asked
// within its bounded iterations), W Jᵀ λ beside λ.
TEST(SystemProducts, ASystemTooDenseToFactorIsSolvedIteratively) {
  std::mt19937 rng(14);
  const int n = 3000;
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i <= n; ++i) edges.push_back({0, i});
  const test::RandomSystem s = test::make_system(rng, n + 1, edges, 1);
  const SystemView k{s.J, s.w, s.reg, s.held};
  const Eigen::VectorXd r = random_vector(rng, s.J.rows());
  DirectSolver solver;
  Eigen::VectorXd lambda, w_jt;
  SolveRequest how{1e-10};
  how.residual = true;
  how.w_jt_lambda = &w_jt;
  const SolveStats stats = solver.solve(k, r, lambda, how);
  EXPECT_EQ(solver.path(), SolverPath::iterative);
  EXPECT_EQ(solver.factorizations, 0);
  Eigen::VectorXd kx, dof;
  k.apply(lambda, kx, dof);
  const double reached = (r - kx).norm() / r.norm();
  EXPECT_LT(reached, 1e-6);
  EXPECT_NEAR(stats.residual, reached, 1e-3 * reached);
  ASSERT_TRUE(stats.w_jt_lambda);
  EXPECT_LT((w_jt - dof).norm(), 1e-12 * w_jt.norm());
}
