// The bead on a wire: λ from the solver against the seeds' closed form
// λ = (−f·x − m ẋ·ẋ)/(x·x) for C = ½(x·x − R²) with the centre at the origin.
#include <gtest/gtest.h>

#include <random>

#include "scenes.hpp"

using namespace linkage;

TEST(Bead, LambdaMatchesClosedFormAtRandomStates) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    WorldSettings s;
    s.integrator = Integrator::explicit_euler;  // one evaluation: λ is at the start state
    s.feedback_stiffness = 0.0;
    s.feedback_damping = 0.0;
    s.regularization = 0.0;  // a 1×1 positive K needs none, and the closed form has none
    s.solver = static_cast<LinearSolver>(trial % 3);
    s.gravity = Vec3(u(rng), u(rng), 0.0);
    World w = World::create(s).value();
    const double m = 0.5 + std::abs(u(rng));
    Vec3 x(u(rng), u(rng), 0.0);
    if (x.norm() < 0.2) x += Vec3(0.5, 0.0, 0.0);  // off the circle is fine, the centre is not
    const Vec3 xdot(u(rng), u(rng), 0.0);
    const Vec3 push(u(rng), u(rng), 0.0);
    const BodyId bead = w.add_body({.position = x, .velocity = xdot, .mass = m}).value();
    const ConstraintId wire = w.add_constraint(PointOnCircleDef{.b = bead, .radius = 1.0}).value();
    w.apply_force({.body = bead, .force = push}).value();
    w.step();

    const Vec3 f = m * s.gravity + push;
    const double expected = (-f.dot(x) - m * xdot.dot(xdot)) / x.dot(x);
    const double lambda = w.constraint(wire).value().lambda[0];
    EXPECT_NEAR(lambda, expected, 1e-10 * std::abs(expected)) << "trial " << trial;
  }
}

TEST(Bead, StaysOnTheWireWithFeedback) {
  WorldSettings s;
  s.dt = 1e-3;
  World w = World::create(s).value();
  const BodyId bead = w.add_body({.position = Vec3(0.6, 0.8, 0), .velocity = Vec3(-2.4, 1.8, 0), .mass = 1}).value();
  w.add_constraint(PointOnCircleDef{.b = bead}).value();
  double worst = 0.0;
  for (int i = 0; i < 5000; ++i) worst = std::max(worst, w.step().max_error);
  EXPECT_LT(worst, 1e-8);
  EXPECT_NEAR(w.body(bead).value().position.norm(), 1.0, 1e-8);
}
