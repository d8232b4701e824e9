// Bad input is rejected with the right ErrorCode and a message naming the
// field, and a rejected call changes nothing: the state hash, the id listings
// and the topology version are the same before and after.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "linkage/linkage.hpp"

using namespace linkage;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::failed_precondition: return "failed_precondition";
    case ErrorCode::resource_exhausted: return "resource_exhausted";
  }
  return "?";
}

// Everything a rejected call must leave as it was.
struct Snapshot {
  std::uint64_t hash = 0;
  std::vector<BodyId> bodies;
  std::vector<ConstraintId> constraints;
  std::vector<ForceId> forces;
  std::uint64_t topology = 0;
  std::vector<double> masses;  // mass and inertia of every body, in order
  int dimension = 0;
  double dt = 0.0;

  static Snapshot of(const World& w) {
    Snapshot s{w.state_hash(), w.bodies(), w.constraints(), w.forces(), w.topology_version(), {},
               w.settings().dimension, w.settings().dt};
    for (BodyId id : s.bodies) {
      const BodyInfo b = w.body(id).value();
      s.masses.push_back(b.mass);
      s.masses.push_back(b.inertia);
    }
    return s;
  }
  bool operator==(const Snapshot&) const = default;
};

// Runs `call` on `w`, which must fail with `code` and a message containing
// `field`, and leave `w` exactly as it was.
template <class F>
void expect_rejected(World& w, const char* what, ErrorCode code, const std::string& field, F&& call) {
  SCOPED_TRACE(what);
  const Snapshot before = Snapshot::of(w);
  const auto result = call(w);
  ASSERT_FALSE(result.ok()) << what << ": accepted";
  EXPECT_EQ(code_name(result.error().code), std::string(code_name(code))) << result.error().message;
  EXPECT_NE(result.error().message.find(field), std::string::npos)
      << "message does not name '" << field << "': " << result.error().message;
  EXPECT_TRUE(Snapshot::of(w) == before) << what << ": a rejected call changed the world";
}

// A 2D world with something in it, already stepped, and a removed body.
struct Scene2D {
  World w = World::create().value();
  BodyId anchor, p1, p2, r1, r2, gone;
  ConstraintId rod, pin;
  ForceId spring, push;

  Scene2D() {
    BodyDef a;
    a.motion = Motion::fixed;
    anchor = w.add_body(a).value();
    BodyDef p;
    p.mass = 1.0;
    p.position = Vec3(1.0, 0.0, 0.0);
    p1 = w.add_body(p).value();
    p.position = Vec3(2.0, 0.5, 0.0);
    p2 = w.add_body(p).value();
    BodyDef r;
    r.kind = BodyKind::rigid;
    r.shape = Disk{0.25};
    r.position = Vec3(0.0, -1.0, 0.0);
    r.angular_velocity = 1.0;
    r1 = w.add_body(r).value();
    r.shape = Box{0.3, 0.1};
    r.position = Vec3(2.0, -1.0, 0.0);
    r2 = w.add_body(r).value();
    BodyDef g;
    g.mass = 1.0;
    g.position = Vec3(-3.0, 0.0, 0.0);
    gone = w.add_body(g).value();
    EXPECT_TRUE(w.remove_body(gone).ok());

    rod = w.add_constraint(DistanceDef{anchor, p1}).value();
    pin = w.add_constraint(PinDef{BodyId{}, r1, Vec3(0.0, -0.5, 0.0), Vec3(0.0, 0.5, 0.0)}).value();
    SpringDef s;
    s.a = p2;
    s.b = r2;
    s.stiffness = 20.0;
    spring = w.add_spring(s).value();
    ForceDef f;
    f.body = r2;
    f.force = Vec3(0.5, 0.0, 0.0);
    f.torque = 0.1;
    f.steps = 0;
    push = w.apply_force(f).value();
    for (int i = 0; i < 5; ++i) w.step();
  }
};

WorldSettings bad_settings(void (*edit)(WorldSettings&)) {
  WorldSettings s;
  edit(s);
  return s;
}

struct SettingsCase {
  const char* what;
  WorldSettings settings;
  std::string field;
};

