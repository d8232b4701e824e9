// Contacts in the sequential-impulse family against closed forms: a ball
// dropped with restitution e rebounds to e²·h; a box on a ramp stays when
// tan θ < μ and slides with g(sin θ − μ cos θ) when not; a stack of boxes
// stands; filters and joints keep bodies apart; and contacts keep a world
// deterministic and restorable bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "contact_scenes.hpp"
#include "linkage/linkage.hpp"

using namespace linkage;
using linkage::test::box_on_ramp;
using linkage::test::ground;
using linkage::test::pinned_arm;

namespace {

constexpr double kG = 9.81;

WorldSettings contact_settings(int substeps = 4) {
  WorldSettings s;
  s.dynamics = Dynamics::sequential_impulses;
  s.solver = LinearSolver::gauss_seidel;
  s.integrator = Integrator::semi_implicit_euler;
  s.contacts = true;
  s.substeps = substeps;
  return s;
}


}  // namespace

TEST(Contacts, ABallLeavesWithETimesItsApproachSpeed) {
  WorldSettings s = contact_settings();
  s.gravity = Vec3::Zero();
  for (const double e : {0.0, 0.5, 1.0}) {
    World w = World::create(s).value();
    ground(w);
    const BodyId ball = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 0.5, 0), .velocity = Vec3(0, -3, 0),
                                    .mass = 1.0, .shape = Disk{0.1}, .material = {0.6, e}})
                            .value();
    for (int i = 0; i < 30; ++i) w.step();
    EXPECT_NEAR(w.body(ball).value().velocity.y(), 3.0 * e, 1e-9) << "e = " << e;
  }
}

TEST(Contacts, ABallReboundsToESquaredTimesItsHeight) {
  for (const double e : {0.5, 0.8}) {
    World w = World::create(contact_settings()).value();
    ground(w);
    const double r = 0.1, height = 1.0;
    const BodyId ball = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, r + height, 0), .mass = 1.0,
                                    .shape = Disk{r}, .material = {0.6, e}})
                            .value();
    bool bounced = false;
    double apex = 0.0;
    for (int i = 0; i < 240; ++i) {
      w.step();
      const BodyInfo b = w.body(ball).value();
      if (b.velocity.y() > 0.0) bounced = true;
      if (bounced) apex = std::max(apex, b.position.y() - r);
      if (bounced && b.velocity.y() < 0.0) break;
    }
    ASSERT_TRUE(bounced);
    // A contact is met up to the margin plus one substep's travel before
    // the ball touches (speculatively), and it turns there: the apex is off
    // by at most that height's share, (1 − e²) of it.
    const WorldSettings& s = w.settings();
    const double early = s.contact_margin + std::sqrt(2.0 * kG * height) * s.dt / s.substeps;
    EXPECT_NEAR(apex, e * e * height, early) << "e = " << e;
  }
}

TEST(Contacts, ABoxOnARampStaysWhenFrictionHoldsIt) {
  const double angle = 20.0 * std::numbers::pi / 180.0;  // tan θ = 0.36 < μ = 0.6
  World w = World::create(contact_settings()).value();
  ground(w, angle);
  const auto [box, up] = box_on_ramp(w, angle, 0.6);
  for (int i = 0; i < 120; ++i) w.step();
  const BodyInfo b = w.body(box).value();
  EXPECT_LT((b.position - up).norm(), 1e-3);
  EXPECT_LT(b.velocity.norm(), 1e-3);
}

TEST(Contacts, ABoxSlidesDownARampWithCoulombFriction) {
  const double angle = 40.0 * std::numbers::pi / 180.0, mu = 0.3;  // tan θ = 0.84 > μ
  World w = World::create(contact_settings()).value();
  ground(w, angle, mu);
  const auto [box, up] = box_on_ramp(w, angle, mu);
  for (int i = 0; i < 60; ++i) w.step();  // 1 s
  const Vec3 along(-std::cos(angle), -std::sin(angle), 0.0);  // down the slope
  const double expected = kG * (std::sin(angle) - mu * std::cos(angle));
  const BodyInfo b = w.body(box).value();
  EXPECT_NEAR(b.velocity.dot(along), expected * 1.0, 0.02 * expected);
  EXPECT_NEAR(b.angular_velocity, 0.0, 1e-6);  // it slides, it does not tip
}

