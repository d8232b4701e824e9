// The real linkaged with a data directory (--data-dir): a running world
// takes commands from a client and the server is killed (SIGKILL) at a
// random moment; restarted, the world must be bit-identical (state hash) to
// an uninterrupted run of every acknowledged command at its tick, taken on
// the same server in a paused world stepped by hand. Then the same with the
// journal's last record torn and with the newest checkpoint corrupted; and
// SIGTERM's checkpoint, a world beyond repair beside one that restores,
// fork (now, and at a recorded tick), replay to a tick, and deletion; a
// fork whose replay outlives its caller, and forks beyond the server's
// replays at once. ~20 s together.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "child.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

namespace fs = std::filesystem;

struct DataDir {
  std::string path;
  DataDir() {
    path = (fs::temp_directory_path() / ("linkage-durability-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(path);
  }
  ~DataDir() { fs::remove_all(path); }
  std::string world(const std::string& name) const { return path + "/worlds/" + name; }
};

// linkaged on a port of its own with the data directory; a checkpoint every
// 15 ticks of a 60 Hz world, so that every run crosses several.
struct Server {
  explicit Server(const DataDir& data, const std::string& checkpoint_seconds = "0.25")
      : port(free_port()),
        target("127.0.0.1:" + std::to_string(port)),
        child({LINKAGED, "--listen", target, "--log-level", "warn", "--data-dir", data.path, "--checkpoint-seconds",
               checkpoint_seconds, "--keep-checkpoints", "3"}) {
    EXPECT_TRUE(wait_until_serving(child, target, 10s)) << "linkaged did not start";
  }
  void kill_now() {
    ASSERT_EQ(::kill(child.pid(), SIGKILL), 0);
    ASSERT_TRUE(child.wait(5s).has_value());
  }
  int port;
  std::string target;
  Child child;
};

// The newest file of a world's directory whose name starts with `prefix`.
std::string newest(const std::string& dir, const std::string& prefix) {
  std::string best;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.find('.') == std::string::npos && name > best) best = name;
  }
  return dir + "/" + best;
}

// A batch the world acknowledged, and the tick it applied at.
struct Acked {
  std::uint64_t tick;
  v1::ApplyBatchRequest batch;
};

// A running 12-link chain hanging on `c`, kicked and pushed at random for ~0.6 to
// 1.6 s; every acknowledged batch, in order.
std::vector<Acked> run_world(Client& c, const std::string& world, std::mt19937& rng) {
  std::vector<Acked> acked;
  v1::CreateWorldRequest create;
  create.set_name(world);
  c.create_world(create);
  auto send = [&](v1::ApplyBatchRequest batch) {
    batch.set_world(world);
    const v1::ApplyBatchResponse r = c.apply_batch(batch);
    acked.push_back({r.tick(), std::move(batch)});
  };
  send(chain_batch(world, 12, 0.1, 0.0, -1.0));  // hanging at rest
  std::uniform_int_distribution<int> link(1, 12), pause_ms(10, 80), commands(20, 50);
  std::uniform_real_distribution<double> push(-0.05, 0.05);
  const int n = commands(rng);
  for (int i = 0; i < n; ++i) {
    v1::ApplyBatchRequest batch;
    v1::Impulse* kick = batch.add_commands()->mutable_apply_impulse();
    kick->mutable_body()->set_name("link-" + std::to_string(link(rng)));
    *kick->mutable_impulse() = vec(push(rng), push(rng));
    if (i % 5 == 0) {
      v1::AppliedForce* f = batch.add_commands()->mutable_add_force()->mutable_applied();
      f->mutable_body()->set_name("link-" + std::to_string(link(rng)));
      *f->mutable_force() = vec(push(rng) * 10, push(rng) * 10);
      f->set_ticks(7);
    }
    send(std::move(batch));
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
  }
  return acked;
}

// The state hash of a paused world `name` on `c` taken through `acked` at
// their ticks and stepped on to `tick`.
std::uint64_t reference_hash(Client& c, const std::string& name, const std::vector<Acked>& acked, std::uint64_t tick) {
  v1::CreateWorldRequest create;
  create.set_name(name);
  create.set_paused(true);
  c.create_world(create);
  std::uint64_t now = 0;
  auto step_to = [&](std::uint64_t t) {
    if (t > now) now = c.step(name, static_cast<std::uint32_t>(t - now)).tick();
    EXPECT_EQ(now, t);
  };
  for (const Acked& a : acked) {
    step_to(a.tick);
    v1::ApplyBatchRequest batch = a.batch;
    batch.set_world(name);
    EXPECT_EQ(c.apply_batch(batch).tick(), a.tick);
  }
  step_to(tick);
  return c.get_world(name).state_hash();
}

enum class Damage { none, torn_journal, corrupt_checkpoint };

