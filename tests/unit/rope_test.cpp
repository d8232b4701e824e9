// The rope, a one-sided constraint |p_b − p_a| ≤ L: slack it does nothing,
// taut it holds like a rod, and it never pushes.
#include <gtest/gtest.h>

#include <cmath>

#include "scenes.hpp"

using namespace linkage;

namespace {

struct Family {
  const char* name;
  Dynamics dynamics;
  bool shake;
};

const Family kFamilies[] = {
    {"force_based", Dynamics::force_based, false},
    {"velocity_projection", Dynamics::velocity_projection, false},
    {"sequential_impulses", Dynamics::sequential_impulses, false},
    {"velocity_projection+SHAKE/RATTLE", Dynamics::velocity_projection, true},
};

WorldSettings settings(const Family& f) {
  WorldSettings s;
  s.dt = 1e-3;
  s.dynamics = f.dynamics;
  s.project_positions = f.shake;
  s.project_velocities = f.shake;
  return s;
}

}  // namespace

TEST(Rope, SlackRopeLetsTheBodyFallFreely) {
  for (const Family& f : kFamilies) {
    World w = test::make_world(settings(f));
    const BodyId bob = w.add_body({.position = Vec3(0, -0.5, 0), .mass = 2.0}).value();
    const BodyId free = w.add_body({.position = Vec3(5, -0.5, 0), .mass = 2.0}).value();  // no rope at all
    const ConstraintId rope = w.add_constraint(RopeDef{.b = bob, .max_length = 1.0}).value();
    for (int i = 0; i < 200; ++i) w.step();  // 0.2 s: falls 0.196 m, still slack
    EXPECT_EQ(w.body(bob).value().position.y(), w.body(free).value().position.y()) << f.name;
    EXPECT_EQ(w.body(bob).value().velocity.y(), w.body(free).value().velocity.y()) << f.name;
    EXPECT_EQ(w.constraint(rope).value().lambda[0], 0.0) << f.name;
    EXPECT_EQ(w.diagnostics().max_error, 0.0) << f.name;
  }
}

TEST(Rope, TautRopeHoldsLikeARodAndOnlyPulls) {
  for (const Family& f : kFamilies) {
    World w = test::make_world(settings(f));
    const BodyId bob = w.add_body({.position = Vec3(0, -0.9, 0), .mass = 2.0}).value();
    const ConstraintId rope = w.add_constraint(RopeDef{.b = bob, .max_length = 1.0}).value();
    double worst_stretch = 0.0, largest_lambda = -1.0;
    for (int i = 0; i < 2000; ++i) {
      w.step();
      worst_stretch = std::max(worst_stretch, w.body(bob).value().position.norm() - 1.0);
      largest_lambda = std::max(largest_lambda, w.constraint(rope).value().lambda[0]);
    }
    SCOPED_TRACE(f.name);
    // It fell 0.1 m onto the rope and now hangs from it (the catch is inelastic).
    EXPECT_LT(worst_stretch, 2e-3);
    EXPECT_NEAR(w.body(bob).value().position.y(), -1.0, 2e-3);
    EXPECT_NEAR(w.constraint(rope).value().lambda[0], -2.0 * 9.81, 0.05);  // holds the weight
    EXPECT_LE(largest_lambda, 1e-9);  // never pushes
  }
}

TEST(Rope, ABodyThrownInwardIsNotHeldBack) {
  for (const Family& f : kFamilies) {
    WorldSettings s = settings(f);
    s.gravity = Vec3::Zero();
    World w = test::make_world(s);
    // Taut, moving toward the anchor: a rod would stop it, a rope lets it go.
    const BodyId bob = w.add_body({.position = Vec3(1, 0, 0), .velocity = Vec3(-1, 0, 0), .mass = 1.0}).value();
    w.add_constraint(RopeDef{.b = bob, .max_length = 1.0}).value();
    for (int i = 0; i < 500; ++i) w.step();
    EXPECT_NEAR(w.body(bob).value().position.x(), 0.5, 1e-9) << f.name;
    EXPECT_NEAR(w.body(bob).value().velocity.x(), -1.0, 1e-9) << f.name;
  }
}
