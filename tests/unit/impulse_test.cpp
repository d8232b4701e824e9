// The impulse family: global velocity projection, sequential impulses and
// SHAKE/RATTLE, against the same physics as the force-based method.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "linkage/scenes/build.hpp"
#include "linkage/scenes/measure.hpp"
#include "scenes.hpp"

using namespace linkage;

namespace {

struct Method {
  const char* name;
  Dynamics dynamics;
  bool shake;
};

const Method kMethods[] = {
    {"velocity_projection", Dynamics::velocity_projection, false},
    {"sequential_impulses", Dynamics::sequential_impulses, false},
    {"velocity_projection+SHAKE/RATTLE", Dynamics::velocity_projection, true},
    {"sequential_impulses+SHAKE/RATTLE", Dynamics::sequential_impulses, true},
};

WorldSettings with(const Method& m, WorldSettings s = {}) {
  s.dynamics = m.dynamics;
  s.project_positions = m.shake;
  s.project_velocities = m.shake;
  return s;
}

double period_of(WorldSettings s) {
  test::Pendulum p = test::pendulum(s);
  std::vector<double> t;
  double x_prev = 1.0, t_prev = 0.0;
  while (t.size() < 3) {
    p.world.step();
    const double x = p.world.body(p.bob).value().position.x();
    if (x_prev > 0.0 && x <= 0.0) t.push_back(t_prev + (p.world.time() - t_prev) * x_prev / (x_prev - x));
    x_prev = x;
    t_prev = p.world.time();
  }
  return t[2] - t[1];
}

}  // namespace

// A free system of unequal masses: any impulse applied without W, or with the
// wrong sign, shows up as a change of momentum at once. Rods push along the
// line between their anchors, so they are torque-free as a pair and angular
// momentum is conserved too; a pin is torque-free only while it holds, so
// with a pin the test asks linear momentum alone. Sequential impulses'
// position iterations move bodies without an impulse (Box2D's position
// solver), which keeps linear momentum but not angular momentum.
TEST(Impulse, EveryProjectionConservesMomentumForUnequalMasses) {
  for (const Method& m : kMethods) {
    WorldSettings s = with(m);
    s.gravity = Vec3::Zero();
    s.dt = 1e-2;
    World w = test::make_world(s);
    const BodyId a = w.add_body({.position = Vec3(0, 0, 0), .velocity = Vec3(1, 2, 0), .mass = 1.0}).value();
    const BodyId b = w.add_body({.position = Vec3(1, 0, 0), .velocity = Vec3(-3, 0.5, 0), .mass = 7.0}).value();
    const BodyId c = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5, 1, 0), .velocity = Vec3(0, -1, 0),
                                 .angular_velocity = 3.0, .mass = 0.3, .inertia = 0.05})
                         .value();
    w.add_constraint(DistanceDef{.a = a, .b = b}).value();
    w.add_constraint(DistanceDef{.a = b, .b = c, .anchor_b = Vec3(0.2, 0, 0)}).value();
    w.add_constraint(DistanceDef{.a = a, .b = c, .anchor_b = Vec3(-0.2, -0.1, 0)}).value();
    const StepDiagnostics d0 = w.diagnostics();
    for (int i = 0; i < 500; ++i) w.step();
    const StepDiagnostics& d = w.diagnostics();
    SCOPED_TRACE(m.name);
    EXPECT_LT((d.linear_momentum - d0.linear_momentum).norm(), 1e-9);
    if (m.dynamics != Dynamics::sequential_impulses || m.shake) {
      EXPECT_LT((d.angular_momentum - d0.angular_momentum).norm(), 1e-9);
    }
    EXPECT_GT(d0.angular_momentum.norm(), 1.0);
    EXPECT_LT(d.max_error, 0.05);

    const BodyId e = w.add_body({.position = Vec3(3, 3, 0), .velocity = Vec3(0, 4, 0), .mass = 0.2}).value();
    const Vec3 pa = w.body(c).value().position;
    w.add_constraint(PinDef{.a = c, .b = e, .anchor_a = Vec3::Zero(), .anchor_b = pa - Vec3(3, 3, 0)}).value();
    const Vec3 p0 = w.step().linear_momentum;  // diagnostics are measured by a step
    for (int i = 0; i < 500; ++i) w.step();
    EXPECT_LT((w.diagnostics().linear_momentum - p0).norm(), 1e-9);
  }
}