std::vector<SettingsCase> settings_cases() {
  return {
      {"dimension 4", bad_settings([](WorldSettings& s) { s.dimension = 4; }), "dimension"},
      {"dimension 1", bad_settings([](WorldSettings& s) { s.dimension = 1; }), "dimension"},
      {"dt 0", bad_settings([](WorldSettings& s) { s.dt = 0.0; }), "dt"},
      {"dt < 0", bad_settings([](WorldSettings& s) { s.dt = -0.01; }), "dt"},
      {"dt NaN", bad_settings([](WorldSettings& s) { s.dt = kNaN; }), "dt"},
      {"gravity NaN", bad_settings([](WorldSettings& s) { s.gravity = Vec3(0.0, kNaN, 0.0); }), "gravity"},
      {"gravity inf", bad_settings([](WorldSettings& s) { s.gravity = Vec3(kInf, 0.0, 0.0); }), "gravity"},
      {"gravity z in 2D", bad_settings([](WorldSettings& s) { s.gravity = Vec3(0.0, -9.81, 1.0); }), "gravity"},
      {"substeps 0", bad_settings([](WorldSettings& s) { s.substeps = 0; }), "substeps"},
      {"substeps < 0", bad_settings([](WorldSettings& s) { s.substeps = -2; }), "substeps"},
  };
}

}  // namespace

TEST(Validation, CreateRejectsInvalidSettings) {
  for (const SettingsCase& c : settings_cases()) {
    SCOPED_TRACE(c.what);
    Result<World> w = World::create(c.settings);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(w.error().message.find(c.field), std::string::npos) << w.error().message;
  }
}

TEST(Validation, SetSettingsRejectsInvalidSettingsAndKeepsOld) {
  Scene2D s;
  const WorldSettings old = s.w.settings();
  for (const SettingsCase& c : settings_cases()) {
    expect_rejected(s.w, c.what, ErrorCode::invalid_argument, c.field,
                    [&](World& w) { return w.set_settings(c.settings); });
    EXPECT_EQ(s.w.settings().dimension, old.dimension);
    EXPECT_EQ(s.w.settings().dt, old.dt);
    EXPECT_EQ(s.w.settings().substeps, old.substeps);
    EXPECT_EQ(s.w.settings().gravity, old.gravity);
  }
}

TEST(Validation, SetSettingsCannotChangeDimensionOfNonEmptyWorld) {
  Scene2D s;
  WorldSettings three = s.w.settings();
  three.dimension = 3;
  three.gravity = Vec3(0.0, 0.0, -9.81);
  expect_rejected(s.w, "2D -> 3D with bodies", ErrorCode::failed_precondition, "dimension",
                  [&](World& w) { return w.set_settings(three); });
  EXPECT_EQ(s.w.settings().dimension, 2);

  // An empty world may change its dimension.
  World empty = World::create().value();
  EXPECT_TRUE(empty.set_settings(three).ok());
  EXPECT_EQ(empty.settings().dimension, 3);
}

