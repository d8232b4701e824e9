// Changing what a world holds while it runs: removing bodies takes their
// constraints and forces along, constraints come and go mid-run, parameters
// change live, one-step forces are spent, and shapes give the right mass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "linkage/linkage.hpp"

using namespace linkage;

namespace {

BodyDef particle_at(double x, double y, double mass = 1.0) {
  BodyDef d;
  d.mass = mass;
  d.position = Vec3(x, y, 0.0);
  return d;
}

BodyDef fixed_at(double x, double y) {
  BodyDef d;
  d.motion = Motion::fixed;
  d.position = Vec3(x, y, 0.0);
  return d;
}

DistanceDef rod(BodyId a, BodyId b, double length = kCurrent) {
  DistanceDef d;
  d.a = a;
  d.b = b;
  d.length = length;
  return d;
}

template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void expect_finite_world(const World& w) {
  for (BodyId id : w.bodies()) {
    const BodyInfo b = w.body(id).value();
    ASSERT_TRUE(b.position.allFinite());
    ASSERT_TRUE(b.velocity.allFinite());
    ASSERT_TRUE(std::isfinite(b.angle));
    ASSERT_TRUE(std::isfinite(b.angular_velocity));
  }
  for (ConstraintId id : w.constraints()) {
    const ConstraintInfo c = w.constraint(id).value();
    for (double l : c.lambda) ASSERT_TRUE(std::isfinite(l));
  }
  const StepDiagnostics& d = w.diagnostics();
  ASSERT_TRUE(std::isfinite(d.max_error));
  ASSERT_TRUE(std::isfinite(d.total_energy()));
}

}  // namespace

TEST(Topology, RemoveBodyTakesExactlyItsConstraintsAndForces) {
  World w = World::create().value();
  const BodyId anchor = w.add_body(fixed_at(0.0, 0.0)).value();
  std::vector<BodyId> p;
  for (int i = 1; i <= 4; ++i) p.push_back(w.add_body(particle_at(0.5 * i, 0.0)).value());
  const ConstraintId c01 = w.add_constraint(rod(anchor, p[0])).value();
  const ConstraintId c12 = w.add_constraint(rod(p[0], p[1])).value();
  const ConstraintId c23 = w.add_constraint(rod(p[1], p[2])).value();
  const ConstraintId c34 = w.add_constraint(rod(p[2], p[3])).value();
  // p[1] (the second particle) also holds a spring to the world, a spring to
  // p[3] and an applied force; p[2] has a force of its own.
  SpringDef to_world;
  to_world.a = p[1];
  to_world.anchor_b = Vec3(1.0, 1.0, 0.0);
  to_world.stiffness = 5.0;
  const ForceId s_world = w.add_spring(to_world).value();
  SpringDef across;
  across.a = p[3];
  across.b = p[1];
  across.stiffness = 5.0;
  const ForceId s_across = w.add_spring(across).value();
  SpringDef other;
  other.a = p[0];
  other.b = p[3];
  other.stiffness = 5.0;
  const ForceId s_other = w.add_spring(other).value();
  ForceDef push;
  push.body = p[1];
  push.force = Vec3(1.0, 0.0, 0.0);
  push.steps = 0;
  const ForceId f_p1 = w.apply_force(push).value();
  push.body = p[2];
  const ForceId f_p2 = w.apply_force(push).value();

  for (int i = 0; i < 10; ++i) w.step();

  const Result<Removed> removed = w.remove_body(p[1]);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(sorted(removed.value().constraints), sorted(std::vector<ConstraintId>{c12, c23}));
  EXPECT_EQ(sorted(removed.value().forces), sorted(std::vector<ForceId>{s_world, s_across, f_p1}));

  EXPECT_EQ(sorted(w.constraints()), sorted(std::vector<ConstraintId>{c01, c34}));
  EXPECT_EQ(sorted(w.forces()), sorted(std::vector<ForceId>{s_other, f_p2}));
  for (ConstraintId c : {c12, c23}) {
    EXPECT_FALSE(w.contains(c));
    EXPECT_EQ(w.constraint(c).error().code, ErrorCode::not_found);
  }
  for (ForceId f : {s_world, s_across, f_p1}) EXPECT_FALSE(w.contains(f));
  EXPECT_FALSE(w.contains(p[1]));

  // What is left keeps working: its ids name the same things and the rods hold.
  const double l01 = std::get<DistanceDef>(w.constraint(c01).value().def).length;
  const double l34 = std::get<DistanceDef>(w.constraint(c34).value().def).length;
  EXPECT_NEAR(l01, 0.5, 1e-12);
  EXPECT_NEAR(l34, 0.5, 1e-12);
  EXPECT_EQ(std::get<DistanceDef>(w.constraint(c34).value().def).a, p[2]);
  double worst = 0.0;
  for (int i = 0; i < 120; ++i) {
    worst = std::max(worst, w.step().max_error);
    ASSERT_NO_FATAL_FAILURE(expect_finite_world(w));
  }
  EXPECT_LT(worst, 1e-3);
  const Vec3 x0 = w.body(p[0]).value().position;
  const Vec3 x2 = w.body(p[2]).value().position;
  const Vec3 x3 = w.body(p[3]).value().position;
  EXPECT_NEAR(x0.norm(), 0.5, 1e-3);
  EXPECT_NEAR((x3 - x2).norm(), 0.5, 1e-3);
  // The detached pair falls freely (pulled by its force and the spring only),
  // so the second rod is no longer tied to the first.
  EXPECT_GT((x2 - x0).norm(), 0.01);
}

