// Mechanisms against their kinematics: a rack's travel per pinion turn, a
// motor's speed, and a motor that runs out of torque.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "scenes.hpp"

using namespace linkage;

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

WorldSettings fine() {
  WorldSettings s;
  s.dt = 1e-3;
  s.integrator = Integrator::rk4;
  return s;
}

}  // namespace

TEST(RackAndPinion, TravelPerTurnIsTwoPiR) {
  for (double r : {0.25, 1.0, 2.5}) {
    World w = test::make_world(fine());
    // The pinion turns on a fixed axle; the rack slides along x without turning.
    const BodyId pinion = w.add_body({.kind = BodyKind::rigid, .shape = Disk{r}}).value();
    const BodyId rack =
        w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, -r - 0.1, 0), .shape = Box{3.0, 0.1}}).value();
    w.add_constraint(PinDef{.b = pinion}).value();
    w.add_constraint(PointOnLineDef{.b = rack, .anchor_a = Vec3(0, -r - 0.1, 0), .axis = Vec3::UnitX()}).value();
    w.add_constraint(RelativeAngleDef{.b = rack}).value();
    w.add_constraint(RackAndPinionDef{.rack = rack, .pinion = pinion, .radius = r}).value();
    w.add_constraint(MotorDef{.b = pinion, .speed = kTwoPi}).value();  // one turn per second

    const double x0 = w.body(rack).value().position.x();
    const double theta0 = w.body(pinion).value().angle;
    while (w.time() < 2.0 - 1e-9) w.step();
    const double travel = w.body(rack).value().position.x() - x0;
    const double turns = (w.body(pinion).value().angle - theta0) / kTwoPi;
    EXPECT_GT(turns, 1.5);
    EXPECT_NEAR(travel / turns, kTwoPi * r, 1e-9) << "r = " << r;
  }
}

TEST(Motor, ReachesAndHoldsItsSpeedAgainstGravity) {
  World w = test::make_world(fine());
  // A bar pinned at one end: gravity's torque on it changes as it turns.
  const BodyId bar =
      w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5, 0, 0), .density = 5.0, .shape = Box{0.5, 0.05}})
          .value();
  w.add_constraint(PinDef{.b = bar, .anchor_b = Vec3(-0.5, 0, 0)}).value();
  const double speed = 3.0;
  const ConstraintId motor = w.add_constraint(MotorDef{.b = bar, .speed = speed}).value();
  while (w.time() < 0.5) w.step();
  double worst = 0.0;
  while (w.time() < 3.0) {
    w.step();
    worst = std::max(worst, std::abs(w.body(bar).value().angular_velocity - speed));
  }
  EXPECT_LT(worst, 1e-9);
  // It works for it: the torque it applies changes sign as the bar goes round.
  EXPECT_NE(w.constraint(motor).value().on_b.torque, 0.0);
}

TEST(Motor, LinearMotorDrivesASlider) {
  World w = test::make_world(fine());
  const BodyId cart = w.add_body({.position = Vec3(0, 1, 0), .mass = 2.0}).value();
  w.add_constraint(PointOnLineDef{.b = cart, .anchor_a = Vec3(0, 1, 0), .axis = Vec3(1, 0, 0)}).value();
  w.add_constraint(MotorDef{.b = cart, .kind = MotorKind::linear, .speed = 0.75, .axis = Vec3(1, 0, 0)}).value();
  while (w.time() < 1.0) w.step();
  EXPECT_NEAR(w.body(cart).value().velocity.x(), 0.75, 1e-9);
  EXPECT_NEAR(w.body(cart).value().velocity.y(), 0.0, 1e-9);
}

TEST(Motor, MaximumTorqueIsNeverExceeded) {
  for (LinearSolver solver : {LinearSolver::ldlt, LinearSolver::conjugate_gradient, LinearSolver::gauss_seidel}) {
    WorldSettings s = fine();
    s.solver = solver;
    s.solver_tolerance = 1e-12;
    s.solver_max_iterations = 2000;
    World w = test::make_world(s);
    // A heavy bar held horizontal needs m g L/2 ≈ 24.5 N·m; the motor has 10.
    const BodyId bar = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5, 0, 0), .mass = 5.0,
                                   .shape = Box{0.5, 0.05}})
                           .value();
    w.add_constraint(PinDef{.b = bar, .anchor_b = Vec3(-0.5, 0, 0)}).value();
    const ConstraintId motor = w.add_constraint(MotorDef{.b = bar, .speed = 0.0, .max_force = 10.0}).value();
    w.step();
    const ConstraintInfo info = w.constraint(motor).value();
    SCOPED_TRACE(solver_name(solver));
    EXPECT_NEAR(std::abs(info.lambda[0]), 10.0, 1e-9);  // saturated at its limit
    for (int i = 0; i < 100; ++i) w.step();
    EXPECT_LT(w.body(bar).value().angular_velocity, -0.1);  // the bar falls despite the motor
    EXPECT_LE(std::abs(w.constraint(motor).value().lambda[0]), 10.0 + 1e-9);
  }
}