TEST(Validation, BodyDefRejected) {
  Scene2D s;
  auto particle = [] {
    BodyDef d;
    d.mass = 1.0;
    return d;
  };
  auto rigid = [] {
    BodyDef d;
    d.kind = BodyKind::rigid;
    d.shape = Disk{0.5};
    return d;
  };
  auto add = [](BodyDef d) { return [d](World& w) { return w.add_body(d); }; };
  using E = ErrorCode;

  BodyDef d = particle();
  d.position = Vec3(kNaN, 0.0, 0.0);
  expect_rejected(s.w, "NaN position", E::invalid_argument, "position", add(d));
  d = particle();
  d.position = Vec3(0.0, kInf, 0.0);
  expect_rejected(s.w, "inf position", E::invalid_argument, "position", add(d));
  d = particle();
  d.position = Vec3(0.0, 0.0, 1.0);
  expect_rejected(s.w, "z != 0 in 2D", E::invalid_argument, "position", add(d));
  d = particle();
  d.velocity = Vec3(0.0, 0.0, -1.0);
  expect_rejected(s.w, "velocity z != 0 in 2D", E::invalid_argument, "velocity", add(d));
  d = particle();
  d.mass = -1.0;
  expect_rejected(s.w, "negative mass", E::invalid_argument, "mass", add(d));
  d = particle();
  d.mass = kNaN;
  expect_rejected(s.w, "NaN mass", E::invalid_argument, "mass", add(d));
  d = particle();
  d.mass = 0.0;
  expect_rejected(s.w, "dynamic particle without mass or shape", E::invalid_argument, "mass", add(d));
  d = particle();
  d.angle = 0.3;
  expect_rejected(s.w, "angle on a particle", E::invalid_argument, "angle", add(d));
  d = particle();
  d.angular_velocity = 2.0;
  expect_rejected(s.w, "angular velocity on a particle", E::invalid_argument, "angular_velocity", add(d));
  d = particle();
  d.motion = Motion::fixed;
  d.velocity = Vec3(1.0, 0.0, 0.0);
  expect_rejected(s.w, "fixed body with velocity", E::invalid_argument, "velocity", add(d));
  d = rigid();
  d.motion = Motion::fixed;
  d.angular_velocity = 1.0;
  expect_rejected(s.w, "fixed rigid body with angular velocity", E::invalid_argument, "velocity", add(d));
  d = rigid();
  d.shape = Disk{0.0};
  expect_rejected(s.w, "disk radius 0", E::invalid_argument, "radius", add(d));
  d = rigid();
  d.shape = Disk{-0.5};
  expect_rejected(s.w, "disk radius < 0", E::invalid_argument, "radius", add(d));
  d = rigid();
  d.shape = Box{0.0, 1.0};
  expect_rejected(s.w, "box width 0", E::invalid_argument, "half_width", add(d));
  d = rigid();
  d.shape = Polygon{{Vec2(0, 0), Vec2(2, 0), Vec2(2, 2), Vec2(1, 0.5), Vec2(0, 2)}};
  expect_rejected(s.w, "non-convex polygon", E::invalid_argument, "vertices", add(d));
  d = rigid();
  d.shape = Polygon{{Vec2(0, 0), Vec2(1, 0)}};
  expect_rejected(s.w, "polygon with 2 vertices", E::invalid_argument, "vertices", add(d));
  d = rigid();
  d.shape = Polygon{{Vec2(0, 0), Vec2(1, 1), Vec2(2, 2)}};
  expect_rejected(s.w, "polygon without area", E::invalid_argument, "vertices", add(d));
  d = rigid();
  d.shape = NoShape{};
  d.mass = 1.0;
  expect_rejected(s.w, "dynamic rigid body without inertia", E::invalid_argument, "inertia", add(d));
  d = rigid();
  d.density = 0.0;
  expect_rejected(s.w, "density 0", E::invalid_argument, "density", add(d));

  // The same checks hold for update_body, which must also keep the body as it was.
  d = particle();
  d.position = Vec3(kNaN, 0.0, 0.0);
  expect_rejected(s.w, "update_body NaN position", E::invalid_argument, "position",
                  [&](World& w) { return w.update_body(s.p1, d); });
  d = particle();
  d.mass = -2.0;
  expect_rejected(s.w, "update_body negative mass", E::invalid_argument, "mass",
                  [&](World& w) { return w.update_body(s.p1, d); });
}

TEST(Validation, RigidBodyRejectedIn3D) {
  WorldSettings st;
  st.dimension = 3;
  st.gravity = Vec3(0.0, 0.0, -9.81);
  World w = World::create(st).value();
  BodyDef p;
  p.mass = 1.0;
  p.position = Vec3(0.0, 0.0, 1.0);  // z is fine in 3D
  ASSERT_TRUE(w.add_body(p).ok());
  BodyDef r;
  r.kind = BodyKind::rigid;
  r.shape = Disk{0.5};
  expect_rejected(w, "rigid body in 3D", ErrorCode::invalid_argument, "kind",
                  [&](World& world) { return world.add_body(r); });
}

TEST(Validation, UpdateBodyCannotChangeKind) {
  Scene2D s;
  BodyDef d;
  d.kind = BodyKind::rigid;
  d.shape = Disk{0.5};
  d.position = Vec3(1.0, 0.0, 0.0);
  expect_rejected(s.w, "particle -> rigid", ErrorCode::invalid_argument, "kind",
                  [&](World& w) { return w.update_body(s.p1, d); });
  BodyDef p;
  p.mass = 1.0;
  expect_rejected(s.w, "rigid -> particle", ErrorCode::invalid_argument, "kind",
                  [&](World& w) { return w.update_body(s.r1, p); });
  expect_rejected(s.w, "update removed body", ErrorCode::not_found, "id",
                  [&](World& w) { return w.update_body(s.gone, p); });
}

