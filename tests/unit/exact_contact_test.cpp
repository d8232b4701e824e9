// Contacts in the exact family (the exact preset with contacts on) against
// closed forms, held to the projection's tolerance rather than a slop: a
// box on a ramp slides with g(sin θ − μ cos θ) to 1e-6 and stays when
// tan θ < μ; a ball rebounds to e²·h; Newton's cradle passes the whole
// impact along its row with energy to 1e-6; joints and contacts hold
// together; and nothing overlaps by more than 1e-6 m.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "contact_scenes.hpp"
#include "linkage/linkage.hpp"

using namespace linkage;
using linkage::test::box_on_ramp;
using linkage::test::ground;
using linkage::test::pinned_arm;

namespace {

constexpr double kG = 9.81;
constexpr double kPenetration = 1e-6;  // m: the bound; the projection holds 1e-10

WorldSettings exact_contacts() {
  WorldSettings s = with_preset(Preset::exact);
  s.contacts = true;
  return s;
}


// The deepest overlap of the world's contact rows after its last step (its
// max_error counts them: a contact apart is not in error).
double overlap(const World& w) { return w.diagnostics().max_error; }

}  // namespace

TEST(ExactContacts, ABoxSlidesDownARampWithCoulombFriction) {
  const double angle = 40.0 * std::numbers::pi / 180.0, mu = 0.3;  // tan θ = 0.84 > μ
  World w = World::create(exact_contacts()).value();
  ground(w, angle, mu);
  const auto [box, up] = box_on_ramp(w, angle, mu);
  const Vec3 along(-std::cos(angle), -std::sin(angle), 0.0);  // down the slope
  const double expected = kG * (std::sin(angle) - mu * std::cos(angle));
  for (int i = 1; i <= 60; ++i) {  // 1 s
    w.step();
    const BodyInfo b = w.body(box).value();
    // Each step adds exactly h·a: symplectic Euler is exact for a constant force.
    ASSERT_NEAR(b.velocity.dot(along), expected * i * w.settings().dt, 1e-6 * expected * i * w.settings().dt)
        << "step " << i;
    ASSERT_NEAR(b.angular_velocity, 0.0, 1e-9);  // it slides, it does not tip
    ASSERT_LT(overlap(w), kPenetration);
  }
  ASSERT_EQ(w.contacts().size(), 2u);
  double normal = 0.0, friction = 0.0;
  for (const ContactInfo& c : w.contacts()) {
    normal += c.normal_impulse;
    friction += c.tangent_impulse;
  }
  EXPECT_NEAR(normal, kG * std::cos(angle) * w.settings().dt, 1e-6 * normal);
  // At the bound (sliding); the normal impulse also holds the projections' small share.
  EXPECT_NEAR(std::abs(friction), mu * normal, 1e-6 * normal);
}

TEST(ExactContacts, ABoxOnARampStaysWhenFrictionHoldsIt) {
  const double angle = 20.0 * std::numbers::pi / 180.0;  // tan θ = 0.36 < μ = 0.6
  World w = World::create(exact_contacts()).value();
  ground(w, angle);
  const auto [box, up] = box_on_ramp(w, angle, 0.6);
  for (int i = 0; i < 120; ++i) w.step();
  const BodyInfo b = w.body(box).value();
  EXPECT_LT((b.position - up).norm(), 1e-6);
  EXPECT_LT(b.velocity.norm(), 1e-6);
  EXPECT_LT(overlap(w), kPenetration);
}

TEST(ExactContacts, ABallReboundsToESquaredTimesItsHeight) {
  for (const double e : {0.5, 0.8}) {
    World w = World::create(exact_contacts()).value();
    ground(w);
    const double r = 0.1, height = 1.0;
    const BodyId ball = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, r + height, 0), .mass = 1.0,
                                    .shape = Disk{r}, .material = {0.6, e}})
                            .value();
    bool bounced = false;
    double apex = 0.0, lowest = 1e9;
    for (int i = 0; i < 240; ++i) {
      w.step();
      const BodyInfo b = w.body(ball).value();
      lowest = std::min(lowest, b.position.y() - r);
      if (b.velocity.y() > 0.0) bounced = true;
      if (bounced) apex = std::max(apex, b.position.y() - r);
      if (bounced && b.velocity.y() < 0.0) break;
    }
    ASSERT_TRUE(bounced);
    EXPECT_GT(lowest, -kPenetration) << "e = " << e;
    // The ball lands exactly on the ground at the end of a step and leaves
    // at e times the speed it had when that step began: the apex is off by
    // at most one step's fall, e² of it.
    const WorldSettings& s = w.settings();
    const double v = std::sqrt(2.0 * kG * height);
    EXPECT_NEAR(apex, e * e * height, e * e * v * s.dt + kG * s.dt * s.dt) << "e = " << e;
  }
}

