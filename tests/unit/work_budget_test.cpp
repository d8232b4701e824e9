// A step's work budget (Workspace::work_budget): the solver counts what its
// solves cost by its cost model, and position projection stops as at its
// cap once the step has spent the budget, saying so, and an active set
// gives way to projected Gauss–Seidel. The budget is lowered here; at its
// default no scene of the tests or benchmarks reaches it.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "model_scene.hpp"
#include "projection.hpp"
#include "workspace.hpp"

using namespace linkage;

namespace {

// A 6 × 6 grid of particles tied by rods to their right and lower
// neighbours (loops: the direct solver's general path), its top corners
// fixed, every moving particle moved by up to 3 cm: several Newton
// iterations from the manifold.
Scene shaken_grid() {
  Scene s(2);
  constexpr int n = 6;
  int ids[n][n];
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool fixed = j == 0 && (i == 0 || i == n - 1);
      ids[j][i] = s.body(BodyKind::particle, Vec3(0.1 * i, -0.1 * j, 0.0), 0.0, 1.0, fixed ? Motion::fixed : Motion::dynamic);
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (i + 1 < n) s.add(DistanceDef{}, ids[j][i], ids[j][i + 1]);
      if (j + 1 < n) s.add(DistanceDef{}, ids[j][i], ids[j + 1][i]);
    }
  s.perturb(3, 0.03);
  return s;
}

ProjectionOutcome project(const Scene& s, double budget, double* work = nullptr) {
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  ws.work_budget = budget;
  update_inverse_masses(m, d, ws);
  begin_constraint_forces(m, d, ws);
  const double h = m.settings.dt;
  const ProjectionOutcome out = project_positions(m, d, ws, h, h);
  if (work) *work = ws.direct.work;
  return out;
}

// Eight particles in a ring of ropes (one-sided rows: a loop, the direct
// solver's general path), one of them fixed, and a right side of mixed
// signs: some ropes would have to push, so the active set has rows to
// clamp. Solved with `budget`: the λ and the direct solves it took.
struct BoundedSolve {
  Eigen::VectorXd lambda, lo, hi;
  int solves = 0;
};
BoundedSolve solve_ring_of_ropes(double budget) {
  Scene s(2);
  constexpr int n = 8;
  int first = -1, prev = -1;
  for (int i = 0; i < n; ++i) {
    const double a = 2.0 * std::numbers::pi * i / n;
    const int p = s.body(BodyKind::particle, Vec3(std::cos(a), std::sin(a), 0.0), 0.0, 1.0 + 0.1 * i,
                         i == 0 ? Motion::fixed : Motion::dynamic);
    if (prev >= 0) s.add(RopeDef{}, prev, p);
    if (first < 0) first = p;
    prev = p;
  }
  s.add(RopeDef{}, prev, first);
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  ws.work_budget = budget;
  update_inverse_masses(m, d, ws);
  evaluate_constraints(m, d, ws, 0.0, d.q, d.v);
  prepare_system(m, ws);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ws.rhs.resize(ws.J.rows());
  for (int i = 0; i < ws.rhs.size(); ++i) ws.rhs[i] = u(rng);
  ws.lambda.setZero(ws.J.rows());
  solve_system(m, ws, ws.J, SolveRequest{});
  return {ws.lambda, ws.lo, ws.hi, ws.direct.solves};
}

}  // namespace

TEST(WorkBudget, AnActiveSetGivesWayToGaussSeidelOnceTheStepHasSpentIt) {
  const BoundedSolve exact = solve_ring_of_ropes(4e9);
  ASSERT_GE(exact.solves, 2);  // the active set took rounds
  const BoundedSolve spent = solve_ring_of_ropes(1.0);
  EXPECT_EQ(spent.solves, 1);  // its first solve, then Gauss–Seidel
  for (int i = 0; i < spent.lambda.size(); ++i) {
    EXPECT_GE(spent.lambda[i], spent.lo[i]) << i;
    EXPECT_LE(spent.lambda[i], spent.hi[i]) << i;
    EXPECT_NEAR(spent.lambda[i], exact.lambda[i], 1e-6) << i;  // the same problem, solved another way
  }
}

TEST(WorkBudget, ProjectionStopsOnceTheStepHasSpentIt) {
  const Scene s = shaken_grid();
  double work = 0.0;
  const ProjectionOutcome free = project(s, 4e9, &work);
  ASSERT_FALSE(free.capped);
  ASSERT_GT(free.iterations, 2);
  EXPECT_GT(work, 0.0);  // counted
  EXPECT_LT(work, 4e9);

  // Spent after the first iteration's solve: it stops there, capped.
  const ProjectionOutcome stopped = project(s, 1.0);
  EXPECT_TRUE(stopped.capped);
  EXPECT_EQ(stopped.iterations, 1);
  EXPECT_GE(stopped.error, s.m.settings.projection_tolerance);
  EXPECT_LT(stopped.error, stopped.start);  // the iteration it made counts
}
