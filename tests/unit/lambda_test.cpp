// What λ and the reaction forces mean, the same in every dynamics family:
// λ is the constraint's force (N) or torque (N·m) averaged over the step,
// and Jᵀλ is the force it applies (so a rod in tension, pulling its ends
// together, has λ < 0). The reactions are what the step did: with gravity,
// they account for every body's change of momentum over the step.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scenes.hpp"

using namespace linkage;

namespace {

struct Family {
  std::string name;
  WorldSettings settings;
};

std::vector<Family> families() {
  std::vector<Family> out;
  WorldSettings s;
  s.dynamics = Dynamics::force_based;
  s.integrator = Integrator::rk4;
  out.push_back({"force_based+rk4", s});
  s.integrator = Integrator::semi_implicit_euler;
  out.push_back({"force_based+semi_implicit_euler", s});
  s = {};
  s.dynamics = Dynamics::velocity_projection;
  out.push_back({"velocity_projection", s});
  s.project_positions = s.project_velocities = true;
  out.push_back({"velocity_projection+SHAKE/RATTLE", s});
  out.push_back({"exact", with_preset(Preset::exact)});
  s = {};
  s.dynamics = Dynamics::sequential_impulses;
  out.push_back({"sequential_impulses", s});
  s.project_positions = s.project_velocities = true;
  out.push_back({"sequential_impulses+SHAKE/RATTLE", s});
  return out;
}

constexpr double kG = 9.81;

// A 2 kg bob on a 1 m rod from a fixed pivot body, at rest: the rod holds
// the weight, pulling up on the bob and down on the pivot.
TEST(Lambda, AHangingMassPullsWithMinusItsWeight) {
  for (const Family& f : families()) {
    SCOPED_TRACE(f.name);
    World w = test::make_world(f.settings);
    const BodyId pivot = w.add_body({.motion = Motion::fixed}).value();
    const BodyId bob = w.add_body({.position = Vec3(0, -1, 0), .mass = 2.0}).value();
    const ConstraintId rod = w.add_constraint(DistanceDef{.a = pivot, .b = bob}).value();
    for (int i = 0; i < 30; ++i) w.step();
    const ConstraintInfo info = w.constraint(rod).value();
    EXPECT_NEAR(info.lambda[0], -2.0 * kG, 1e-6 * 2.0 * kG);
    EXPECT_NEAR(info.on_b.force.y(), 2.0 * kG, 1e-6 * 2.0 * kG);
    EXPECT_NEAR(info.on_b.force.x(), 0.0, 1e-9);
    EXPECT_NEAR(info.on_a.force.y(), -2.0 * kG, 1e-6 * 2.0 * kG);  // the fixed pivot is pulled down
  }
}

// The same bob balanced on top of the rod, exactly upright: the rod pushes.
TEST(Lambda, ARodInCompressionPushesWithPlusTheWeight) {
  for (const Family& f : families()) {
    SCOPED_TRACE(f.name);
    World w = test::make_world(f.settings);
    const BodyId bob = w.add_body({.position = Vec3(0, 1, 0), .mass = 2.0}).value();
    const ConstraintId rod = w.add_constraint(DistanceDef{.b = bob}).value();
    for (int i = 0; i < 10; ++i) w.step();
    EXPECT_NEAR(w.constraint(rod).value().lambda[0], 2.0 * kG, 1e-6 * 2.0 * kG);
  }
}

// A bead on a circular wire of radius R, no gravity, sent round at speed u:
// the wire holds it with the centripetal force m u² / R, pulling inwards.
// The wire's C is ½(|p − c|² − R²) (the seeds' bead), so Jᵀλ = (p − c) λ
// and λ = −m u² / R² (N/m). u is the bead's speed over the step (each
// family keeps it differently well); at 240 Hz a step turns it by 1.2°.
// Within 0.3 %: velocity projection without position projection lets the
// bead drift off the wire by about that much, and corrects it through λ.
// Semi-implicit Euler is left out: its bead leaves the wire step by step
// (first order), and its λ is the closed form at each step's start state,
// which bead_test checks.
TEST(Lambda, ABeadOnAWireIsHeldByTheCentripetalForce) {
  constexpr double kMass = 0.5, kRadius = 0.8, kSpeed = 4.0;
  for (const Family& f : families()) {
    if (f.settings.dynamics == Dynamics::force_based && f.settings.integrator == Integrator::semi_implicit_euler) continue;
    SCOPED_TRACE(f.name);
    WorldSettings s = f.settings;
    s.gravity = Vec3::Zero();
    s.dt = 1.0 / 240.0;
    World w = test::make_world(s);
    const BodyId bead = w.add_body({.position = Vec3(0, -kRadius, 0), .velocity = Vec3(kSpeed, 0, 0), .mass = kMass})
                            .value();
    const ConstraintId wire = w.add_constraint(PointOnCircleDef{.b = bead, .radius = kRadius}).value();
    for (int i = 0; i < 60; ++i) {
      const double before = w.body(bead).value().velocity.squaredNorm();
      w.step();
      const double u2 = 0.5 * (before + w.body(bead).value().velocity.squaredNorm());
      const double expected = -kMass * u2 / (kRadius * kRadius);
      if (i < 20) continue;  // velocity projection alone finds the force through the drift it corrects
      EXPECT_NEAR(w.constraint(wire).value().lambda[0], expected, 3e-3 * std::abs(expected)) << "step " << i;
    }
  }
}

// A swinging mechanism of particles and a rigid bar on rods and pins, one of
// them to a fixed body: after every step, each moving body's change of
// momentum (and of angular momentum about its centre) is gravity's and the
// reactions of the constraints on it, exactly; the fixed body's reactions
// are what the rods on it pull. Every share of the step (velocity solve,
// each projection iteration, RATTLE, relax sweeps) goes through the
// Jacobian it was solved with, so the balance is exact to rounding.
TEST(Lambda, ReactionsAccountForEveryBodysChangeOfMomentum) {
  for (const Family& f : families()) {
    SCOPED_TRACE(f.name);
    WorldSettings s = f.settings;
    if (s.dynamics == Dynamics::force_based) s.substeps = 8;  // explicit: small steps on a stiff mechanism
    World w = test::make_world(s);
    const BodyId pivot = w.add_body({.motion = Motion::fixed, .position = Vec3(0, 0, 0)}).value();
    const BodyId a = w.add_body({.position = Vec3(0.8, 0, 0), .velocity = Vec3(0, 1, 0), .mass = 1.0}).value();
    const BodyId bar = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.8, -0.5, 0), .angle = -1.2,
                                   .angular_velocity = 2.0, .mass = 2.0, .inertia = 0.1})
                           .value();
    const BodyId c = w.add_body({.position = Vec3(1.6, -0.9, 0), .mass = 0.5}).value();
    struct Joint {
      ConstraintId id;
      BodyId a, b;
    };
    const std::vector<Joint> all = {
        {w.add_constraint(DistanceDef{.a = pivot, .b = a}).value(), pivot, a},
        {w.add_constraint(PinDef{.a = a, .b = bar, .anchor_b = Vec3(-0.5 * std::sin(1.2), 0.5 * std::cos(1.2), 0)})
             .value(),
         a, bar},
        {w.add_constraint(DistanceDef{.a = bar, .b = c}).value(), bar, c},
    };
    constexpr double kTolerance = 1e-12;
    for (int i = 0; i < 40; ++i) {
      const BodyInfo a0 = w.body(a).value(), bar0 = w.body(bar).value(), c0 = w.body(c).value();
      w.step();
      const BodyInfo a1 = w.body(a).value(), bar1 = w.body(bar).value(), c1 = w.body(c).value();
      Vec3 on_a = Vec3::Zero(), on_bar = Vec3::Zero(), on_c = Vec3::Zero();
      double torque_bar = 0.0;
      for (const Joint& j : all) {
        const ConstraintInfo info = w.constraint(j.id).value();
        for (const auto& [body, r] : {std::pair{j.a, info.on_a}, std::pair{j.b, info.on_b}}) {
          if (body == a) on_a += r.force;
          if (body == c) on_c += r.force;
          if (body == bar) {
            on_bar += r.force;
            torque_bar += r.torque;
          }
        }
      }
      const Vec3 g = s.gravity;
      const double dt = s.dt;
      const double scale = 1.0 + on_a.norm() + on_bar.norm() + on_c.norm();
      EXPECT_LT((1.0 * (a1.velocity - a0.velocity) / dt - 1.0 * g - on_a).norm(), kTolerance * scale) << "step " << i;
      EXPECT_LT((2.0 * (bar1.velocity - bar0.velocity) / dt - 2.0 * g - on_bar).norm(), kTolerance * scale)
          << "step " << i;
      EXPECT_LT((0.5 * (c1.velocity - c0.velocity) / dt - 0.5 * g - on_c).norm(), kTolerance * scale) << "step " << i;
      EXPECT_LT(std::abs(0.1 * (bar1.angular_velocity - bar0.angular_velocity) / dt - torque_bar), kTolerance * scale)
          << "step " << i;
    }
  }
}

}  // namespace
