// World::set_body_state: a body's state set apart from its model. It moves
// the body and nothing else (mass, shape, constraints' rows stay), it is
// checked like a BodyDef's state, and a refused state changes nothing.
#include <gtest/gtest.h>

#include "linkage/linkage.hpp"

using namespace linkage;

namespace {

struct Pendulum {
  World w;
  BodyId bob;
  ConstraintId rod;
};

Pendulum pendulum() {
  Pendulum p{World::create().value(), {}, {}};
  p.bob = p.w.add_body({.kind = BodyKind::rigid, .position = Vec3(1, 0, 0), .mass = 2.0, .shape = Box{0.1, 0.2}}).value();
  p.rod = p.w.add_constraint(DistanceDef{.b = p.bob}).value();
  return p;
}

}  // namespace

TEST(BodyState, MovesTheBodyAndKeepsItsModel) {
  Pendulum p = pendulum();
  p.w.step();
  const BodyInfo before = p.w.body(p.bob).value();
  const BodyState moved{Vec3(0, -1, 0), 0.3, Vec3(0.5, 0, 0), -2.0};
  ASSERT_TRUE(p.w.set_body_state(p.bob, moved).ok());
  const BodyInfo after = p.w.body(p.bob).value();
  EXPECT_EQ(after.position, moved.position);
  EXPECT_EQ(after.angle, moved.angle);
  EXPECT_EQ(after.velocity, moved.velocity);
  EXPECT_EQ(after.angular_velocity, moved.angular_velocity);
  EXPECT_EQ(after.mass, before.mass);
  EXPECT_EQ(after.inertia, before.inertia);
  EXPECT_EQ(std::get<Box>(after.shape).half_height, 0.2);
  // The rod's length is the model's: still 1 m, so the new state satisfies it.
  EXPECT_NEAR(p.w.constraint(p.rod).value().error[0], 0.0, 1e-15);
}

TEST(BodyState, TheNextStepStartsFromIt) {
  Pendulum a = pendulum(), b = pendulum();
  const BodyState start{Vec3(0, -1, 0), 0.0, Vec3(1, 0, 0), 0.0};
  ASSERT_TRUE(a.w.set_body_state(a.bob, start).ok());
  // The same state through the whole def: the same run, bit for bit.
  BodyDef def{.kind = BodyKind::rigid, .position = start.position, .velocity = start.velocity, .mass = 2.0,
              .shape = Box{0.1, 0.2}};
  ASSERT_TRUE(b.w.update_body(b.bob, def).ok());
  for (int i = 0; i < 20; ++i) {
    a.w.step();
    b.w.step();
  }
  EXPECT_EQ(a.w.state_hash(), b.w.state_hash());
}

TEST(BodyState, BadStatesAreRefusedAndChangeNothing) {
  Pendulum p = pendulum();
  BodyId particle = p.w.add_body({.position = Vec3(2, 0, 0), .mass = 1.0}).value();
  BodyId anchor = p.w.add_body({.motion = Motion::fixed, .position = Vec3(3, 0, 0)}).value();
  const std::uint64_t hash = p.w.state_hash();
  struct Case {
    BodyId body;
    BodyState state;
    ErrorCode code;
    const char* message;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {BodyId{}, {}, ErrorCode::invalid_argument, "id: must name a body"},
      {BodyId{99, 1}, {}, ErrorCode::not_found, "id: "},
      {p.bob, {Vec3(nan, 0, 0)}, ErrorCode::invalid_argument, "position: must be finite"},
      {p.bob, {Vec3(0, 0, 1)}, ErrorCode::invalid_argument, "position: z must be 0 in a 2D world"},
      {p.bob, {.velocity = Vec3(0, 0, 1)}, ErrorCode::invalid_argument, "velocity: z must be 0"},
      {p.bob, {.angle = nan}, ErrorCode::invalid_argument, "angle: must be finite"},
      {particle, {.angular_velocity = 1.0}, ErrorCode::invalid_argument, "a particle has no angle"},
      {anchor, {.velocity = Vec3(1, 0, 0)}, ErrorCode::invalid_argument, "a fixed body cannot move"},
  };
  for (const Case& c : cases) {
    const Status s = p.w.set_body_state(c.body, c.state);
    ASSERT_FALSE(s.ok()) << c.message;
    EXPECT_EQ(s.error().code, c.code) << c.message;
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << s.error().message;
    EXPECT_EQ(p.w.state_hash(), hash) << c.message;
  }
}

TEST(BodyState, ASavedStateKeepsItsOwnState) {
  Pendulum p = pendulum();
  const WorldState saved = p.w.save();
  ASSERT_TRUE(p.w.set_body_state(p.bob, {Vec3(0, 1, 0)}).ok());
  p.w.restore(saved);
  EXPECT_EQ(p.w.body(p.bob).value().position, Vec3(1, 0, 0));
}
