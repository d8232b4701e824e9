// A world as bytes (snapshot.hpp): encoded, decoded and restored, it
// continues bit-identically with the world it came from once that one's
// caches are cleared, in every dynamics family and solver path; ids keep
// their generations; and bytes that are truncated, corrupt or inconsistent
// are refused with a message, never trusted.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "linkage/linkage.hpp"
#include "linkage/scenes/build.hpp"

using namespace linkage;

namespace {

struct Case {
  const char* name;
  scenes::SceneSpec spec;
  WorldSettings settings;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

WorldSettings exact() { return with_preset(Preset::exact); }
WorldSettings with(Dynamics dynamics, LinearSolver solver, Integrator integrator) {
  WorldSettings s;
  s.dynamics = dynamics;
  s.solver = solver;
  s.integrator = integrator;
  s.substeps = 2;
  return s;
}

std::vector<Case> cases() {
  WorldSettings threads = exact();
  threads.threads = 2;
  return {
      {"chain_exact", scenes::chain(40), exact()},
      {"cloth_slack_exact", scenes::cloth_slack(10), exact()},
      {"joint_grid_exact_two_threads", scenes::joint_grid(6), threads},
      {"chain_impulses", scenes::chain(20),
       with(Dynamics::sequential_impulses, LinearSolver::gauss_seidel, Integrator::semi_implicit_euler)},
      {"cloth_force_based_cg", scenes::cloth(6),
       with(Dynamics::force_based, LinearSolver::conjugate_gradient, Integrator::rk4)},
      {"joint_grid_projection_ldlt", scenes::joint_grid(4),
       with(Dynamics::velocity_projection, LinearSolver::ldlt, Integrator::semi_implicit_euler)},
  };
}

// The scene with a spring, a lasting force, a one-step kick and a motor on
// top, so that every kind of record is in the bytes.
World build(const Case& c) {
  World w = scenes::build_world(c.spec, c.settings).value().world;
  const std::vector<BodyId> bodies = w.bodies();
  SpringDef spring;
  spring.a = bodies[bodies.size() / 2];
  spring.b = bodies.back();
  spring.stiffness = 20.0;
  spring.damping = 0.5;
  w.add_spring(spring).value();
  ForceDef push;
  push.body = bodies.back();
  push.force = Vec3(0.3, 0.0, 0.0);
  push.steps = 0;
  w.apply_force(push).value();
  push.steps = 40;
  push.force = Vec3(0.0, 1.0, 0.0);
  w.apply_force(push).value();
  BodyDef wheel;
  wheel.kind = BodyKind::rigid;
  wheel.shape = Polygon{{Vec2(-0.2, -0.1), Vec2(0.2, -0.1), Vec2(0.0, 0.2)}};
  wheel.position = Vec3(5.0, 5.0, 0.0);
  const BodyId hub = w.add_body(wheel).value();
  PinDef axle;
  axle.anchor_a = Vec3(5.0, 5.0, 0.0);
  axle.b = hub;
  w.add_constraint(axle).value();
  MotorDef motor;
  motor.b = hub;
  motor.speed = 3.0;
  motor.max_force = 0.01;
  w.add_constraint(motor).value();
  // A freed slot, so the ids' generations and free list are in the bytes.
  const BodyId gone = w.add_body(BodyDef{.mass = 1.0}).value();
  w.remove_body(gone).value();
  return w;
}

World restored(const std::string& bytes, const WorldSettings& settings) {
  World w = World::create(settings).value();
  w.restore(decode(bytes).value());
  return w;
}

class Snapshot : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(Snapshot, RestoredWorldContinuesBitIdentically) {
  World a = build(GetParam());
  for (int i = 0; i < 20; ++i) a.step();
  const std::string bytes = encode(a.save());
  a.clear_caches();
  World b = restored(bytes, GetParam().settings);
  EXPECT_EQ(b.state_hash(), a.state_hash());
  EXPECT_EQ(b.step_count(), a.step_count());
  EXPECT_EQ(b.diagnostics().total_energy(), a.diagnostics().total_energy());
  for (int i = 0; i < 30; ++i) {
    a.step();
    b.step();
    ASSERT_EQ(b.state_hash(), a.state_hash()) << "step " << i + 1 << " after the restore";
  }
}

TEST_P(Snapshot, DecodedBytesEncodeTheSame) {
  World a = build(GetParam());
  for (int i = 0; i < 3; ++i) a.step();
  const std::string bytes = encode(a.save());
  const Result<WorldState> decoded = decode(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(encode(decoded.value()), bytes);
}

TEST_P(Snapshot, IdsKeepTheirGenerations) {
  World a = build(GetParam());
  a.step();
  World b = restored(encode(a.save()), GetParam().settings);
  EXPECT_EQ(b.bodies(), a.bodies());
  EXPECT_EQ(b.constraints(), a.constraints());
  EXPECT_EQ(b.forces(), a.forces());
  // The next ids handed out are the same: the freed slot comes back with its next generation.
  EXPECT_EQ(b.add_body(BodyDef{.mass = 1.0}).value(), a.add_body(BodyDef{.mass = 1.0}).value());
}

INSTANTIATE_TEST_SUITE_P(Families, Snapshot, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

namespace {

std::uint64_t fnv(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The bytes with their checksum made right again, as a crafted file would have.
std::string resealed(std::string bytes) {
  const std::uint64_t sum = fnv(std::string_view(bytes).substr(20, bytes.size() - 28));
  std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  return bytes;
}

std::string small_world() {
  World w = build(cases()[0]);
  w.step();
  return encode(w.save());
}

}  // namespace

TEST(SnapshotBytes, TruncatedAtAnyLengthIsRefused) {
  const std::string bytes = small_world();
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 8) {
    const Result<WorldState> r = decode(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(r.ok()) << n << " of " << bytes.size() << " bytes";
    EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(r.error().message.rfind("snapshot: ", 0), 0u) << r.error().message;
  }
}

TEST(SnapshotBytes, AFlippedBitFailsTheChecksum) {
  const std::string bytes = small_world();
  for (std::size_t at : {std::size_t{20}, bytes.size() / 2, bytes.size() - 9}) {
    std::string bad = bytes;
    bad[at] ^= 0x10;
    const Result<WorldState> r = decode(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("checksum"), std::string::npos) << r.error().message;
  }
}

TEST(SnapshotBytes, HeaderIsChecked) {
  const std::string bytes = small_world();
  std::string magic = bytes;
  magic[0] = 'X';
  EXPECT_NE(decode(magic).error().message.find("magic"), std::string::npos);
  std::string format = bytes;
  format[8] = 99;
  EXPECT_NE(decode(format).error().message.find("format 99"), std::string::npos);
  EXPECT_NE(decode(bytes + "x").error().message.find("truncated or extended"), std::string::npos);
}

// Bytes with a valid checksum but made-up contents (a crafted file): every
// decode either fails with a message or gives a world that holds the core's
// invariants and steps.
TEST(SnapshotBytes, CraftedContentsAreCheckedBeforeUse) {
  const std::string bytes = small_world();
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> where(20, bytes.size() - 9);
  std::uniform_int_distribution<int> value(0, 255);
  int refused = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::string bad = bytes;
    const int edits = 1 + trial % 3;
    for (int e = 0; e < edits; ++e) bad[where(random)] = static_cast<char>(value(random));
    const Result<WorldState> r = decode(resealed(bad));
    if (!r.ok()) {
      ++refused;
      EXPECT_EQ(r.error().message.rfind("snapshot: ", 0), 0u);
      continue;
    }
    World w = World::create().value();
    w.restore(r.value());
    w.step();
  }
  // Most edits land in numbers, which any value may take; the rest are caught.
  EXPECT_GT(refused, 0);
}

TEST(SnapshotBytes, AnEmptyWorldRoundTrips) {
  World w = World::create().value();
  const Result<WorldState> r = decode(encode(w.save()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  World b = World::create().value();
  b.restore(r.value());
  EXPECT_EQ(b.body_count(), 0u);
  EXPECT_EQ(b.settings().dt, w.settings().dt);
}
