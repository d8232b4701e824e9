// A step that begins off its constraints is first moved onto them,
// positions alone (settle_onto_constraints): the correction is not the
// step's motion, and as a velocity (Δq/h) it launched bodies from rest.
#include <gtest/gtest.h>

#include "scenes.hpp"

using namespace linkage;

namespace {

WorldSettings exact_without_gravity(bool contacts) {
  WorldSettings s = with_preset(Preset::exact);
  s.gravity = Vec3::Zero();
  s.contacts = contacts;
  return s;
}

}  // namespace

// Two disks of 0.5 m made half overlapping: the first step pushes them
// apart and they stay where it put them. They flew apart at 15 m/s each
// (177 J from nothing); sequential impulses push them apart over a few
// steps at no speed at all.
TEST(Settle, DisksMadeOverlappingPartWithoutSpeed) {
  World w = test::make_world(exact_without_gravity(true));
  const BodyId a = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 0, 0), .shape = Disk{0.5}}).value();
  const BodyId b = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5, 0, 0), .shape = Disk{0.5}}).value();
  for (int i = 0; i < 3; ++i) {
    const StepDiagnostics& d = w.step();
    EXPECT_EQ(d.kinetic_energy, 0.0) << i;
    EXPECT_FALSE(d.projection_capped) << i;
    const double gap = (w.body(b).value().position - w.body(a).value().position).norm();
    EXPECT_GT(gap, 1.0 - 1e-9) << i;
  }
}

// A pendulum of two rods built with lengths its bodies do not have (1.3 m
// from the anchor where the bob is 1 m away, 0.5 m where the second is
// 0.71 m away): the first step puts the rods at their lengths, and nothing
// moves after. The bodies left it at 0.12 and 0.15 m/s.
TEST(Settle, AMechanismBuiltOffItsLengthsStaysAtRest) {
  World w = test::make_world(exact_without_gravity(false));
  const BodyId anchor = w.add_body({.motion = Motion::fixed, .position = Vec3(0, 3, 0)}).value();
  const BodyId p = w.add_body({.position = Vec3(1, 3, 0), .mass = 1.0}).value();
  const BodyId q = w.add_body({.position = Vec3(1.5, 3.5, 0), .mass = 2.0}).value();
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = anchor, .b = p, .length = 1.3}).ok());
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = p, .b = q, .length = 0.5}).ok());
  const Vec3 settled = [&] {
    const StepDiagnostics& d = w.step();
    EXPECT_LT(d.max_error, w.settings().projection_tolerance);
    EXPECT_EQ(d.kinetic_energy, 0.0);
    return w.body(q).value().position;
  }();
  EXPECT_NEAR((w.body(p).value().position - Vec3(0, 3, 0)).norm(), 1.3, 1e-9);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(w.step().kinetic_energy, 0.0) << i;
  EXPECT_EQ(w.body(q).value().position, settled);
}

// A body a client moves while the world runs (a swinging double
// pendulum's lower bob set 0.3 m off its rod, sideways): the next step puts
// it back on its rod and the swing goes on with the kinetic energy it had
// (14.66 J of 14.79); the correction's velocity took a quarter of it
// (10.93 J left).
TEST(Settle, ABodyMovedOffItsRodKeepsItsSwing) {
  const WorldSettings s = with_preset(Preset::exact);
  World w = test::make_world(s);
  const BodyId upper = w.add_body({.position = Vec3(1, 0, 0), .mass = 1.0}).value();
  const BodyId lower = w.add_body({.position = Vec3(1, -1, 0), .mass = 1.0}).value();
  ASSERT_TRUE(w.add_constraint(DistanceDef{.b = upper}).ok());
  ASSERT_TRUE(w.add_constraint(DistanceDef{.a = upper, .b = lower}).ok());
  for (int i = 0; i < 30; ++i) w.step();
  const double before = w.diagnostics().kinetic_energy;
  const BodyInfo now = w.body(lower).value();
  ASSERT_TRUE(w.set_body_state(lower, {.position = now.position + Vec3(0.3, 0, 0), .velocity = now.velocity}).ok());
  const StepDiagnostics& d = w.step();
  EXPECT_LT(d.max_error, s.projection_tolerance);
  EXPECT_NEAR(d.kinetic_energy, before, 0.05 * before);
}