// Newton's cradle on a table (no gravity): five equal disks 10 cm apart, e =
// 1; the first is sent into the others. Each impact is between two disks
// and swaps their velocities, so the last disk leaves with the whole
// momentum and the others stop; energy holds to 1e-6 and momentum to 1e-9
// at every step.
TEST(ExactContacts, NewtonsCradlePassesTheImpactAlongTheRow) {
  WorldSettings s = exact_contacts();
  s.gravity = Vec3::Zero();
  World w = World::create(s).value();
  const double r = 0.1, v = 2.0;
  std::vector<BodyId> disks;
  for (int i = 0; i < 5; ++i)
    disks.push_back(w.add_body({.kind = BodyKind::rigid, .position = Vec3(i * (2 * r + 0.1), 0, 0),
                                .velocity = Vec3(i == 0 ? v : 0.0, 0, 0), .mass = 1.0, .shape = Disk{r},
                                .material = {0.0, 1.0}})
                        .value());
  for (int step = 0; step < 120; ++step) {
    w.step();
    double momentum = 0.0, energy = 0.0;
    for (const BodyId id : disks) {
      const BodyInfo b = w.body(id).value();
      momentum += b.mass * b.velocity.x();
      energy += 0.5 * b.mass * b.velocity.squaredNorm();
    }
    ASSERT_NEAR(momentum, v, 1e-9) << "step " << step;
    ASSERT_NEAR(energy, 0.5 * v * v, 1e-6 * 0.5 * v * v) << "step " << step;
    ASSERT_LT(overlap(w), kPenetration) << "step " << step;
  }
  for (std::size_t i = 0; i + 1 < disks.size(); ++i) EXPECT_NEAR(w.body(disks[i]).value().velocity.x(), 0.0, 1e-6);
  EXPECT_NEAR(w.body(disks.back()).value().velocity.x(), v, 1e-6);
}

// Joints and contacts in one system: a pinned three-link arm dropped onto
// the ground rests flat on it with its pins exact and no overlap.
TEST(ExactContacts, APinnedChainFallsAndRestsOnTheGround) {
  World w = World::create(exact_contacts()).value();
  ground(w);
  const std::vector<BodyId> links = pinned_arm(w);
  for (int i = 0; i < 300; ++i) {
    w.step();
    ASSERT_LT(w.diagnostics().max_error, kPenetration) << "step " << i;  // pins and contacts alike
  }
  for (const BodyId id : links) {
    const BodyInfo b = w.body(id).value();
    EXPECT_LT(b.velocity.norm(), 1e-6);
    EXPECT_NEAR(b.angle, 0.0, 1e-6);
    EXPECT_NEAR(b.position.y(), 0.05, kPenetration);
  }
}

// A stack of ten boxes: more contact rows than freedoms (each box rests on
// two corners, with friction), solved with the compliance that keeps such
// a pile well posed; it stands with nothing sunk beyond 1e-6 m.
TEST(ExactContacts, AStackOfTenBoxesStands) {
  World w = World::create(exact_contacts()).value();
  ground(w);
  std::vector<BodyId> boxes;
  for (int i = 0; i < 10; ++i)
    boxes.push_back(w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 0.5 + 1.0 * i, 0), .shape = Box{0.5, 0.5}})
                        .value());
  for (int i = 0; i < 600; ++i) {
    w.step();
    ASSERT_LT(overlap(w), kPenetration) << "step " << i;
  }
  for (int i = 0; i < 10; ++i) {
    const BodyInfo b = w.body(boxes[static_cast<std::size_t>(i)]).value();
    EXPECT_NEAR(b.position.x(), 0.0, 1e-6);
    EXPECT_NEAR(b.position.y(), 0.5 + i, 1e-5);
    EXPECT_NEAR(b.angle, 0.0, 1e-6);
  }
  EXPECT_EQ(w.contacts().size(), 20u);
}