TEST(Gear, RadiiSetTheSpeedRatioAndTheSense) {
  World w = test::make_world(fine());
  const BodyId a = w.add_body({.kind = BodyKind::rigid, .shape = Disk{1.0}}).value();
  const BodyId b = w.add_body({.kind = BodyKind::rigid, .position = Vec3(3, 0, 0), .shape = Disk{0.5}}).value();
  w.add_constraint(PinDef{.b = a}).value();
  w.add_constraint(PinDef{.b = b, .anchor_a = Vec3(3, 0, 0)}).value();
  w.add_constraint(GearDef{.a = a, .b = b, .radius_a = 1.0, .radius_b = 0.5}).value();
  w.add_constraint(MotorDef{.b = a, .speed = 1.0}).value();
  while (w.time() < 1.0) w.step();
  EXPECT_NEAR(w.body(b).value().angular_velocity, -2.0, 1e-9);
}

TEST(Trajectory, AnchorFollowsACircle) {
  World w = test::make_world(fine());
  const BodyId p = w.add_body({.position = Vec3(1, 0, 0), .mass = 1.0}).value();
  // x = cos(2π t), y = sin(2π t): amplitude 1, 1 Hz, phases π/2 and 0.
  const Path circle{.amplitude = Vec3(1, 1, 0), .frequency = Vec3(1, 1, 0), .phase = Vec3(std::numbers::pi / 2, 0, 0)};
  w.add_constraint(TrajectoryDef{.body = p, .path = circle}).value();
  w.update_body(p, {.position = Vec3(1, 0, 0), .velocity = Vec3(0, kTwoPi, 0), .mass = 1.0}).value();
  double worst = 0.0;
  while (w.time() < 1.25) worst = std::max(worst, w.step().max_error);
  EXPECT_LT(worst, 1e-8);
  const Vec3 x = w.body(p).value().position;
  EXPECT_NEAR(x.x(), std::cos(kTwoPi * w.time()), 1e-8);
  EXPECT_NEAR(x.y(), std::sin(kTwoPi * w.time()), 1e-8);
}

TEST(ConstraintInfo, ExposesJacobianBlocksAndJdotQdot) {
  World w = test::make_world();
  const BodyId bar = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5, 0, 0), .angular_velocity = 2.0,
                                 .shape = Box{0.5, 0.05}})
                         .value();
  const ConstraintId pin = w.add_constraint(PinDef{.b = bar, .anchor_b = Vec3(-0.5, 0, 0)}).value();
  const ConstraintInfo info = w.constraint(pin).value();
  ASSERT_EQ(info.rows, 2);
  EXPECT_TRUE(info.jacobian_a.empty());  // the world has no DOF
  // p = x + R(θ) r with r = (−0.5, 0) at θ = 0: ∂p/∂(x, y, θ) = [I | (0, −0.5)].
  const std::vector<double> expected{1, 0, 0, 0, 1, -0.5};
  EXPECT_EQ(info.jacobian_b, expected);
  // J̇q̇ = −ω² R r = −4 (−0.5, 0) = (2, 0).
  EXPECT_DOUBLE_EQ(info.jdot_qdot[0], 2.0);
  EXPECT_DOUBLE_EQ(info.jdot_qdot[1], 0.0);
}

TEST(Impulses, ChangeMomentumByTheImpulseAndSpinByItsMoment) {
  WorldSettings s;
  s.gravity = Vec3::Zero();
  World w = test::make_world(s);
  const BodyId disk = w.add_body({.kind = BodyKind::rigid, .mass = 2.0, .inertia = 0.5, .shape = Disk{0.5}}).value();
  // 1 N·s at the rim, straight up: Δv = P/m, Δω = (r × P)/I.
  ASSERT_TRUE(w.apply_impulse({.body = disk, .impulse = Vec3(0, 1, 0), .point = Vec3(0.5, 0, 0)}).ok());
  EXPECT_NEAR(w.body(disk).value().velocity.y(), 0.5, 1e-15);
  EXPECT_NEAR(w.body(disk).value().angular_velocity, 1.0, 1e-15);
  const BodyId p = w.add_body({.mass = 1.0}).value();
  EXPECT_EQ(w.apply_impulse({.body = p, .angular_impulse = 1.0}).error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(w.apply_impulse({.body = BodyId{77, 1}}).error().code, ErrorCode::not_found);
}

TEST(AppliedForces, LastTheirNumberOfSteps) {
  WorldSettings s;
  s.gravity = Vec3::Zero();
  s.integrator = Integrator::semi_implicit_euler;
  s.dt = 0.5;
  World w = test::make_world(s);
  const BodyId p = w.add_body({.mass = 1.0}).value();
  const ForceId f = w.apply_force({.body = p, .force = Vec3(1, 0, 0), .steps = 3}).value();
  for (int i = 0; i < 2; ++i) w.step();
  EXPECT_TRUE(w.contains(f));
  w.step();
  EXPECT_FALSE(w.contains(f));
  w.step();
  EXPECT_NEAR(w.body(p).value().velocity.x(), 1.5, 1e-15);  // 3 steps × 0.5 s × 1 N / 1 kg
}