TEST(Validation, ConstraintBodiesRejected) {
  Scene2D s;
  using E = ErrorCode;
  auto add = [](ConstraintDef c) { return [c](World& w) { return w.add_constraint(c); }; };

  expect_rejected(s.w, "b removed", E::not_found, "b", add(DistanceDef{s.p1, s.gone, Vec3::Zero(), Vec3::Zero(), 1.0}));
  expect_rejected(s.w, "a removed", E::not_found, "a", add(DistanceDef{s.gone, s.p1, Vec3::Zero(), Vec3::Zero(), 1.0}));
  expect_rejected(s.w, "never created", E::not_found, "b", add(PinDef{s.p1, BodyId{1000, 1}}));
  expect_rejected(s.w, "live index, wrong generation", E::not_found, "b",
                  add(PinDef{s.p1, BodyId{s.p2.index, s.p2.generation + 7}}));
  expect_rejected(s.w, "trajectory on removed body", E::not_found, "body", add(TrajectoryDef{s.gone, Vec3::Zero(), Path{}}));
  expect_rejected(s.w, "a == b (distance)", E::invalid_argument, "a, b", add(DistanceDef{s.p1, s.p1, Vec3::Zero(), Vec3::Zero(), 1.0}));
  expect_rejected(s.w, "a == b (pin)", E::invalid_argument, "a, b", add(PinDef{s.r1, s.r1}));
  expect_rejected(s.w, "b null", E::invalid_argument, "b", add(PinDef{s.p1, BodyId{}}));

  // A second fixed body, then a pin between the two fixed bodies.
  BodyDef f;
  f.motion = Motion::fixed;
  f.position = Vec3(5.0, 5.0, 0.0);
  const BodyId fixed2 = s.w.add_body(f).value();
  expect_rejected(s.w, "pin between two fixed bodies", E::failed_precondition, "pin", add(PinDef{s.anchor, fixed2}));
  expect_rejected(s.w, "world and a fixed body", E::failed_precondition, "pin", add(PinDef{BodyId{}, fixed2}));
}

TEST(Validation, ConstraintValuesRejected) {
  Scene2D s;
  using E = ErrorCode;
  auto add = [](ConstraintDef c) { return [c](World& w) { return w.add_constraint(c); }; };

  expect_rejected(s.w, "negative length", E::invalid_argument, "length", add(DistanceDef{s.p1, s.p2, Vec3::Zero(), Vec3::Zero(), -1.0}));
  expect_rejected(s.w, "zero length", E::invalid_argument, "length", add(DistanceDef{s.p1, s.p2, Vec3::Zero(), Vec3::Zero(), 0.0}));
  expect_rejected(s.w, "infinite length", E::invalid_argument, "length",
                  add(DistanceDef{s.p1, s.p2, Vec3::Zero(), Vec3::Zero(), kInf}));
  expect_rejected(s.w, "zero radius", E::invalid_argument, "radius",
                  add(PointOnCircleDef{BodyId{}, s.p1, Vec3::Zero(), Vec3::Zero(), 0.0}));
  expect_rejected(s.w, "NaN anchor", E::invalid_argument, "anchor_b",
                  add(PinDef{s.p1, s.p2, Vec3::Zero(), Vec3(kNaN, 0.0, 0.0)}));
  expect_rejected(s.w, "anchor z in 2D", E::invalid_argument, "anchor_a",
                  add(PinDef{s.p1, s.p2, Vec3(0.0, 0.0, 0.5), Vec3::Zero()}));

  // Rigid-only constraints on a particle.
  expect_rejected(s.w, "weld on a particle", E::invalid_argument, "b", add(WeldDef{s.r1, s.p1}));
  expect_rejected(s.w, "weld from a particle", E::invalid_argument, "a", add(WeldDef{s.p1, s.r1}));
  expect_rejected(s.w, "relative_angle on a particle", E::invalid_argument, "b", add(RelativeAngleDef{s.r1, s.p1}));
  expect_rejected(s.w, "gear on a particle", E::invalid_argument, "b", add(GearDef{s.r1, s.p1}));
  MotorDef m;
  m.kind = MotorKind::angular;
  m.b = s.p1;
  m.speed = 1.0;
  expect_rejected(s.w, "angular motor on a particle", E::invalid_argument, "b", add(m));

  // point_on_plane is 3D only.
  expect_rejected(s.w, "point_on_plane in 2D", E::invalid_argument, "point_on_plane",
                  add(PointOnPlaneDef{BodyId{}, s.p1, Vec3::Zero(), Vec3::Zero(), Vec3::UnitY()}));

  // Motors need a positive maximum force.
  m = MotorDef{};
  m.kind = MotorKind::angular;
  m.b = s.r1;
  m.speed = 1.0;
  m.max_force = 0.0;
  expect_rejected(s.w, "motor max_force 0", E::invalid_argument, "max_force", add(m));
  m.max_force = -3.0;
  expect_rejected(s.w, "motor max_force < 0", E::invalid_argument, "max_force", add(m));
  m.max_force = kNaN;
  expect_rejected(s.w, "motor max_force NaN", E::invalid_argument, "max_force", add(m));
  m.max_force = 1.0;
  m.speed = kInf;
  expect_rejected(s.w, "motor speed inf", E::invalid_argument, "speed", add(m));

  // A "current" length measured between coincident anchors is 0.
  const Vec3 at = s.w.body(s.p1).value().position;
  expect_rejected(s.w, "distance with coincident anchors, current length", E::invalid_argument, "length",
                  add(DistanceDef{BodyId{}, s.p1, at, Vec3::Zero(), kCurrent}));
  expect_rejected(s.w, "circle with the point at the centre, current radius", E::invalid_argument, "radius",
                  add(PointOnCircleDef{BodyId{}, s.p1, at, Vec3::Zero(), kCurrent}));
  expect_rejected(s.w, "line with zero axis", E::invalid_argument, "axis",
                  add(PointOnLineDef{BodyId{}, s.p1, Vec3::Zero(), Vec3::Zero(), Vec3::Zero()}));
}

