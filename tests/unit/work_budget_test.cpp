// A step's work budget (Workspace::work_budget): the solver counts what its
// solves cost by its cost model, and position projection stops as at its
// cap once the step has spent the budget, saying so. The budget is lowered
// here; at its default no scene of the tests or benchmarks reaches it.
#include <gtest/gtest.h>

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

}  // namespace

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