// A chain of `n` particles hanging straight down from a fixed anchor, swinging
// as a rigid rod at 1 rad/s (velocities that already satisfy every rod).
struct HangingChain {
  World w;
  std::vector<BodyId> b;           // b[0] the anchor, b[i] the i-th particle
  std::vector<ConstraintId> links;  // links[i] joins b[i] and b[i + 1]; null when removed
  static constexpr double kLink = 0.1;

  explicit HangingChain(const WorldSettings& s, int n = 10, double damping = 0.0) : w(World::create(s).value()) {
    b.push_back(w.add_body(fixed_at(0.0, 0.0)).value());
    for (int i = 1; i <= n; ++i) {
      BodyDef p = particle_at(0.0, -kLink * i, 0.1);
      p.velocity = Vec3(kLink * i, 0.0, 0.0);
      p.linear_damping = damping;
      b.push_back(w.add_body(p).value());
    }
    for (int i = 0; i < n; ++i) links.push_back(w.add_constraint(rod(b[i], b[i + 1])).value());
  }
  int n() const { return static_cast<int>(links.size()); }
};

class TopologyChain : public ::testing::TestWithParam<LinearSolver> {};

// Every 10 steps one rod is removed and an identical one added in its place:
// the physics is unchanged, but the new constraint has a new id, sits at the
// end of the row order and starts without a warm start. The run must track
// a world left alone.
TEST_P(TopologyChain, ReplacingLinksMidRunTracksUntouchedChain) {
  WorldSettings s;
  s.solver = GetParam();
  HangingChain churned(s), reference(s);
  std::mt19937 rng(99);
  double worst = 0.0, worst_gap = 0.0;
  for (int step = 1; step <= 200; ++step) {
    worst = std::max(worst, churned.w.step().max_error);
    reference.w.step();
    ASSERT_NO_FATAL_FAILURE(expect_finite_world(churned.w)) << "step " << step;
    for (int i = 1; i <= churned.n(); ++i)
      worst_gap = std::max(worst_gap, (churned.w.body(churned.b[static_cast<std::size_t>(i)]).value().position -
                                       reference.w.body(reference.b[static_cast<std::size_t>(i)]).value().position)
                                          .norm());
    if (step % 10 != 0) continue;
    const std::size_t i = rng() % churned.links.size();
    const ConstraintId old = churned.links[i];
    const ConstraintDef def = churned.w.constraint(old).value().def;  // length resolved
    const std::uint64_t version = churned.w.topology_version();
    ASSERT_TRUE(churned.w.remove_constraint(old).ok());
    const Result<ConstraintId> added = churned.w.add_constraint(def);
    ASSERT_TRUE(added.ok()) << added.error().message;
    EXPECT_NE(added.value(), old);
    EXPECT_FALSE(churned.w.contains(old));
    EXPECT_NE(churned.w.topology_version(), version);
    churned.links[i] = added.value();
    for (ConstraintId c : churned.links) EXPECT_TRUE(churned.w.contains(c));
  }
  EXPECT_EQ(churned.w.constraints().size(), churned.links.size());
  EXPECT_LT(worst, 1e-5) << "worst |C| over the run";
  EXPECT_LT(worst_gap, 1e-7) << "largest distance from the untouched chain";
}

