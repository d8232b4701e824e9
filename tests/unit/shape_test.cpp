// The shapes beyond disk, box and polygon: a capsule's mass and inertia
// against integration over its area; a 3D disk is a ball; segments and
// planes carry no mass and are checked; and each meets the others in
// contact: a box rests on a plane and a capsule on a segment at their
// surfaces, a ball leaves a tilted plane at e times its approach speed
// along the plane's normal, and the shapes survive encode and decode.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "linkage/linkage.hpp"
#include "linkage/snapshot.hpp"

using namespace linkage;

namespace {

WorldSettings contact_settings() {
  WorldSettings s;
  s.dynamics = Dynamics::sequential_impulses;
  s.solver = LinearSolver::gauss_seidel;
  s.integrator = Integrator::semi_implicit_euler;
  s.contacts = true;
  s.substeps = 4;
  return s;
}

BodyId plane(World& w, double angle = 0.0, double restitution = 0.0) {
  return w
      .add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .angle = angle, .shape = Plane{},
                 .material = {0.6, restitution}})
      .value();
}

}  // namespace

TEST(Shapes, ACapsulesMassAndInertiaAreItsAreasIntegrals) {
  const double r = 0.3, l = 0.7, density = 2.0;
  World w = World::create({}).value();
  const BodyInfo b =
      w.body(w.add_body({.kind = BodyKind::rigid, .density = density, .shape = Capsule{r, l}}).value()).value();
  // Midpoint rule over a fine grid of the capsule's bounding box.
  const int n = 2000;
  const double hx = 2.0 * (l + r) / n, hy = 2.0 * r / n;
  double mass = 0.0, inertia = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = -(l + r) + (i + 0.5) * hx, y = -r + (j + 0.5) * hy;
      const double dx = std::max(std::abs(x) - l, 0.0);
      if (dx * dx + y * y > r * r) continue;
      mass += density * hx * hy;
      inertia += density * hx * hy * (x * x + y * y);
    }
  EXPECT_NEAR(b.mass, mass, 2e-3 * mass);
  EXPECT_NEAR(b.inertia, inertia, 2e-3 * inertia);
  EXPECT_NEAR(b.mass, density * (4.0 * r * l + std::numbers::pi * r * r), 1e-12);
}

TEST(Shapes, A3DDiskIsABall) {
  WorldSettings s;
  s.dimension = 3;
  World w = World::create(s).value();
  const double r = 0.2, density = 3.0;
  const BodyInfo b = w.body(w.add_body({.density = density, .shape = Disk{r}}).value()).value();
  EXPECT_NEAR(b.mass, density * 4.0 / 3.0 * std::numbers::pi * r * r * r, 1e-15);
}

TEST(Shapes, SegmentsAndPlanesAreChecked) {
  World w = World::create({}).value();
  auto field_of = [&](BodyDef d) {
    Result<BodyId> r = w.add_body(d);
    return r ? std::string("ok") : r.error().field;
  };
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Capsule{0.0, 1.0}}), "shape.capsule.radius");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Capsule{0.1, -1.0}}), "shape.capsule.half_length");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Segment{Vec2(1, 1), Vec2(1, 1)}}),
            "shape.segment.b");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Segment{Vec2(NAN, 0), Vec2(1, 1)}}),
            "shape.segment.a");
  // No area, no mass: a dynamic segment needs both given.
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Segment{}}), "mass");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .mass = 1.0, .inertia = 0.1, .shape = Segment{}}), "ok");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Plane{}}), "motion");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Plane{Vec3::Zero()}}),
            "shape.plane.normal");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Plane{Vec3(0, 1, 1)}}),
            "shape.plane.normal");  // z in a 2D world
  // The largest numbers: a shape whose mass overflows is refused; a huge
  // normal is still a direction.
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Capsule{1e200, 1e200}}), "shape");
  EXPECT_EQ(field_of({.kind = BodyKind::rigid, .shape = Disk{1e200}}), "shape");
  const BodyId huge =
      w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Plane{Vec3(1e300, 1e300, 0)}}).value();
  EXPECT_NEAR(std::get<Plane>(w.body(huge).value().shape).normal.x(), std::sqrt(0.5), 1e-15);
  // A plane's normal is kept unit length.
  const BodyId p = w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Plane{Vec3(0, 3, 0)}}).value();
  EXPECT_EQ(std::get<Plane>(w.body(p).value().shape).normal, Vec3(0, 1, 0));

  WorldSettings s3;
  s3.dimension = 3;
  World w3 = World::create(s3).value();
  Result<BodyId> capsule = w3.add_body({.shape = Capsule{}});
  ASSERT_FALSE(capsule);
  EXPECT_EQ(capsule.error().field, "shape");
}