void crash_and_restore(Damage damage) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  DataDir data;
  std::vector<Acked> acked;
  {
    Server first(data);
    Client c(first.target);
    acked = run_world(c, "crash", rng);
    // Killed a random while after the last answer: at a random tick.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 300)(rng)));
    first.kill_now();
  }
  const std::string dir = data.world("crash");
  std::string damaged;
  if (damage == Damage::torn_journal) {
    damaged = newest(dir, "journal-");
    fs::resize_file(damaged, fs::file_size(damaged) - 3);  // the last tick's marker, torn
  } else if (damage == Damage::corrupt_checkpoint) {
    damaged = newest(dir, "checkpoint-");
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(damaged) / 2));
    f.put('\x5a');
  }
  Server second(data);
  Client c(second.target);
  // It runs on from where it was: paused, it holds a tick to compare at.
  v1::PauseRequest pause;
  pause.set_world("crash");
  v1::PauseResponse paused;
  ASSERT_TRUE(c.worlds->Pause(context().get(), pause, &paused).ok());
  const std::uint64_t tick = paused.world().tick();
  ASSERT_GE(tick, acked.back().tick) << "the restored world is behind the last acknowledged command";
  EXPECT_EQ(paused.world().body_count(), 12u);
  EXPECT_EQ(paused.world().state_hash(), reference_hash(c, "reference", acked, tick))
      << "restored at tick " << tick << " differs from the uninterrupted run";
  if (damage == Damage::corrupt_checkpoint)
    EXPECT_TRUE(fs::exists(damaged + ".unused")) << "the corrupt checkpoint was not set aside";
}

TEST(Durability, AWorldKilledAtARandomTickComesBackBitIdentical) { crash_and_restore(Damage::none); }

TEST(Durability, ATornJournalTailRestoresToTheLastGoodRecord) { crash_and_restore(Damage::torn_journal); }

TEST(Durability, ACorruptCheckpointRestoresFromTheOneBefore) { crash_and_restore(Damage::corrupt_checkpoint); }

// linkaged replay's report for `dir` at `tick`.
std::string replay_output(const std::string& dir, std::uint64_t tick) {
  const std::string command = std::string(LINKAGED) + " replay " + dir + " --to-tick " + std::to_string(tick) + " 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, p)) out += buffer;
  ::pclose(p);
  return out;
}

std::string hex(std::uint64_t x) {
  char text[32];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(x));
  return text;
}

TEST(Durability, SigtermCheckpointsAndAWorldBeyondRepairLeavesTheOthers) {
  DataDir data;
  v1::World kept;
  {
    Server first(data);
    Client c(first.target);
    for (const char* name : {"kept", "broken"}) {
      create_hanging_chain(c, name, 5, 60);
      c.step(name, 20);
    }
    kept = c.get_world("kept");
    ASSERT_EQ(::kill(first.child.pid(), SIGTERM), 0);
    const std::optional<int> status = first.child.wait(10s);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  }
  // A checkpoint at the stop: the world's state at its last tick, in full.
  EXPECT_NE(replay_output(data.world("kept"), kept.tick()).find("state hash " + hex(kept.state_hash())),
            std::string::npos);
  // Every checkpoint of one world corrupt: it cannot come back; the other does.
  for (const auto& e : fs::directory_iterator(data.world("broken")))
    if (e.path().filename().string().rfind("checkpoint-", 0) == 0) fs::resize_file(e.path(), 20);
  Server second(data);
  Client c(second.target);
  const v1::World back = c.get_world("kept");
  EXPECT_EQ(back.tick(), kept.tick());
  EXPECT_EQ(back.state_hash(), kept.state_hash());
  EXPECT_TRUE(back.paused());
  v1::GetWorldRequest get;
  get.set_world("broken");
  v1::GetWorldResponse gone;
  EXPECT_EQ(c.worlds->GetWorld(context().get(), get, &gone).error_code(), grpc::StatusCode::NOT_FOUND);
  bool set_aside = false;
  for (const auto& e : fs::directory_iterator(data.path + "/worlds"))
    set_aside |= e.path().filename().string().rfind("%damaged-broken-", 0) == 0;
  EXPECT_TRUE(set_aside) << "the broken world's files were not kept aside";
}