// Every 10 steps either a random rod is removed (the chain below it falls
// away) or the missing rod is put back at the distance its ends have then.
// A rod added between particles that move apart starts with Ċ ≠ 0, which the
// drift feedback closes like a critically damped 10 rad/s spring, so the
// error is large for a moment; what matters is that everything stays finite
// and the error dies away once the topology stops changing. (Substeps and
// damping keep the falling tail from whipping faster than the step resolves.)
TEST_P(TopologyChain, BreakingAndRepairingLinksStaysFiniteAndSettles) {
  WorldSettings s;
  s.solver = GetParam();
  s.substeps = 4;
  HangingChain chain(s, 10, 1.0);
  std::mt19937 rng(1234);
  int removals = 0, additions = 0, missing = -1;
  double worst = 0.0, settled = 0.0;
  for (int step = 1; step <= 300; ++step) {
    const StepDiagnostics& d = chain.w.step();
    ASSERT_NO_FATAL_FAILURE(expect_finite_world(chain.w)) << "step " << step;
    worst = std::max(worst, d.max_error);
    if (step > 260) settled = std::max(settled, d.max_error);
    if (step % 10 != 0 || step > 200) continue;
    const std::uint64_t version = chain.w.topology_version();
    if (missing < 0) {
      missing = static_cast<int>(rng() % chain.links.size());
      ASSERT_TRUE(chain.w.remove_constraint(chain.links[static_cast<std::size_t>(missing)]).ok());
      chain.links[static_cast<std::size_t>(missing)] = ConstraintId{};
      ++removals;
    } else {
      const Result<ConstraintId> c = chain.w.add_constraint(rod(chain.b[static_cast<std::size_t>(missing)],
                                                                chain.b[static_cast<std::size_t>(missing) + 1]));
      ASSERT_TRUE(c.ok()) << c.error().message;
      chain.links[static_cast<std::size_t>(missing)] = c.value();
      missing = -1;
      ++additions;
    }
    EXPECT_NE(chain.w.topology_version(), version);
    for (ConstraintId c : chain.links) {
      if (!c.is_null()) {
        EXPECT_TRUE(chain.w.contains(c));
      }
    }
  }
  EXPECT_EQ(removals, 10);
  EXPECT_EQ(additions, 10);
  EXPECT_LT(worst, 0.3) << "worst |C| over the run";
  EXPECT_LT(settled, 1e-3) << "worst |C| over the last second, a second after the last change";
}

INSTANTIATE_TEST_SUITE_P(Topology, TopologyChain,
                         ::testing::Values(LinearSolver::conjugate_gradient, LinearSolver::ldlt,
                                           LinearSolver::gauss_seidel),
                         [](const auto& info) { return std::string(solver_name(info.param)); });