TEST(Shapes, ABoxRestsOnAPlane) {
  World w = World::create(contact_settings()).value();
  plane(w);
  const BodyId box =
      w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.3, 1.0, 0), .shape = Box{0.4, 0.25}}).value();
  for (int i = 0; i < 180; ++i) w.step();
  const BodyInfo b = w.body(box).value();
  EXPECT_NEAR(b.position.y(), 0.25, w.settings().contact_slop);
  EXPECT_NEAR(b.angle, 0.0, 1e-6);
  EXPECT_LT(b.velocity.norm(), 1e-6);
  ASSERT_EQ(w.contacts().size(), 2u);  // the bottom corners, the plane always first
  for (const ContactInfo& c : w.contacts()) {
    EXPECT_EQ(c.b, box);
    EXPECT_NEAR(c.normal.y(), 1.0, 1e-12);
    // Half the weight each, over the last substep.
    EXPECT_NEAR(c.normal_impulse, 0.5 * b.mass * 9.81 * w.settings().dt / w.settings().substeps, 1e-9);
  }
}

TEST(Shapes, ABallLeavesATiltedPlaneAtETimesItsApproachSpeed) {
  WorldSettings s = contact_settings();
  s.gravity = Vec3::Zero();
  const double angle = 0.4, e = 0.5;
  World w = World::create(s).value();
  plane(w, angle, e);
  const Vec3 n(-std::sin(angle), std::cos(angle), 0.0);
  const Vec3 t(std::cos(angle), std::sin(angle), 0.0);
  const BodyId ball = w.add_body({.kind = BodyKind::rigid, .position = 0.5 * n, .velocity = -2.0 * n + 1.0 * t,
                                  .mass = 1.0, .shape = Disk{0.1}, .material = {0.0, e}})
                          .value();
  for (int i = 0; i < 30; ++i) w.step();
  const BodyInfo b = w.body(ball).value();
  EXPECT_NEAR(b.velocity.dot(n), 2.0 * e, 1e-9);
  EXPECT_NEAR(b.velocity.dot(t), 1.0, 1e-9);  // frictionless: the tangent speed stays
}

TEST(Shapes, ACapsuleRestsOnASegmentAndRollsOffItsEnd) {
  World w = World::create(contact_settings()).value();
  w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Segment{Vec2(-2, 0), Vec2(2, 0)}}).value();
  const double r = 0.2;
  const BodyId resting =
      w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 0.5, 0), .shape = Capsule{r, 0.5}}).value();
  const BodyId off = w.add_body({.kind = BodyKind::rigid, .position = Vec3(2.3, 0.5, 0), .shape = Disk{0.1}}).value();
  for (int i = 0; i < 120; ++i) w.step();
  const BodyInfo c = w.body(resting).value();
  EXPECT_NEAR(c.position.y(), r, w.settings().contact_slop);
  EXPECT_NEAR(c.angle, 0.0, 1e-6);
  EXPECT_LT(w.body(off).value().position.y(), -1.0);  // past the segment's end, it falls
}

TEST(Shapes, NewShapesSurviveEncodeAndDecode) {
  World w = World::create(contact_settings()).value();
  w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .angle = 0.1, .shape = Plane{}}).value();
  w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .shape = Segment{Vec2(-1, 2), Vec2(1, 2.5)}}).value();
  w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 1, 0), .shape = Capsule{0.1, 0.3}}).value();
  for (int i = 0; i < 20; ++i) w.step();
  Result<WorldState> back = decode(encode(w.save()));
  ASSERT_TRUE(back) << back.error().message;
  World copy = World::create(contact_settings()).value();
  copy.restore(back.value());
  w.clear_caches();
  for (int i = 0; i < 20; ++i) {
    w.step();
    copy.step();
  }
  EXPECT_EQ(w.state_hash(), copy.state_hash());
}

// --- 3D: balls and planes ---

namespace {

WorldSettings ball_settings() {
  WorldSettings s = contact_settings();
  s.dimension = 3;
  return s;
}

BodyId ball(World& w, const Vec3& at, const Vec3& velocity, double r, Material material = {}) {
  return w.add_body({.position = at, .velocity = velocity, .mass = 1.0, .shape = Disk{r}, .material = material}).value();
}

}  // namespace

