// Soft constraints: a hard constraint turned into a damped spring in its own
// coordinate, with stiffness m ω² (m the effective mass), in both families.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "scenes.hpp"

using namespace linkage;

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

WorldSettings family(Dynamics d) {
  WorldSettings s;
  s.dt = 1e-3;
  s.dynamics = d;
  return s;
}

}  // namespace

// At rest the spring carries the weight: m g = m ω² C, so C = g/ω² whatever
// the mass, and both discretizations share that equilibrium exactly.
TEST(Soft, HangingMassSagsByGOverOmegaSquared) {
  for (Dynamics d : {Dynamics::force_based, Dynamics::velocity_projection, Dynamics::sequential_impulses}) {
    for (double mass : {0.5, 4.0}) {
      World w = test::make_world(family(d));
      const BodyId bob = w.add_body({.position = Vec3(0, -1, 0), .mass = mass}).value();
      const double f = 3.0;
      const ConstraintId rod = w.add_constraint(DistanceDef{.b = bob, .length = 1.0}, {.frequency = f}).value();
      while (w.time() < 5.0) w.step();
      const double omega = kTwoPi * f;
      SCOPED_TRACE(dynamics_name(d));
      EXPECT_NEAR(-w.body(bob).value().position.y() - 1.0, 9.81 / (omega * omega), 1e-6);
      EXPECT_NEAR(w.constraint(rod).value().softness.frequency, f, 0.0);
    }
  }
}

TEST(Soft, UndampedForceBasedSpringRingsAtItsFrequency) {
  WorldSettings s = family(Dynamics::force_based);
  s.gravity = Vec3::Zero();
  World w = test::make_world(s);
  const BodyId bob = w.add_body({.position = Vec3(1.01, 0, 0), .mass = 2.0}).value();
  w.add_constraint(DistanceDef{.b = bob, .length = 1.0}, {.frequency = 2.0, .damping_ratio = 0.0}).value();
  std::vector<double> crossings;
  double x_prev = w.body(bob).value().position.x() - 1.0, t_prev = 0.0;
  while (w.time() < 2.0) {
    w.step();
    const double x = w.body(bob).value().position.x() - 1.0;
    if (x_prev > 0.0 && x <= 0.0) crossings.push_back(t_prev + (w.time() - t_prev) * x_prev / (x_prev - x));
    x_prev = x;
    t_prev = w.time();
  }
  ASSERT_GE(crossings.size(), 3u);
  EXPECT_NEAR(crossings[2] - crossings[1], 0.5, 1e-4);
}

// Implicitly integrated, a soft constraint far stiffer than the step can
// resolve stays stable and acts as (nearly) rigid; as an explicit force it would explode.
TEST(Soft, ImpulseFamilyIsStableAboveTheStepRate) {
  for (Dynamics d : {Dynamics::velocity_projection, Dynamics::sequential_impulses}) {
    WorldSettings s;
    s.dynamics = d;  // dt = 1/60 s
    test::Pendulum p = test::pendulum(s);
    p.world.set_softness(p.rod, {.frequency = 500.0, .damping_ratio = 0.1}).value();
    double worst = 0.0;
    for (int i = 0; i < 600; ++i) worst = std::max(worst, p.world.step().max_error);
    EXPECT_TRUE(std::isfinite(worst)) << dynamics_name(d);
    EXPECT_LT(worst, 0.05) << dynamics_name(d);
  }
}

TEST(Soft, BadSoftnessIsRejected) {
  World w = test::make_world();
  const BodyId wheel = w.add_body({.kind = BodyKind::rigid, .shape = Disk{0.5}}).value();
  const ConstraintId pin = w.add_constraint(PinDef{.b = wheel}).value();
  EXPECT_EQ(w.set_softness(pin, {.frequency = -1.0}).error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(w.set_softness(pin, {.frequency = 1.0, .damping_ratio = NAN}).error().code, ErrorCode::invalid_argument);
  const Result<ConstraintId> motor = w.add_constraint(MotorDef{.b = wheel, .speed = 1.0}, {.frequency = 5.0});
  ASSERT_FALSE(motor.ok());
  EXPECT_NE(motor.error().message.find("softness"), std::string::npos);
  EXPECT_EQ(w.constraints().size(), 1u);
  EXPECT_EQ(w.set_softness(ConstraintId{99, 1}, {}).error().code, ErrorCode::not_found);
}

TEST(Soft, ProjectionLeavesSoftRowsToStretch) {
  WorldSettings s = family(Dynamics::velocity_projection);
  s.project_positions = s.project_velocities = true;
  World w = test::make_world(s);
  const BodyId bob = w.add_body({.position = Vec3(0, -1, 0), .mass = 1.0}).value();
  w.add_constraint(DistanceDef{.b = bob, .length = 1.0}, {.frequency = 3.0}).value();
  while (w.time() < 5.0) w.step();
  const double omega = kTwoPi * 3.0;
  EXPECT_NEAR(-w.body(bob).value().position.y() - 1.0, 9.81 / (omega * omega), 1e-6);
}