TEST(Topology, UpdateConstraintLengthConverges) {
  World w = World::create().value();
  const BodyId anchor = w.add_body(fixed_at(0.0, 0.0)).value();
  const BodyId bob = w.add_body(particle_at(0.0, -1.0, 2.0)).value();
  const ConstraintId c = w.add_constraint(rod(anchor, bob)).value();
  for (int i = 0; i < 10; ++i) w.step();
  EXPECT_NEAR(w.body(bob).value().position.y(), -1.0, 1e-6);

  const std::uint64_t version = w.topology_version();
  ASSERT_TRUE(w.update_constraint(c, rod(anchor, bob, 0.5)).ok());
  EXPECT_EQ(std::get<DistanceDef>(w.constraint(c).value().def).length, 0.5);
  EXPECT_NEAR(w.constraint(c).value().error[0], 0.5, 1e-6);  // C = |d| − L
  EXPECT_EQ(w.topology_version(), version);

  for (int i = 0; i < 180; ++i) w.step();
  const BodyInfo b = w.body(bob).value();
  EXPECT_NEAR(b.position.norm(), 0.5, 1e-4);
  EXPECT_NEAR(b.position.x(), 0.0, 1e-6);  // still hanging straight down
  EXPECT_NEAR(b.velocity.norm(), 0.0, 1e-3);
  EXPECT_LT(std::abs(w.constraint(c).value().error[0]), 1e-4);
  // At rest it carries the bob's weight: the rod's reaction on the bob is m g up.
  EXPECT_NEAR(w.constraint(c).value().on_b.force.y(), 2.0 * 9.81, 1e-2);

  // And lengthening again works the same way.
  ASSERT_TRUE(w.update_constraint(c, rod(anchor, bob, 1.5)).ok());
  for (int i = 0; i < 180; ++i) w.step();
  EXPECT_NEAR(w.body(bob).value().position.norm(), 1.5, 1e-4);
}

TEST(Topology, OneStepForcesVanishPersistentOnesStay) {
  WorldSettings s;
  s.gravity = Vec3::Zero();
  World w = World::create(s).value();
  const double m = 2.0, dt = s.dt;
  const BodyId body = w.add_body(particle_at(0.0, 0.0, m)).value();

  ForceDef kick;
  kick.body = body;
  kick.force = Vec3(4.0, 0.0, 0.0);
  kick.steps = 1;
  const ForceId once = w.apply_force(kick).value();
  EXPECT_TRUE(w.contains(once));
  EXPECT_EQ(w.forces(), std::vector<ForceId>{once});
  w.step();
  EXPECT_FALSE(w.contains(once));
  EXPECT_TRUE(w.forces().empty());
  EXPECT_EQ(w.force(once).error().code, ErrorCode::not_found);
  EXPECT_EQ(w.remove_force(once).error().code, ErrorCode::not_found);
  const double v1 = 4.0 / m * dt;
  EXPECT_NEAR(w.body(body).value().velocity.x(), v1, 1e-12);
  for (int i = 0; i < 5; ++i) w.step();
  EXPECT_NEAR(w.body(body).value().velocity.x(), v1, 1e-12) << "a one-step force acted again";

  ForceDef hold;
  hold.body = body;
  hold.force = Vec3(0.0, 3.0, 0.0);
  hold.steps = 0;
  const ForceId steady = w.apply_force(hold).value();
  for (int i = 0; i < 4; ++i) {
    w.step();
    EXPECT_TRUE(w.contains(steady));
  }
  const double v2 = 4 * 3.0 / m * dt;
  EXPECT_NEAR(w.body(body).value().velocity.y(), v2, 1e-12);
  ASSERT_TRUE(w.remove_force(steady).ok());
  EXPECT_FALSE(w.contains(steady));
  for (int i = 0; i < 3; ++i) w.step();
  EXPECT_NEAR(w.body(body).value().velocity.y(), v2, 1e-12) << "a removed force still acts";
  EXPECT_NEAR(w.body(body).value().velocity.x(), v1, 1e-12);
}