TEST(Balls, ABallLeavesAPlaneAtETimesItsApproachSpeedAndKeepsItsSlideWithoutFriction) {
  WorldSettings s = ball_settings();
  s.gravity = Vec3::Zero();
  const Vec3 n = Vec3(1, 2, 2).normalized();
  const Vec3 t = Vec3(2, -1, 0).normalized();  // across n
  for (const double e : {0.0, 0.5, 1.0}) {
    World w = World::create(s).value();
    w.add_body({.motion = Motion::fixed, .shape = Plane{n}, .material = {0.0, e}}).value();
    const BodyId b = ball(w, 0.5 * n, -3.0 * n + 0.7 * t, 0.1, {0.0, e});
    for (int i = 0; i < 30; ++i) w.step();
    const BodyInfo info = w.body(b).value();
    EXPECT_NEAR(info.velocity.dot(n), 3.0 * e, 1e-9) << "e = " << e;
    EXPECT_NEAR(info.velocity.dot(t), 0.7, 1e-9);
  }
}

TEST(Balls, ABallRestsOnTheGroundAndFrictionStopsItsSlide) {
  World w = World::create(ball_settings()).value();
  w.add_body({.motion = Motion::fixed, .shape = Plane{}, .material = {0.5, 0.0}}).value();
  const double r = 0.2, mu = 0.5;
  const BodyId b = ball(w, Vec3(0, r, 0), Vec3(1.0, 0, 0.5), r, {mu, 0.0});
  // A particle cannot roll: it slides, decelerating at μ g until it stops.
  const double speed = Vec3(1.0, 0, 0.5).norm(), stop = speed / (mu * 9.81);
  for (int i = 0; i < 120; ++i) w.step();
  const BodyInfo info = w.body(b).value();
  EXPECT_NEAR(info.position.y(), r, w.settings().contact_slop);
  EXPECT_LT(info.velocity.norm(), 1e-9);
  // It stopped where uniform deceleration along its first direction says.
  const double travelled = speed * stop / 2.0;
  EXPECT_NEAR(Vec3(info.position.x(), 0, info.position.z()).norm(), travelled, 0.02 * travelled);
  EXPECT_NEAR(info.position.z() / info.position.x(), 0.5, 1e-6);  // friction opposes the slide: no turn
}

TEST(Balls, AHeadOnCollisionExchangesMomentumAndAPileStaysApart) {
  WorldSettings s = ball_settings();
  s.gravity = Vec3::Zero();
  World w = World::create(s).value();
  const double r = 0.1;
  const BodyId a = ball(w, Vec3(-1, 0, 0), Vec3(2, 0, 0), r, {0.3, 1.0});
  const BodyId b = ball(w, Vec3(0, 0, 0), Vec3::Zero(), r, {0.3, 1.0});
  for (int i = 0; i < 60; ++i) w.step();
  // Equal masses, e = 1, head on: they swap velocities.
  EXPECT_NEAR(w.body(a).value().velocity.x(), 0.0, 1e-9);
  EXPECT_NEAR(w.body(b).value().velocity.x(), 2.0, 1e-9);

  // 200 balls dropped into a corner of three planes settle without passing
  // through each other or the walls.
  World pile = World::create(ball_settings()).value();
  for (const Vec3& n : {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()})
    pile.add_body({.motion = Motion::fixed, .shape = Plane{n}}).value();
  std::vector<BodyId> balls;
  for (int i = 0; i < 200; ++i)
    balls.push_back(ball(pile, Vec3(0.15 + 0.25 * (i % 5), 0.15 + 0.25 * (i / 25), 0.15 + 0.25 * ((i / 5) % 5)),
                         Vec3::Zero(), r));
  for (int i = 0; i < 240; ++i) pile.step();
  const double slop = pile.settings().contact_slop;
  for (std::size_t i = 0; i < balls.size(); ++i) {
    const Vec3 p = pile.body(balls[i]).value().position;
    EXPECT_GT(p.minCoeff(), r - 2.0 * slop) << "ball " << i << " through a wall";
    for (std::size_t j = i + 1; j < balls.size(); ++j)
      EXPECT_GT((pile.body(balls[j]).value().position - p).norm(), 2.0 * r - 2.0 * slop) << i << ", " << j;
  }
  // Saved and restored, it continues bit for bit.
  const WorldState saved = pile.save();
  World copy = World::create(ball_settings()).value();
  copy.restore(decode(encode(saved)).value());
  pile.clear_caches();
  for (int i = 0; i < 30; ++i) {
    pile.step();
    copy.step();
  }
  EXPECT_EQ(pile.state_hash(), copy.state_hash());
  EXPECT_FALSE(pile.contacts().empty());
}