TEST(Contacts, AStackOfBoxesStands) {
  World w = World::create(contact_settings(1)).value();
  ground(w);
  std::vector<BodyId> boxes;
  for (int i = 0; i < 5; ++i)
    boxes.push_back(w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 0.5 + 1.0 * i, 0), .shape = Box{0.5, 0.5}})
                        .value());
  for (int i = 0; i < 600; ++i) w.step();  // 10 s at 60 Hz, one substep, as Box2D runs it
  const BodyInfo top = w.body(boxes.back()).value();
  EXPECT_LT(std::abs(top.position.x()), 0.01);
  EXPECT_NEAR(top.position.y(), 4.5, 0.01 + 5 * w.settings().contact_slop);
  double deepest = 0.0;
  for (const ContactInfo& c : w.contacts()) deepest = std::min(deepest, c.separation);
  EXPECT_GT(deepest, -2.0 * w.settings().contact_slop);
  EXPECT_EQ(w.contacts().size(), 10u);  // two corners on each of the five faces below a box
}

// Box2D's pyramid benchmark: base 20, 210 unit boxes 1.125 m apart in a
// row, at Box2D's 8 velocity / 3 position iterations and 60 Hz. The boxes
// settle into the slop in the first second (each of 20 layers by a few
// millimetres), then the top box holds still.
TEST(Contacts, APyramidStands) {
  World w = World::create(contact_settings(1)).value();
  ground(w);
  constexpr int kBase = 20;
  BodyId top;
  for (int row = 0; row < kBase; ++row)
    for (int i = 0; i < kBase - row; ++i)
      top = w.add_body({.kind = BodyKind::rigid, .position = Vec3((i - (kBase - row - 1) * 0.5) * 1.125, 0.5 + row, 0),
                        .shape = Box{0.5, 0.5}})
                .value();
  for (int i = 0; i < 60; ++i) w.step();
  const Vec3 settled = w.body(top).value().position;
  EXPECT_NEAR(settled.y(), kBase - 0.5, kBase * 2.0 * w.settings().contact_slop);
  for (int i = 0; i < 540; ++i) w.step();
  EXPECT_LT((w.body(top).value().position - settled).norm(), 0.01);
  double deepest = 0.0;
  for (const ContactInfo& c : w.contacts()) deepest = std::min(deepest, c.separation);
  EXPECT_GT(deepest, -2.0 * w.settings().contact_slop);
}

TEST(Contacts, FiltersAndJointsKeepBodiesApart) {
  WorldSettings s = contact_settings();
  s.gravity = Vec3::Zero();
  World w = World::create(s).value();
  auto box = [&](double x, Filter f) {
    return w.add_body({.kind = BodyKind::rigid, .position = Vec3(x, 0, 0), .mass = 1.0, .shape = Box{0.5, 0.5}, .filter = f})
        .value();
  };
  // Overlapping pairs: one joined by a pin, one in a negative group, one masked off, one free.
  const BodyId a = box(0.0, {}), b = box(0.5, {});
  w.add_constraint(PinDef{.a = a, .b = b, .anchor_a = Vec3(0.25, 0, 0), .anchor_b = Vec3(-0.25, 0, 0)}).value();
  box(10.0, {.group = -1});
  box(10.5, {.group = -1});
  box(20.0, {.category = 2, .mask = 1});
  box(20.5, {.category = 2, .mask = 1});
  const BodyId free_a = box(30.0, {}), free_b = box(30.5, {});
  w.step();
  ASSERT_FALSE(w.contacts().empty());
  for (const ContactInfo& c : w.contacts()) {
    EXPECT_EQ(c.a, free_a);
    EXPECT_EQ(c.b, free_b);
  }
}