TEST(Topology, VersionChangesOnAddAndRemove) {
  World w = World::create().value();
  std::uint64_t v = w.topology_version();
  auto changed = [&](const char* what) {
    EXPECT_NE(w.topology_version(), v) << what;
    v = w.topology_version();
  };
  auto same = [&](const char* what) { EXPECT_EQ(w.topology_version(), v) << what; };

  const BodyId a = w.add_body(fixed_at(0.0, 0.0)).value();
  changed("add_body");
  const BodyId b = w.add_body(particle_at(1.0, 0.0)).value();
  changed("add_body");
  const BodyId c = w.add_body(particle_at(2.0, 0.0)).value();
  changed("add_body");
  const ConstraintId ab = w.add_constraint(rod(a, b)).value();
  changed("add_constraint");
  const ConstraintId bc = w.add_constraint(rod(b, c)).value();
  changed("add_constraint");
  w.step();
  same("step");
  ASSERT_TRUE(w.update_constraint(ab, rod(a, b, 0.9)).ok());
  same("update_constraint");
  ASSERT_TRUE(w.remove_constraint(bc).ok());
  changed("remove_constraint");
  ASSERT_FALSE(w.remove_constraint(bc).ok());
  same("failed remove_constraint");
  ASSERT_TRUE(w.remove_body(b).ok());  // takes ab with it
  changed("remove_body");
  EXPECT_FALSE(w.contains(ab));
  ASSERT_TRUE(w.remove_body(c).ok());
  changed("remove_body");
}

TEST(Topology, DiskMassFromShape) {
  World w = World::create().value();
  BodyDef d;
  d.kind = BodyKind::rigid;
  d.density = 2.0;
  d.shape = Disk{0.3};
  const BodyInfo b = w.body(w.add_body(d).value()).value();
  const double m = 2.0 * std::numbers::pi * 0.3 * 0.3;
  EXPECT_NEAR(b.mass, m, 1e-12);
  EXPECT_NEAR(b.inertia, 0.5 * m * 0.3 * 0.3, 1e-12);
}

TEST(Topology, BoxMassFromShape) {
  World w = World::create().value();
  BodyDef d;
  d.kind = BodyKind::rigid;
  d.density = 3.0;
  d.shape = Box{0.4, 0.25};  // 0.8 m wide, 0.5 m high
  const BodyInfo b = w.body(w.add_body(d).value()).value();
  const double m = 3.0 * 0.8 * 0.5;
  EXPECT_NEAR(b.mass, m, 1e-12);
  EXPECT_NEAR(b.inertia, m * (0.8 * 0.8 + 0.5 * 0.5) / 12.0, 1e-12);
}

TEST(Topology, PolygonMassMatchesBoxAndIsRecentred) {
  World w = World::create().value();
  const double hw = 0.4, hh = 0.25, density = 3.0;
  BodyDef box;
  box.kind = BodyKind::rigid;
  box.density = density;
  box.shape = Box{hw, hh};
  const BodyInfo ref = w.body(w.add_body(box).value()).value();

  struct Case {
    const char* what;
    Vec2 offset;
    bool clockwise;
  };
  for (const Case& c : {Case{"ccw at origin", Vec2(0.0, 0.0), false}, Case{"cw at origin", Vec2(0.0, 0.0), true},
                        Case{"ccw offset", Vec2(5.0, -3.0), false}, Case{"cw offset", Vec2(-2.5, 7.25), true}}) {
    SCOPED_TRACE(c.what);
    std::vector<Vec2> v{Vec2(-hw, -hh), Vec2(hw, -hh), Vec2(hw, hh), Vec2(-hw, hh)};
    if (c.clockwise) std::reverse(v.begin(), v.end());
    for (Vec2& p : v) p += c.offset;
    BodyDef d;
    d.kind = BodyKind::rigid;
    d.density = density;
    d.position = Vec3(1.0, 2.0, 0.0);
    d.shape = Polygon{v};
    const BodyInfo b = w.body(w.add_body(d).value()).value();
    EXPECT_NEAR(b.mass, ref.mass, 1e-12);
    EXPECT_NEAR(b.inertia, ref.inertia, 1e-12);
    // The body sits where it was put: its centre of mass is the position.
    EXPECT_EQ(b.position, Vec3(1.0, 2.0, 0.0));
    const auto* poly = std::get_if<Polygon>(&b.shape);
    ASSERT_NE(poly, nullptr);
    ASSERT_EQ(poly->vertices.size(), 4u);
    Vec2 centroid = Vec2::Zero();
    for (const Vec2& p : poly->vertices) {
      centroid += p / 4.0;
      EXPECT_NEAR(std::abs(p.x()), hw, 1e-12);
      EXPECT_NEAR(std::abs(p.y()), hh, 1e-12);
    }
    EXPECT_NEAR(centroid.norm(), 0.0, 1e-12);
  }
}