// A disk sunk 3e-10 m into the ground under a disk 5 cm above it (a
// contact found ahead, whose row asks for 5 cm): solved free, that row
// would pull the lower disk up and the ground's row pull it down, so the
// active set clamps both, and the ground's row must be let go again. Its
// gradient (3e-10) is judged by the row's own scale: the overlap is pushed
// out in a few iterations. Judged by the largest row's (5 cm), it read as
// round-off: the row stayed at λ = 0 and every step ran to the cap (the
// exact ball pit spent half its steps there).
TEST(ExactContacts, ATinyOverlapUnderAWideGapIsPushedOut) {
  WorldSettings s = exact_contacts();
  s.gravity = Vec3::Zero();
  s.contact_margin = 0.1;
  World w = World::create(s).value();
  ground(w);
  const double r = 0.1, deep = 3e-10;
  const BodyId sunk = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, r - deep, 0), .shape = Disk{r}}).value();
  w.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 3 * r + 0.05, 0), .shape = Disk{r}}).value();
  const StepDiagnostics& d = w.step();
  ASSERT_EQ(w.contacts().size(), 2u);
  EXPECT_FALSE(d.projection_capped);
  EXPECT_LE(d.projection_iterations, 3);
  EXPECT_LT(d.max_error, s.projection_tolerance);
  EXPECT_GT(w.body(sunk).value().position.y(), r - s.projection_tolerance);
}

// Thirty disks dropped in a narrow box buckle into a pile whose contacts
// change by the dozen each step, where the velocity solve's active set
// gives way to projected Gauss–Seidel and ends short of its tolerance. Such
// a solve is not made again for the friction bounds it moved: each time
// would cost an active set's 17 solves and move them as far (this run took
// 153 solves in its worst steps: nine active sets).
// Positions are not projected, so a step's solves are its velocity solve's.
TEST(ExactContacts, APileSolvesAVelocityStepThatFallsShortOnce) {
  WorldSettings s = exact_contacts();
  s.project_positions = false;
  s.project_velocities = false;
  World w = World::create(s).value();
  const double half = 0.875;
  w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = Vec3(0, -0.5, 0), .shape = Box{half + 0.5, 0.5}})
      .value();
  for (const double x : {-half - 0.25, half + 0.25})
    w.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = Vec3(x, 4, 0), .shape = Box{0.25, 4}}).value();
  for (int i = 0; i < 30; ++i)
    w.add_body({.kind = BodyKind::rigid,
                .position = Vec3(-0.5 + 0.25 * (i % 5) + 0.01 * ((i / 5) % 2), 0.2 + 0.25 * (i / 5), 0),
                .shape = Disk{0.1},
                .material = {0.6, 0.0}})
        .value();
  int short_steps = 0, most = 0;
  for (int i = 0; i < 100; ++i) {
    const StepDiagnostics& d = w.step();
    short_steps += d.solver_residual > s.solver_tolerance;
    most = std::max(most, d.solves);
  }
  EXPECT_GT(short_steps, 10);  // the fallback is what this exercises
  EXPECT_LT(most, 100);  // a few exact friction rounds, then one short solve
}