TEST(Contacts, ABallPitIsDeterministicAndRestoresBitForBit) {
  auto pit = [] {
    World w = World::create(contact_settings(2)).value();
    ground(w);
    for (double x : {-2.0, 2.0})
      w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = Vec3(x, 1.5, 0), .shape = Box{0.1, 1.5}})
          .value();
    for (int i = 0; i < 40; ++i)
      w.add_body({.kind = BodyKind::rigid, .position = Vec3(-1.5 + 0.37 * (i % 8), 0.3 + 0.35 * (i / 8), 0), .mass = 0.1,
                  .shape = Disk{0.15}, .material = {0.4, 0.3}})
          .value();
    return w;
  };
  World a = pit(), b = pit();
  for (int i = 0; i < 30; ++i) {
    a.step();
    b.step();
  }
  EXPECT_EQ(a.state_hash(), b.state_hash());
  ASSERT_FALSE(a.contacts().empty());
  const WorldState saved = a.save();
  const std::string bytes = encode(saved);
  a.clear_caches();
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < 30; ++i) hashes.push_back((a.step(), a.state_hash()));
  a.restore(saved);
  World c = World::create(contact_settings(2)).value();
  c.restore(decode(bytes).value());
  for (int i = 0; i < 30; ++i) {
    a.step();
    c.step();
    ASSERT_EQ(a.state_hash(), hashes[static_cast<std::size_t>(i)]) << "restored, step " << i;
    ASSERT_EQ(c.state_hash(), hashes[static_cast<std::size_t>(i)]) << "decoded, step " << i;
  }
}

TEST(Contacts, SettingsAndMaterialsAreChecked) {
  WorldSettings s = contact_settings();
  s.dynamics = Dynamics::force_based;  // the exact family (velocity_projection) and sequential impulses take contacts
  EXPECT_EQ(World::create(s).error().field, "contacts");
  s = contact_settings();
  s.contact_slop = -1.0;
  EXPECT_EQ(World::create(s).error().field, "contact_slop");
  World w = World::create(contact_settings()).value();
  EXPECT_EQ(w.add_body({.mass = 1.0, .material = {-0.1, 0.0}}).error().field, "material.friction");
  EXPECT_EQ(w.add_body({.mass = 1.0, .material = {0.5, 1.5}}).error().field, "material.restitution");
}

// Newton's cradle: five disks in a row, a hair apart, e = 1, no gravity; the
// first is sent into the others. Impulses are equal and opposite, so the
// row's momentum holds to round-off; the bounce reaches the last disk.
TEST(Contacts, NewtonsCradleKeepsItsMomentum) {
  WorldSettings s = contact_settings();
  s.gravity = Vec3::Zero();
  World w = World::create(s).value();
  const double r = 0.1, v = 2.0;
  std::vector<BodyId> disks;
  for (int i = 0; i < 5; ++i)
    disks.push_back(w.add_body({.kind = BodyKind::rigid, .position = Vec3(i * (2 * r + 1e-3) - (i == 0 ? 0.3 : 0.0), 0, 0),
                                .velocity = Vec3(i == 0 ? v : 0.0, 0, 0), .mass = 1.0, .shape = Disk{r},
                                .material = {0.0, 1.0}})
                        .value());
  double fastest_last = 0.0;  // m/s
  for (int step = 0; step < 120; ++step) {
    w.step();
    double momentum = 0.0, energy = 0.0;
    for (const BodyId id : disks) {
      const BodyInfo b = w.body(id).value();
      momentum += b.mass * b.velocity.x();
      energy += 0.5 * b.mass * b.velocity.squaredNorm();
      EXPECT_NEAR(b.velocity.y(), 0.0, 1e-12);
    }
    EXPECT_NEAR(momentum, v, 1e-9) << "step " << step;
    EXPECT_LE(energy, 0.5 * v * v * (1.0 + 1e-9)) << "step " << step;  // a bounce never adds energy
    fastest_last = std::max(fastest_last, w.body(disks.back()).value().velocity.x());
  }
  // The far end flies off fastest. Not at v with the rest at rest, as a
  // brass cradle does: sequential impulses spread one impact over the
  // touching row (so does Box2D).
  for (std::size_t i = 0; i + 1 < disks.size(); ++i)
    EXPECT_LT(w.body(disks[i]).value().velocity.x(), w.body(disks.back()).value().velocity.x());
  EXPECT_GT(fastest_last, 0.25 * v);
}