TEST(Topology, TriangleMassAndInertia) {
  // A right triangle with legs a, b: area ab/2, centroid (a/3, b/3),
  // I about the centroid = m (a² + b²) / 18.
  World w = World::create().value();
  const double a = 0.6, b = 0.3, density = 4.0;
  BodyDef d;
  d.kind = BodyKind::rigid;
  d.density = density;
  d.shape = Polygon{{Vec2(0.0, 0.0), Vec2(a, 0.0), Vec2(0.0, b)}};
  const BodyInfo info = w.body(w.add_body(d).value()).value();
  const double m = density * a * b / 2.0;
  EXPECT_NEAR(info.mass, m, 1e-12);
  EXPECT_NEAR(info.inertia, m * (a * a + b * b) / 18.0, 1e-12);
  const auto& v = std::get<Polygon>(info.shape).vertices;
  Vec2 sum = Vec2::Zero();
  for (const Vec2& p : v) sum += p;
  EXPECT_NEAR(sum.norm(), 0.0, 1e-12);
  // (0, 0) moved by −centroid is one of them.
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [&](const Vec2& p) { return (p - Vec2(-a / 3, -b / 3)).norm() < 1e-12; }));
}

namespace {

// A random mesh of particles and fixed bodies with rods, springs and
// applied forces, and contacts on (disks): what removals have to take.
World random_world(std::mt19937& rng) {
  WorldSettings s;
  s.dynamics = Dynamics::sequential_impulses;
  s.contacts = true;
  World w = World::create(s).value();
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<BodyId> b;
  for (int i = 0; i < 60; ++i) {
    BodyDef d = i % 10 == 0 ? fixed_at(u(rng), u(rng)) : particle_at(u(rng), u(rng));
    d.shape = Disk{0.2};
    b.push_back(w.add_body(d).value());
  }
  std::uniform_int_distribution<std::size_t> pick(0, b.size() - 1);
  for (int i = 0; i < 80; ++i) {
    const BodyId x = b[pick(rng)], y = b[pick(rng)];
    if (x != y) (void)w.add_constraint(rod(x, y));  // refused between two fixed bodies
  }
  for (int i = 0; i < 20; ++i) {
    SpringDef sd;
    sd.a = b[pick(rng)];
    sd.b = i % 4 == 0 ? BodyId{} : b[pick(rng)];
    sd.stiffness = 3.0;
    if (sd.a != sd.b) (void)w.add_spring(sd);
    ForceDef f;
    f.body = b[pick(rng)];
    f.force = Vec3(0.1, 0.0, 0.0);
    (void)w.apply_force(f);  // refused on a fixed body
  }
  EXPECT_GT(w.constraint_count(), 50u);
  EXPECT_GT(w.force_count(), 20u);
  for (int i = 0; i < 5; ++i) w.step();
  return w;
}

// Steps both worlds five times and expects the same bodies' states, bit for bit.
void expect_same_steps(World& a, World& b) {
  for (int i = 0; i < 5; ++i) {
    a.step();
    b.step();
  }
  BodyStates sa, sb;
  a.body_states(sa);
  b.body_states(sb);
  EXPECT_EQ(sa.position, sb.position);
  EXPECT_EQ(sa.velocity, sb.velocity);
}

}  // namespace

