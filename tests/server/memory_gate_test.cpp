// The server's memory limit (server/host/memory_gate.hpp): claims against a
// resident set the test sets, and a hosted world whose growing changes ask
// for room and are refused whole, changing nothing.
#include "host/memory_gate.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "host/hosted_world.hpp"

namespace linkage::server {
namespace {

constexpr std::uint64_t MiB = 1 << 20;

// A gate whose resident set is whatever `resident` holds.
std::shared_ptr<MemoryGate> gate(std::uint64_t max, std::shared_ptr<std::uint64_t> resident) {
  return std::make_shared<MemoryGate>(max, [resident] { return *resident; });
}

TEST(MemoryGate, GrantsWhatFitsBesideTheResidentSetAndTheClaims) {
  auto resident = std::make_shared<std::uint64_t>(100 * MiB);
  auto g = gate(300 * MiB, resident);
  std::uint64_t a = 0, b = 0;
  EXPECT_TRUE(g->claim(150 * MiB, a).ok());
  EXPECT_EQ(a, 150 * MiB);
  const Status refused = g->claim(51 * MiB, b);  // 100 + 150 + 51 > 300
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::resource_exhausted);
  EXPECT_EQ(b, 0u) << "a refused claim claims nothing";
  EXPECT_TRUE(g->claim(50 * MiB, b).ok());
  EXPECT_EQ(g->counts().claimed, 200 * MiB);
  EXPECT_EQ(g->counts().refused, 1u);
  // The first world steps: what it claimed is now resident.
  *resident += 150 * MiB;
  g->settle(a);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(g->counts().claimed, 50 * MiB);
  std::uint64_t c = 0;
  EXPECT_FALSE(g->claim(1 * MiB, c).ok()) << "250 resident + 50 claimed: full";
  *resident -= 150 * MiB;  // a world deleted, its memory given back
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a reading serves the claims of 2 ms
  EXPECT_TRUE(g->claim(1 * MiB, c).ok());
}

TEST(MemoryGate, NoLimitGrantsAnything) {
  auto g = gate(0, std::make_shared<std::uint64_t>(std::uint64_t{1} << 40));
  std::uint64_t a = 0;
  EXPECT_TRUE(g->claim(std::uint64_t{1} << 40, a).ok());
}

TEST(MemoryGate, ARefusalSaysWhatIsHeldAndWhatToDo) {
  auto g = gate(384 * MiB, std::make_shared<std::uint64_t>(300 * MiB));
  std::uint64_t a = 0, b = 0;
  ASSERT_TRUE(g->claim(40 * MiB, a).ok());
  const Status refused = g->claim(100 * MiB, b);
  ASSERT_FALSE(refused.ok());
  const std::string& why = refused.error().message;
  EXPECT_NE(why.find("limit of 384 MiB (--max-memory)"), std::string::npos) << why;
  EXPECT_NE(why.find("it holds 300 MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("expected to take 40 MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("this change about 100 MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("Delete worlds"), std::string::npos) << why;
}

TEST(MemoryGate, TheDefaultIsThreeQuartersOfWhatTheProcessMayUse) {
  const std::uint64_t limit = MemoryGate::default_limit();
  EXPECT_GT(limit, 0u);
  EXPECT_GT(MemoryGate::resident_bytes(), 0u);
  EXPECT_LT(MemoryGate::resident_bytes(), limit);
}

// A cgroup tree in a temporary directory: each file's first line.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("memory_gate_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << "\n";
  }
  std::string root() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

TEST_F(CgroupTree, V2TakesTheLeastLimitOfTheGroupAndItsParents) {
  write("memory.max", "max");  // the root: none
  write("system.slice/memory.max", "2147483648");
  write("system.slice/linkaged.service/memory.max", "536870912");
  EXPECT_EQ(cgroup_memory_limit("0::/system.slice/linkaged.service\n", root()), 536870912u);
  write("system.slice/linkaged.service/memory.max", "max");
  EXPECT_EQ(cgroup_memory_limit("0::/system.slice/linkaged.service\n", root()), 2147483648u);
  // A container: its own group at the root.
  write("memory.max", "402653184");
  EXPECT_EQ(cgroup_memory_limit("0::/\n", root()), 402653184u);
}

TEST_F(CgroupTree, V1ReadsTheMemoryControllersGroup) {
  write("memory/memory.limit_in_bytes", "9223372036854771712");  // unlimited
  write("memory/jobs/a/memory.limit_in_bytes", "314572800");
  const std::string groups = "12:cpu,cpuacct:/jobs/a\n4:memory:/jobs/a\n1:name=systemd:/\n";
  EXPECT_EQ(cgroup_memory_limit(groups, root()), 314572800u);
  EXPECT_EQ(cgroup_memory_limit("4:cpuset,memory:/jobs/a\n", root()), 314572800u);
  EXPECT_EQ(cgroup_memory_limit("4:cpu:/jobs/a\n", root()), 0u) << "not the memory controller";
}

TEST_F(CgroupTree, NoFilesNoLimit) {
  EXPECT_EQ(cgroup_memory_limit("0::/nowhere\n", root()), 0u);
  EXPECT_EQ(cgroup_memory_limit("", root()), 0u);
  EXPECT_EQ(cgroup_memory_limit("garbage", root()), 0u);
}

TEST(MemoryClaim, IsGivenBackWhenItsWorldGoesAndNotCopied) {
  auto g = gate(100 * MiB, std::make_shared<std::uint64_t>(0));
  {
    MemoryClaim claim;
    claim.govern(g);
    ASSERT_TRUE(claim.claim(60 * MiB).ok());
    MemoryClaim copy(claim);
    EXPECT_EQ(copy.claimed(), 0u);
    EXPECT_TRUE(copy.claim(90 * MiB).ok()) << "a copy is not governed";
    MemoryClaim moved(std::move(claim));
    EXPECT_EQ(moved.claimed(), 60 * MiB);
    EXPECT_EQ(g->counts().claimed, 60 * MiB);
  }
  EXPECT_EQ(g->counts().claimed, 0u);
}

// --- a hosted world under a gate ---

v1::BodyDef particle(const std::string& name) {
  v1::BodyDef b;
  b.set_name(name);
  b.set_mass(1.0);
  return b;
}

// A world of ten particles, p0 to p9, under no gate yet.
HostedWorld ten_particles() {
  HostedWorld w(World::create().value());
  Repeated<v1::Id> ids;
  Repeated<v1::BodyDef> ten;
  for (int i = 0; i < 10; ++i) *ten.Add() = particle("p" + std::to_string(i));
  EXPECT_TRUE(w.create_bodies(ten, &ids).ok());
  return w;
}

TEST(HostedWorldMemory, AGrowingChangeIsRefusedWholeAndAStepSettles) {
  auto resident = std::make_shared<std::uint64_t>(0);
  HostedWorld w = ten_particles();
  Repeated<v1::Id> ids;
  const std::uint64_t footprint = w.footprint().bytes();
  // Room for a few more bodies' claims, not for a hundred.
  auto g = gate(40 * Footprint::body(BodyDef{}, 4, 2) * MemoryGate::kBytesPerFootprintByte, resident);
  w.govern_memory(g);
  Repeated<v1::BodyDef> hundred;
  for (int i = 0; i < 100; ++i) *hundred.Add() = particle("q" + std::to_string(i));
  ids.Clear();
  const Status refused = w.create_bodies(hundred, &ids);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::resource_exhausted);
  EXPECT_NE(refused.error().message.find("--max-memory"), std::string::npos) << refused.error().message;
  EXPECT_EQ(w.core().body_count(), 10u);
  EXPECT_EQ(w.footprint().bytes(), footprint);
  EXPECT_EQ(g->counts().claimed, 0u) << "the bodies before the refused one gave their claims back";
  // So does a batch refused for another reason (a name taken twice).
  Repeated<v1::BodyDef> twice;
  *twice.Add() = particle("dup");
  *twice.Add() = particle("dup");
  EXPECT_FALSE(w.create_bodies(twice, &ids).ok());
  EXPECT_EQ(g->counts().claimed, 0u);
  EXPECT_FALSE(w.find_body([] { v1::BodyRef r; r.set_name("q0"); return r; }()).ok());
  // A few fit; the world's claim lasts until it steps.
  Repeated<v1::BodyDef> three;
  for (int i = 0; i < 3; ++i) *three.Add() = particle("r" + std::to_string(i));
  ASSERT_TRUE(w.create_bodies(three, &ids).ok());
  EXPECT_GT(g->counts().claimed, 0u);
  w.step();
  EXPECT_EQ(g->counts().claimed, 0u);
  // Removing never asks.
  *resident = std::uint64_t{1} << 40;
  v1::BodyRef r0;
  r0.set_name("r0");
  EXPECT_TRUE(w.remove_body(r0).ok());
  EXPECT_FALSE(w.create_body(particle("s")).ok());
}

TEST(HostedWorldMemory, NewSettingsClaimTheWholeWorldNewLimitsNothing) {
  auto resident = std::make_shared<std::uint64_t>(0);
  HostedWorld w = ten_particles();
  auto g = gate(w.footprint().bytes() * MemoryGate::kBytesPerFootprintByte / 2, resident);
  w.govern_memory(g);
  Limits limits = w.limits();
  limits.max_error = 1.0;
  EXPECT_TRUE(w.update(w.core().settings(), limits).ok()) << "the same settings claim nothing";
  WorldSettings other = w.core().settings();
  other.solver = LinearSolver::conjugate_gradient;
  const Status refused = w.update(other, limits);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::resource_exhausted);
  EXPECT_EQ(w.core().settings().solver, LinearSolver::ldlt) << "refused settings change nothing";
}

}  // namespace
}  // namespace linkage::server