// Joints and contacts together: a three-link ragdoll arm of pinned boxes,
// dropped tilted onto the ground, comes to rest on it: its pins hold, no
// link passes into the ground beyond the slop, and pinned neighbours (which
// overlap at the pins) never collide with each other.
TEST(Contacts, APinnedChainFallsAndRestsOnTheGround) {
  WorldSettings s = contact_settings();
  World w = World::create(s).value();
  ground(w);
  const std::vector<BodyId> links = pinned_arm(w);
  for (int i = 0; i < 300; ++i) w.step();  // 5 s
  EXPECT_LT(w.diagnostics().max_error, 1e-3);  // the pins hold (Box2D-grade, not exact)
  for (const BodyId id : links) {
    const BodyInfo b = w.body(id).value();
    EXPECT_LT(b.velocity.norm(), 1e-3);
    EXPECT_LT(std::abs(b.angle), 1e-3);  // flat on the ground
    EXPECT_NEAR(b.position.y(), 0.05, 2.0 * s.contact_slop);
  }
  for (const ContactInfo& c : w.contacts()) {
    EXPECT_GT(c.separation, -2.0 * s.contact_slop);
    for (int i = 0; i + 1 < 3; ++i)
      EXPECT_FALSE((c.a == links[i] && c.b == links[i + 1]) || (c.a == links[i + 1] && c.b == links[i]));
  }
}

// Bodies pushed into one place all overlap: their pairs grow with the
// square of their count (600 disks at one point: 179,700 pairs; 10,000
// would take tens of gigabytes of contact points). A step looks at no more
// than kContactPairsPerBody pairs a shaped body, the first its broad phase
// meets, and says so in its diagnostics, in 2D and 3D. A pyramid, whose
// boxes each touch a few, is not capped.
TEST(Contacts, APileInOnePlaceIsCappedAndSaysSo) {
  constexpr int kBodies = 600;
  for (const int dim : {2, 3}) {
    WorldSettings s = contact_settings(1);
    s.dimension = dim;
    World w = World::create(s).value();
    for (int i = 0; i < kBodies; ++i)
      w.add_body({.kind = dim == 2 ? BodyKind::rigid : BodyKind::particle, .mass = 1.0, .shape = Disk{0.1}}).value();
    const StepDiagnostics& d = w.step();
    EXPECT_TRUE(d.contacts_capped) << dim << "D";
    // A pair's manifold has at most two points.
    EXPECT_LE(w.contacts().size(), 2 * 32 * static_cast<std::size_t>(kBodies)) << dim << "D";
    EXPECT_GT(w.contacts().size(), 0u) << dim << "D";
  }
  World pyramid = World::create(contact_settings()).value();
  ground(pyramid);
  for (int row = 0; row < 10; ++row)
    for (int i = 0; i < 10 - row; ++i)
      pyramid.add_body({.kind = BodyKind::rigid, .position = Vec3((i - (10 - row - 1) * 0.5) * 1.125, 0.5 + row, 0),
                        .shape = Box{0.5, 0.5}})
          .value();
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(pyramid.step().contacts_capped) << "step " << i;
}