// Bodies removed at once (remove_bodies) leave the world that removing
// them one by one leaves: the same bodies, constraints and forces in the
// same order, each body's Removed the same (a rod between two of them goes
// with the first), and the same steps after, bit for bit.
TEST(Topology, RemovingBodiesAtOnceIsRemovingThemOneByOne) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 10; ++trial) {
    World at_once = random_world(rng);
    World one_by_one = at_once;
    std::vector<BodyId> ids = at_once.bodies();
    std::shuffle(ids.begin(), ids.end(), rng);
    ids.resize(static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 40)(rng)));
    const Result<std::vector<Removed>> removed = at_once.remove_bodies(ids);
    ASSERT_TRUE(removed.ok());
    ASSERT_EQ(removed.value().size(), ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const Removed one = one_by_one.remove_body(ids[k]).value();
      EXPECT_EQ(removed.value()[k].constraints, one.constraints) << "trial " << trial << ", body " << k;
      EXPECT_EQ(removed.value()[k].forces, one.forces) << "trial " << trial << ", body " << k;
    }
    EXPECT_EQ(at_once.bodies(), one_by_one.bodies());
    EXPECT_EQ(at_once.constraints(), one_by_one.constraints());
    EXPECT_EQ(at_once.forces(), one_by_one.forces());
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_same_steps(at_once, one_by_one);
  }
}

// Constraints removed at once are the constraints removed one by one.
TEST(Topology, RemovingConstraintsAtOnceIsRemovingThemOneByOne) {
  std::mt19937 rng(22);
  World at_once = random_world(rng);
  World one_by_one = at_once;
  std::vector<ConstraintId> ids = at_once.constraints();
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.resize(ids.size() / 2);
  ASSERT_TRUE(at_once.remove_constraints(ids).ok());
  for (ConstraintId id : ids) ASSERT_TRUE(one_by_one.remove_constraint(id).ok());
  EXPECT_EQ(at_once.constraints(), one_by_one.constraints());
  expect_same_steps(at_once, one_by_one);
}

// A null, unknown or repeated id refuses the whole removal, naming it
// (ids[k]), and the world keeps everything.
TEST(Topology, RemovalsAtOnceRefuseABadIdAndKeepEverything) {
  std::mt19937 rng(23);
  World w = random_world(rng);
  const std::vector<BodyId> bodies = w.bodies();
  const std::vector<ConstraintId> constraints = w.constraints();
  const std::uint64_t hash = w.state_hash();
  struct Case {
    std::vector<BodyId> ids;
    ErrorCode code;
    const char* field;
  } cases[] = {{{bodies[0], BodyId{}}, ErrorCode::invalid_argument, "ids[1]"},
               {{bodies[0], BodyId{9999, 1}}, ErrorCode::not_found, "ids[1]"},
               {{bodies[3], bodies[4], bodies[3]}, ErrorCode::not_found, "ids[2]"}};
  for (const Case& c : cases) {
    const Result<std::vector<Removed>> r = w.remove_bodies(c.ids);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, c.code);
    EXPECT_EQ(r.error().field, c.field);
  }
  const Status twice = w.remove_constraints(std::vector<ConstraintId>{constraints[0], constraints[0]});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, ErrorCode::not_found);
  EXPECT_EQ(twice.error().field, "ids[1]");
  EXPECT_EQ(w.bodies(), bodies);
  EXPECT_EQ(w.constraints(), constraints);
  EXPECT_EQ(w.state_hash(), hash);
  EXPECT_TRUE(w.remove_bodies({}).value().empty());
}