TEST(Impulse, PositionProjectionRemovesTheStretchOfAChain) {
  WorldSettings s = with(kMethods[0]);
  s.project_positions = true;
  s.projection_tolerance = 1e-10;
  World w = test::make_world(s);
  // Links of 0.1 m laid out 0.12 m apart: every rod is stretched by 20 %.
  BodyId prev{};
  for (int i = 1; i <= 50; ++i) {
    const BodyId p = w.add_body({.position = Vec3(0.12 * i, 0, 0), .mass = 1.0 + 0.1 * i}).value();
    w.add_constraint(DistanceDef{.a = prev, .b = p, .length = 0.1}).value();
    prev = p;
  }
  EXPECT_GT(w.diagnostics().max_error, 0.019);
  const StepDiagnostics& d = w.step();
  EXPECT_LT(d.max_error, 1e-10);
  EXPECT_GT(d.projection_iterations, 1);
}

TEST(Impulse, WarmStartingReducesIterationsOnARestingChain) {
  auto iterations = [](bool warm) {
    WorldSettings s = with(kMethods[0]);
    s.solver = LinearSolver::conjugate_gradient;
    s.solver_tolerance = 1e-8;
    s.warm_start = warm;
    World w = test::make_world(s);
    BodyId prev{};
    for (int i = 1; i <= 40; ++i) {  // hanging straight down, at rest
      const BodyId p = w.add_body({.position = Vec3(0, -0.1 * i, 0), .mass = 1.0}).value();
      w.add_constraint(DistanceDef{.a = prev, .b = p}).value();
      prev = p;
    }
    for (int i = 0; i < 60; ++i) w.step();
    int total = 0;
    for (int i = 0; i < 60; ++i) total += w.step().solver_iterations;
    return total;
  };
  const int cold = iterations(false), warm = iterations(true);
  EXPECT_LT(warm * 4, cold) << "warm " << warm << ", cold " << cold;
}

TEST(Impulse, WarmStartingLowersTheSequentialImpulsesResidual) {
  auto residual = [](bool warm) {
    WorldSettings s = with(kMethods[1]);
    s.velocity_iterations = 4;
    s.warm_start = warm;
    World w = test::make_world(s);
    BodyId prev{};
    for (int i = 1; i <= 40; ++i) {
      const BodyId p = w.add_body({.position = Vec3(0, -0.1 * i, 0), .mass = 1.0}).value();
      w.add_constraint(DistanceDef{.a = prev, .b = p}).value();
      prev = p;
    }
    double worst = 0.0;
    for (int i = 0; i < 120; ++i) worst = w.step().max_error;
    return worst;
  };
  EXPECT_LT(residual(true) * 10, residual(false));
}

TEST(Impulse, PendulumPeriodAgreesWithTheForceBasedMethod) {
  WorldSettings force;
  force.dt = 1e-3;
  const double reference = period_of(force);
  const double exact = 4.0 * std::sqrt(1.0 / 9.81) * std::comp_ellint_1(std::sin(std::numbers::pi / 4));
  EXPECT_NEAR(reference, exact, 1e-4 * exact);
  for (const Method& m : kMethods) {
    WorldSettings s = with(m);
    s.dt = 1e-3;
    // Sequential impulses' position iterations shorten the rod's drift by
    // moving the bob, not by an impulse: a little energy goes each step, and
    // a 90° pendulum's period falls with its amplitude.
    const double tolerance = m.dynamics == Dynamics::sequential_impulses && !m.shake ? 1e-2 : 1e-3;
    EXPECT_NEAR(period_of(s), reference, tolerance * reference) << m.name;
  }
}

TEST(Impulse, ShakeAndRattleKeepAPendulumsEnergyBounded) {
  WorldSettings s = with(kMethods[2]);
  s.dt = 1e-3;
  test::Pendulum p = test::pendulum(s);
  const double e0 = p.world.diagnostics().total_energy();
  double worst = 0.0, worst_error = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const StepDiagnostics& d = p.world.step();
    worst = std::max(worst, std::abs(d.total_energy() - e0));
    worst_error = std::max(worst_error, d.max_error);
  }
  EXPECT_LT(worst, 0.02);  // of mgL = 9.81 J, and no trend
  EXPECT_LT(worst_error, s.projection_tolerance);
}