TEST(Validation, UpdateConstraintRejected) {
  Scene2D s;
  using E = ErrorCode;
  auto update = [](ConstraintId id, ConstraintDef c) { return [id, c](World& w) { return w.update_constraint(id, c); }; };

  expect_rejected(s.w, "distance -> pin", E::invalid_argument, "type", update(s.rod, PinDef{s.anchor, s.p1}));
  expect_rejected(s.w, "other bodies", E::invalid_argument, "bodies", update(s.rod, DistanceDef{s.anchor, s.p2, Vec3::Zero(), Vec3::Zero(), 1.0}));
  expect_rejected(s.w, "swapped bodies", E::invalid_argument, "bodies", update(s.rod, DistanceDef{s.p1, s.anchor, Vec3::Zero(), Vec3::Zero(), 1.0}));
  expect_rejected(s.w, "negative length", E::invalid_argument, "length",
                  update(s.rod, DistanceDef{s.anchor, s.p1, Vec3::Zero(), Vec3::Zero(), -2.0}));
  expect_rejected(s.w, "unknown id", E::not_found, "id",
                  update(ConstraintId{999, 1}, DistanceDef{s.anchor, s.p1, Vec3::Zero(), Vec3::Zero(), 1.0}));
  EXPECT_EQ(std::get<DistanceDef>(s.w.constraint(s.rod).value().def).length, 1.0);
}

TEST(Validation, ForcesRejected) {
  Scene2D s;
  using E = ErrorCode;
  SpringDef sp;
  sp.a = s.p1;
  sp.b = s.p2;
  sp.stiffness = -5.0;
  expect_rejected(s.w, "negative stiffness", E::invalid_argument, "stiffness",
                  [&](World& w) { return w.add_spring(sp); });
  sp.stiffness = kNaN;
  expect_rejected(s.w, "NaN stiffness", E::invalid_argument, "stiffness", [&](World& w) { return w.add_spring(sp); });
  sp.stiffness = 10.0;
  sp.damping = -1.0;
  expect_rejected(s.w, "negative damping", E::invalid_argument, "damping", [&](World& w) { return w.add_spring(sp); });
  sp.damping = 0.0;
  sp.b = s.gone;
  expect_rejected(s.w, "spring to a removed body", E::not_found, "b", [&](World& w) { return w.add_spring(sp); });
  SpringDef upd;
  upd.a = s.p2;
  upd.b = s.r2;
  upd.stiffness = -1.0;
  expect_rejected(s.w, "update_spring negative stiffness", E::invalid_argument, "stiffness",
                  [&](World& w) { return w.update_spring(s.spring, upd); });

  ForceDef f;
  f.body = s.p1;
  f.torque = 1.0;
  expect_rejected(s.w, "torque on a particle", E::invalid_argument, "torque",
                  [&](World& w) { return w.apply_force(f); });
  f.torque = 0.0;
  f.force = Vec3(kNaN, 0.0, 0.0);
  expect_rejected(s.w, "NaN force", E::invalid_argument, "force", [&](World& w) { return w.apply_force(f); });
  f.force = Vec3(0.0, 0.0, 1.0);
  expect_rejected(s.w, "force z in 2D", E::invalid_argument, "force", [&](World& w) { return w.apply_force(f); });
  f.force = Vec3(1.0, 0.0, 0.0);
  f.body = s.gone;
  expect_rejected(s.w, "force on a removed body", E::not_found, "body", [&](World& w) { return w.apply_force(f); });
}