TEST(Durability, ForkReplayAndDelete) {
  DataDir data;
  Server server(data);
  Client c(server.target);
  std::mt19937 rng(7);
  run_world(c, "source", rng);
  v1::PauseRequest pause;
  pause.set_world("source");
  v1::PauseResponse paused;
  ASSERT_TRUE(c.worlds->Pause(context().get(), pause, &paused).ok());
  // A tick and its hash, then more ticks: the copy comes from the files.
  const v1::World seen = c.step("source", 10);
  const v1::World last = c.step("source", 20);
  ASSERT_NE(seen.state_hash(), 0u);

  v1::ForkWorldRequest fork;
  fork.set_world("source");
  fork.set_name("then");
  fork.set_tick(seen.tick());
  v1::ForkWorldResponse then;
  grpc::Status s = c.worlds->ForkWorld(context().get(), fork, &then);
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_TRUE(then.world().paused());
  EXPECT_EQ(then.world().tick(), seen.tick());
  EXPECT_EQ(then.world().state_hash(), seen.state_hash());
  EXPECT_NE(replay_output(data.world("source"), seen.tick()).find("state hash " + hex(seen.state_hash())),
            std::string::npos);

  // Now: the paused source and its copy are the same, bit for bit.
  fork.clear_tick();
  fork.set_name("now");
  v1::ForkWorldResponse now;
  ASSERT_TRUE(c.worlds->ForkWorld(context().get(), fork, &now).ok());
  EXPECT_EQ(now.world().tick(), last.tick());
  EXPECT_EQ(now.world().state_hash(), last.state_hash());

  // A tick the files do not reach, and a name in use.
  fork.set_name("future");
  fork.set_tick(last.tick() + 1000);
  s = c.worlds->ForkWorld(context().get(), fork, &now);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status_text(s);
  fork.clear_tick();
  fork.set_name("then");
  s = c.worlds->ForkWorld(context().get(), fork, &now);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status_text(s);

  // Deleted: its directory goes at once, and a restart does not bring it back.
  v1::DeleteWorldRequest del;
  del.set_world("then");
  v1::DeleteWorldResponse deleted;
  ASSERT_TRUE(c.worlds->DeleteWorld(context().get(), del, &deleted).ok());
  EXPECT_FALSE(fs::exists(data.world("then")));
  EXPECT_TRUE(fs::exists(data.world("now")));
}

// A fork at a past tick replays the recording from the checkpoint before it,
// stepping the world as long as it once took: here ten ticks of a tenth of
// a second each (a 100-link chain solved by Gauss–Seidel to 1e-15, which
// runs all of its 10,000 sweeps). Replays run off gRPC's threads, two at a
// time, and stop with their call.
TEST(Durability, AForkReplaysOnlyWhileItsCallerWaits) {
  DataDir data;
  Server server(data, "3600");  // one checkpoint, where the world begins
  Client c(server.target);
  create_hanging_chain(c, "heavy", 100, 60);
  v1::UpdateWorldRequest heavy;
  heavy.set_world("heavy");
  heavy.mutable_settings()->set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
  heavy.mutable_settings()->set_solver_tolerance(1e-15);
  heavy.mutable_settings()->set_solver_max_iterations(10000);
  v1::UpdateWorldResponse updated;
  ASSERT_TRUE(c.worlds->UpdateWorld(context().get(), heavy, &updated).ok());
  const auto began = std::chrono::steady_clock::now();
  const v1::World seen = c.step("heavy", 10);
  const auto replay_time = std::chrono::steady_clock::now() - began;
  ASSERT_GT(replay_time, 300ms) << "the world is not heavy enough for this test";

  auto fork = [&](const std::string& name, std::chrono::milliseconds deadline, v1::ForkWorldResponse* out) {
    v1::ForkWorldRequest req;
    req.set_world("heavy");
    req.set_name(name);
    req.set_tick(seen.tick());
    return c.worlds->ForkWorld(context(deadline).get(), req, out);
  };
  auto exists = [&](const std::string& name) {
    v1::GetWorldRequest req;
    req.set_world(name);
    v1::GetWorldResponse resp;
    return c.worlds->GetWorld(context().get(), req, &resp).error_code() != grpc::StatusCode::NOT_FOUND;
  };

  // The caller gives up long before the replay would end: it stops, and
  // makes no world. Another fork started after it, replaying as far, ends
  // after it would have.
  v1::ForkWorldResponse late;
  grpc::Status s = fork("late", 100ms, &late);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status_text(s);
  v1::ForkWorldResponse after;
  s = fork("after", 30s, &after);
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(after.world().state_hash(), seen.state_hash());
  EXPECT_FALSE(exists("late")) << "the replay of a fork whose caller gave up went on and made its world";

  // Two replays at once; a third call meanwhile is refused and says why.
  v1::ForkWorldResponse first, second;
  grpc::Status first_status, second_status;
  std::thread a([&] { first_status = fork("first", 30s, &first); });
  std::thread b([&] { second_status = fork("second", 30s, &second); });
  std::this_thread::sleep_for(std::chrono::duration_cast<std::chrono::milliseconds>(replay_time / 3));
  v1::ForkWorldResponse third;
  s = fork("third", 30s, &third);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("2 forks at a past tick are replaying"), std::string::npos) << status_text(s);
  a.join();
  b.join();
  ASSERT_TRUE(first_status.ok()) << status_text(first_status);
  ASSERT_TRUE(second_status.ok()) << status_text(second_status);
  EXPECT_EQ(first.world().state_hash(), seen.state_hash());
  EXPECT_EQ(second.world().state_hash(), seen.state_hash());
  EXPECT_FALSE(exists("third"));
}

}  // namespace
}  // namespace linkage::itest