// Forty disks at random places (some overlapping, four fixed) tied by 60
// rods of the lengths they start with: contacts that push where rods pull,
// which cannot all hold. The projection stops at its cap, says so, and
// ends on the best point it visited, contact impulses included, where its
// last Newton step had landed 674 m off; and it is not run again for the
// corners the narrow phase finds missed (a pass from where the last
// stopped costs as much again). The first step projects twice: settling
// the overlaps and rods where it begins (positions alone), then its own.
// No split of the step holds it either (step_split.hpp).
TEST(ExactContacts, ACappedProjectionWithContactsEndsOnItsBestPoint) {
  std::mt19937 rng(6);
  auto coord = [&] { return static_cast<double>(rng() % 6001) / 1000.0 - 3.0; };
  World w = World::create(exact_contacts()).value();
  std::vector<BodyId> disks;
  for (int i = 0; i < 40; ++i)
    disks.push_back(w.add_body({.kind = BodyKind::rigid,
                                .motion = i % 10 == 0 ? Motion::fixed : Motion::dynamic,
                                .position = Vec3(coord(), coord(), 0),
                                .mass = 1.0,
                                .shape = Disk{0.2}})
                        .value());
  for (int i = 0; i < 60; ++i) {
    const BodyId a = disks[rng() % disks.size()], b = disks[rng() % disks.size()];
    if (a != b) ASSERT_TRUE(w.add_constraint(DistanceDef{.a = a, .b = b}).ok());
  }
  const StepDiagnostics& d = w.step();
  EXPECT_TRUE(d.projection_capped);
  EXPECT_LT(d.max_error, 2.0);
  // No split holds it (step_split.hpp): after the splits' tries, the step at
  // its own length settles and projects to the cap; the next rests from splitting.
  EXPECT_EQ(d.substeps, 1);
  EXPECT_GT(d.projection_iterations, 2 * w.settings().projection_max_iterations);
  EXPECT_EQ(w.step().projection_iterations, w.settings().projection_max_iterations);  // capped before: no settling
}

// 3D: a ball thrown into a corner of three planes comes to rest touching
// all three, exactly.
TEST(ExactContacts, ABallSettlesInACornerOfThreePlanes) {
  WorldSettings s = exact_contacts();
  s.dimension = 3;
  s.gravity = Vec3(0, 0, -kG);
  World w = World::create(s).value();
  for (const Vec3& n : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)})
    w.add_body({.motion = Motion::fixed, .shape = Plane{n}}).value();
  const double r = 0.1;
  const BodyId ball =
      w.add_body({.position = Vec3(0.3, 0.4, 0.5), .velocity = Vec3(-1, -1, 0), .shape = Disk{r}, .material = {0.3, 0.0}})
          .value();
  for (int i = 0; i < 300; ++i) {
    w.step();
    ASSERT_LT(overlap(w), kPenetration) << "step " << i;
  }
  const BodyInfo b = w.body(ball).value();
  EXPECT_NEAR(b.position.z(), r, kPenetration);
  EXPECT_GT(b.position.x(), r - kPenetration);
  EXPECT_GT(b.position.y(), r - kPenetration);
  EXPECT_LT(b.velocity.norm(), 1e-6);
}

namespace {

// Twelve boxes and disks dropped in a heap: contacts appear, change and go.
World heap(int threads = 1) {
  WorldSettings s = exact_contacts();
  s.threads = threads;
  World w = World::create(s).value();
  ground(w);
  for (int i = 0; i < 12; ++i)
    w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.3 * (i % 4) - 0.45, 0.3 + 0.35 * i, 0), .angle = 0.1 * i,
                .shape = i % 2 ? Shape{Box{0.12, 0.1}} : Shape{Disk{0.12}}, .material = {0.4, 0.2}})
        .value();
  return w;
}

}  // namespace

TEST(ExactContacts, RunsAreBitIdenticalWithOneAndTwoThreads) {
  for (const int threads : {1, 2}) {
    World a = heap(threads), b = heap(threads);
    for (int i = 0; i < 80; ++i) {
      a.step();
      b.step();
      ASSERT_LT(overlap(a), kPenetration) << threads << " threads, step " << i;
    }
    EXPECT_EQ(a.state_hash(), b.state_hash()) << threads << " threads";
    EXPECT_FALSE(a.contacts().empty());
  }
}

TEST(ExactContacts, RestoreContinuesBitForBit) {
  World w = heap();
  for (int i = 0; i < 40; ++i) w.step();
  const WorldState saved = w.save();
  for (int i = 0; i < 40; ++i) w.step();
  const std::uint64_t straight = w.state_hash();
  w.restore(saved);
  w.clear_caches();
  for (int i = 0; i < 40; ++i) w.step();
  EXPECT_EQ(w.state_hash(), straight);
}