TEST(Validation, RemoveUnknownIds) {
  Scene2D s;
  using E = ErrorCode;
  expect_rejected(s.w, "remove removed body", E::not_found, "id", [&](World& w) { return w.remove_body(s.gone); });
  expect_rejected(s.w, "remove never-created body", E::not_found, "id",
                  [&](World& w) { return w.remove_body(BodyId{4242, 3}); });
  expect_rejected(s.w, "remove null body", E::invalid_argument, "id", [&](World& w) { return w.remove_body(BodyId{}); });
  expect_rejected(s.w, "remove never-created constraint", E::not_found, "id",
                  [&](World& w) { return w.remove_constraint(ConstraintId{77, 1}); });
  expect_rejected(s.w, "remove never-created force", E::not_found, "id",
                  [&](World& w) { return w.remove_force(ForceId{77, 1}); });

  // A removed constraint or force is gone for good.
  ASSERT_TRUE(s.w.remove_constraint(s.rod).ok());
  expect_rejected(s.w, "remove constraint twice", E::not_found, "id",
                  [&](World& w) { return w.remove_constraint(s.rod); });
  ASSERT_TRUE(s.w.remove_force(s.push).ok());
  expect_rejected(s.w, "remove force twice", E::not_found, "id", [&](World& w) { return w.remove_force(s.push); });
  EXPECT_EQ(s.w.constraint(s.rod).error().code, E::not_found);
  EXPECT_EQ(s.w.force(s.push).error().code, E::not_found);
}

TEST(Validation, RejectedAddConsumesNoId) {
  Scene2D s;
  World twin = s.w;
  BodyDef bad;
  bad.mass = -1.0;
  ASSERT_FALSE(s.w.add_body(bad).ok());
  ASSERT_FALSE(s.w.add_constraint(DistanceDef{s.p1, s.p1}).ok());
  BodyDef good;
  good.mass = 1.0;
  good.position = Vec3(4.0, 0.0, 0.0);
  const BodyId a = s.w.add_body(good).value();
  const BodyId b = twin.add_body(good).value();
  EXPECT_EQ(a, b);
  EXPECT_EQ(s.w.add_constraint(DistanceDef{s.p1, a}).value(), twin.add_constraint(DistanceDef{s.p1, b}).value());
}

TEST(Validation, IdsAreNeverReused) {
  World w = World::create().value();
  BodyDef p;
  p.mass = 1.0;
  const BodyId keep = w.add_body(p).value();
  std::vector<BodyId> seen{keep};
  std::vector<ConstraintId> seen_c;
  std::vector<ForceId> seen_f;
  for (int round = 0; round < 20; ++round) {
    p.position = Vec3(1.0 + round, 0.0, 0.0);
    const BodyId old = w.add_body(p).value();
    const ConstraintId c = w.add_constraint(DistanceDef{keep, old}).value();
    SpringDef sp;
    sp.a = keep;
    sp.b = old;
    const ForceId f = w.add_spring(sp).value();
    for (BodyId s : seen) EXPECT_NE(old, s);
    for (ConstraintId s : seen_c) EXPECT_NE(c, s);
    for (ForceId s : seen_f) EXPECT_NE(f, s);
    seen.push_back(old);
    seen_c.push_back(c);
    seen_f.push_back(f);
    ASSERT_TRUE(w.remove_body(old).ok());

    const BodyId fresh = w.add_body(p).value();
    EXPECT_NE(fresh, old);
    EXPECT_FALSE(w.contains(old));
    EXPECT_TRUE(w.contains(fresh));
    EXPECT_EQ(w.body(old).error().code, ErrorCode::not_found);
    EXPECT_EQ(w.remove_body(old).error().code, ErrorCode::not_found);
    EXPECT_EQ(w.update_body(old, p).error().code, ErrorCode::not_found);
    EXPECT_EQ(w.add_constraint(PinDef{keep, old}).error().code, ErrorCode::not_found);
    EXPECT_FALSE(w.contains(c));
    EXPECT_FALSE(w.contains(f));
    EXPECT_EQ(w.constraint(c).error().code, ErrorCode::not_found);
    EXPECT_EQ(w.force(f).error().code, ErrorCode::not_found);
    // The new body is a different body: the old id does not reach it.
    EXPECT_EQ(w.body(fresh).value().position, p.position);
    ASSERT_TRUE(w.remove_body(fresh).ok());
    seen.push_back(fresh);
  }
  EXPECT_EQ(w.bodies().size(), 1u);
}