TEST(Impulse, MotorsAndMaximumTorqueHoldInTheImpulseFamily) {
  for (const Method& m : kMethods) {
    WorldSettings s = with(m);
    World w = test::make_world(s);
    const BodyId wheel = w.add_body({.kind = BodyKind::rigid, .shape = Disk{0.5}}).value();
    w.add_constraint(PinDef{.b = wheel}).value();
    w.add_constraint(MotorDef{.b = wheel, .speed = 2.0}).value();
    for (int i = 0; i < 30; ++i) w.step();
    EXPECT_NEAR(w.body(wheel).value().angular_velocity, 2.0, 1e-9) << m.name;

    const BodyId bar = w.add_body({.kind = BodyKind::rigid, .position = Vec3(3.5, 0, 0), .mass = 5.0,
                                   .shape = Box{0.5, 0.05}})
                           .value();
    w.add_constraint(PinDef{.b = bar, .anchor_a = Vec3(3, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}).value();
    const ConstraintId weak = w.add_constraint(MotorDef{.b = bar, .speed = 0.0, .max_force = 10.0}).value();
    for (int i = 0; i < 30; ++i) w.step();
    EXPECT_LE(std::abs(w.constraint(weak).value().lambda[0]), 10.0 + 1e-9) << m.name;
    EXPECT_LT(w.body(bar).value().angular_velocity, -0.1) << m.name;
  }
}

// SHAKE's position correction goes into the velocities (Δq/h), which moves a
// motor off its speed unless RATTLE imposes the motor again.
TEST(Impulse, MotorHoldsItsSpeedUnderShakeAndRattle) {
  WorldSettings s = with(kMethods[2]);
  s.substeps = 4;
  World w = test::make_world(s);
  const BodyId crank = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.25, 0, 0), .shape = Box{0.25, 0.03}})
                           .value();
  const BodyId piston = w.add_body({.position = Vec3(1.25, 0, 0), .mass = 1.0}).value();
  w.add_constraint(PinDef{.b = crank, .anchor_b = Vec3(-0.25, 0, 0)}).value();
  w.add_constraint(DistanceDef{.a = crank, .b = piston, .anchor_a = Vec3(0.25, 0, 0)}).value();
  w.add_constraint(PointOnLineDef{.b = piston, .axis = Vec3::UnitX()}).value();
  w.add_constraint(MotorDef{.b = crank, .speed = std::numbers::pi}).value();
  w.update_body(crank, {.kind = BodyKind::rigid, .position = Vec3(0.25, 0, 0), .velocity = Vec3(0, 0.25 * std::numbers::pi, 0),
                        .angular_velocity = std::numbers::pi, .shape = Box{0.25, 0.03}})
      .value();
  double worst = 0.0;
  for (int i = 0; i < 120; ++i) {
    w.step();
    worst = std::max(worst, std::abs(w.body(crank).value().angular_velocity - std::numbers::pi));
  }
  EXPECT_LT(worst, 1e-8);  // the solves' regularization (1e-10 relative) is what is left
  EXPECT_LT(w.diagnostics().max_error, 1e-9);
}

// Box2D's caps: a body that would move farther than max_translation, or turn
// more than max_rotation, in one step has that velocity scaled down.
TEST(Impulse, SequentialImpulsesCapEachBodysMotionPerStep) {
  WorldSettings s = with(kMethods[1]);
  s.gravity = Vec3::Zero();
  World w = test::make_world(s);
  const BodyId fast = w.add_body({.velocity = Vec3(600, 800, 0), .mass = 1.0}).value();
  const BodyId spin = w.add_body({.kind = BodyKind::rigid, .position = Vec3(5, 0, 0), .angular_velocity = 1000.0,
                                  .shape = Disk{0.5}})
                          .value();
  w.step();
  EXPECT_NEAR(w.body(fast).value().position.norm(), s.max_translation, 1e-12);
  EXPECT_NEAR(w.body(fast).value().velocity.norm(), s.max_translation / s.dt, 1e-9);
  EXPECT_NEAR(w.body(spin).value().angle, s.max_rotation, 1e-12);
  EXPECT_NEAR(w.body(spin).value().angular_velocity, s.max_rotation / s.dt, 1e-9);
}

// Box2D's joint_grid, 30 × 30: 1,700 pins on 900 disks held by four fixed
// ones, a third of the rows redundant, which iterative impulses cannot hold
// exactly. The position iterations move bodies without adding energy and the
// caps bound every body's motion: the grid sags but stays whole, its energy
// never above where it started.
TEST(Impulse, SequentialImpulsesStayBoundedOnARedundantGrid) {
  const scenes::SceneSpec spec = scenes::joint_grid(30);
  WorldSettings s;
  s.dynamics = Dynamics::sequential_impulses;
  scenes::SceneWorld scene = scenes::build_world(spec, s).value();
  scenes::SceneState state;
  scenes::read_state(scene, state);
  const double e0 = scenes::total_energy(spec, state);
  double worst = 0.0, fastest = 0.0, highest = e0;
  for (int i = 0; i < 500; ++i) {
    scene.world.step();
    scenes::read_state(scene, state);
    worst = std::max(worst, scenes::worst_relative_error(spec, state));
    for (double omega : state.angular_velocity) fastest = std::max(fastest, std::abs(omega));
    highest = std::max(highest, scenes::total_energy(spec, state));
  }
  EXPECT_LT(worst, 0.5);  // of the 1 m spacing
  EXPECT_LE(fastest, s.max_rotation / spec.dt + 1e-9);
  EXPECT_LE(highest, e0 + 1e-3 * spec.energy_scale);
}
