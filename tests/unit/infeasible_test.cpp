// Constraints that cannot all hold, in the exact family: the projection
// gives up on them (positions where the step put them, no velocity from
// its motion) and says so, instead of flinging the bodies.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "scenes.hpp"

using namespace linkage;

namespace {

double fastest(const World& w, const std::vector<BodyId>& bodies) {
  double v = 0.0;
  for (const BodyId b : bodies) v = std::max(v, w.body(b).value().velocity.norm());
  return v;
}

}  // namespace

// Ten particles on rods of 0.1 m between fixed points 5 m apart: no rope of
// 1.1 m spans 5 m. An acyclic graph (the tree path). Gauss–Newton flailed
// to its cap every step and its motion's Δq/h sent the particles off at
// 29–56 m/s within six steps; now each step gives up, the particles keep
// the velocities of the step's velocity solve (which holds the rods'
// lengths as they are), and every step says it stopped short.
TEST(Infeasible, ARopeTooShortForItsGapStaysPut) {
  World w = test::make_world(with_preset(Preset::exact));
  const BodyId left = w.add_body({.motion = Motion::fixed, .position = Vec3(0, 0, 0)}).value();
  const BodyId right = w.add_body({.motion = Motion::fixed, .position = Vec3(5, 0, 0)}).value();
  std::vector<BodyId> beads;
  for (int i = 1; i <= 10; ++i) beads.push_back(w.add_body({.position = Vec3(5.0 * i / 11, 0, 0), .mass = 1.0}).value());
  BodyId prev = left;
  for (const BodyId b : beads) {
    ASSERT_TRUE(w.add_constraint(DistanceDef{.a = prev, .b = b, .length = 0.1}).ok());
    prev = b;
  }
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = prev, .b = right, .length = 0.1}).ok());
  const double gap = 5.0 / 11 - 0.1;  // each rod's error where it starts
  for (int i = 0; i < 60; ++i) {
    const StepDiagnostics& d = w.step();
    EXPECT_TRUE(d.projection_capped) << i;
    EXPECT_LT(d.max_error, 1.1 * gap) << i;  // flailing, it reached 0.78
    EXPECT_LT(fastest(w, beads), 2.0) << i;
  }
}

// Three particles on rods of 1, 1 and 3 m (no triangle has them), one of
// them tied to a fixed point, without gravity: a closed loop (the general
// path). Its capped projections sent them off at 167–379 m/s from the
// first steps; now they stay at rest where they began, the error the one
// they began with.
TEST(Infeasible, ATriangleWithoutATriangleInequalityStaysPut) {
  WorldSettings s = with_preset(Preset::exact);
  s.gravity = Vec3::Zero();
  World w = test::make_world(s);
  const BodyId anchor = w.add_body({.motion = Motion::fixed, .position = Vec3(-2, 1, 0)}).value();
  const BodyId a = w.add_body({.position = Vec3(0, 0, 0), .mass = 1.0}).value();
  const BodyId b = w.add_body({.position = Vec3(1, 0, 0), .mass = 2.0}).value();
  const BodyId c = w.add_body({.position = Vec3(0.5, 1, 0), .mass = 1.5}).value();
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = a, .b = b, .length = 1.0}).ok());
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = b, .b = c, .length = 1.0}).ok());
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = c, .b = a, .length = 3.0}).ok());
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = anchor, .b = a}).ok());
  const std::vector<BodyId> bodies{a, b, c};
  double first = 0.0;
  for (int i = 0; i < 60; ++i) {
    const StepDiagnostics& d = w.step();
    EXPECT_TRUE(d.projection_capped) << i;
    if (i == 0) first = d.max_error;
    EXPECT_LT(d.max_error, 1.01 * first) << i;
    EXPECT_LT(fastest(w, bodies), 1e-6) << i;
  }
  EXPECT_GT(first, 1.0);  // 3 m against the 2 m two rods of 1 m span at most
}
