// SLOW (~15 s): issue 12, cases 1, 2, 3, 7 and 13: nothing a client sends
// holds a world or the server. Each test watches the server meanwhile
// (Vitals: ListWorlds and the health check answer within 1 s throughout, and
// a steady world keeps 60 Hz) and asserts the new status.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "support.hpp"
#include "vitals.hpp"

namespace linkage::itest {
namespace {

using Clock = std::chrono::steady_clock;

v1::StepRequest step_request(const std::string& world, std::uint32_t ticks) {
  v1::StepRequest req;
  req.set_world(world);
  req.set_ticks(ticks);
  return req;
}

grpc::Status update_world(Client& c, const v1::UpdateWorldRequest& req) {
  v1::UpdateWorldResponse resp;
  return c.worlds->UpdateWorld(context().get(), req, &resp);
}

// A paused 100-link chain solved by Gauss–Seidel to 1e-15, which never
// converges: every solve runs the server's 10000 sweeps, four times a step
// (RK4): a step takes about a tenth of a second, six periods (more links,
// longer).
void create_heavy_world(Client& c, const std::string& name, int links = 100) {
  create_hanging_chain(c, name, links, 60);
  v1::UpdateWorldRequest heavy;
  heavy.set_world(name);
  heavy.mutable_settings()->set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
  heavy.mutable_settings()->set_solver_tolerance(1e-15);
  heavy.mutable_settings()->set_solver_max_iterations(10000);
  ASSERT_TRUE(update_world(c, heavy).ok());
}

grpc::Status resume(Client& c, const std::string& world) {
  v1::ResumeRequest req;
  req.set_world(world);
  v1::ResumeResponse resp;
  return c.worlds->Resume(context().get(), req, &resp);
}

grpc::Status delete_world(Client& c, const std::string& world) {
  v1::DeleteWorldRequest req;
  req.set_world(world);
  v1::DeleteWorldResponse resp;
  return c.worlds->DeleteWorld(context().get(), req, &resp);
}

// GetWorld until `done` holds (every answer within 1 s), for at most `timeout`.
v1::World wait_for_world(Client& c, const std::string& world, const std::function<bool(const v1::World&)>& done,
                         std::chrono::milliseconds timeout) {
  const auto until = Clock::now() + timeout;
  v1::World w;
  do {
    const auto asked = Clock::now();
    w = c.get_world(world);
    EXPECT_LT(Clock::now() - asked, 1s) << "GetWorld " << world << " took a second or more";
    if (done(w)) return w;
    std::this_thread::sleep_for(50ms);
  } while (Clock::now() < until);
  ADD_FAILURE() << "world " << world << " did not get there within " << timeout.count() << " ms: "
                << w.ShortDebugString();
  return w;
}

void expect_status(const grpc::Status& s, grpc::StatusCode code, const std::vector<std::string>& words) {
  EXPECT_EQ(s.error_code(), code) << status_text(s);
  for (const std::string& w : words) EXPECT_NE(s.error_message().find(w), std::string::npos) << status_text(s);
}

// --- case 1: a Step cannot hold a world ---

// A paused world with a 200-link chain asked for a million ticks with a 2 s
// deadline: it answers before the deadline with the ticks done, serves
// other calls and commands between its ticks, and steps no further.
TEST(Wedge, AStepAnswersBeforeItsDeadlineWithTheTicksDone) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  create_steady_world(a, "steady");
  create_hanging_chain(a, "long", 200, 60);
  Vitals vitals(server.target(), "steady");

  v1::StepResponse stepped;
  grpc::Status status;
  const auto sent = Clock::now();
  Clock::duration answered{};
  std::thread caller([&] {
    status = a.worlds->Step(context(2s).get(), step_request("long", 1000000), &stepped);
    answered = Clock::now() - sent;
  });
  std::this_thread::sleep_for(300ms);
  std::uint64_t seen = 0;
  for (int i = 0; i < 5; ++i) {
    const v1::World w = wait_for_world(b, "long", [](const v1::World&) { return true; }, 1s);
    EXPECT_GT(w.tick(), seen) << "the world is not stepping";
    seen = w.tick();
    v1::CreateBodyRequest create;
    create.set_world("long");
    *create.mutable_body() = particle("extra-" + std::to_string(i), 5, 5);
    v1::CreateBodyResponse created;
    const auto asked = Clock::now();
    EXPECT_TRUE(b.bodies->CreateBody(context(1s).get(), create, &created).ok()) << "a command between the ticks";
    EXPECT_LT(Clock::now() - asked, 1s);
    std::this_thread::sleep_for(200ms);
  }
  // One Step at a time.
  v1::StepResponse second;
  expect_status(b.worlds->Step(context().get(), step_request("long", 1), &second),
                grpc::StatusCode::FAILED_PRECONDITION, {"already stepping"});
  caller.join();

  ASSERT_TRUE(status.ok()) << status_text(status);
  EXPECT_LT(answered, 2s) << "answered after the deadline";
  EXPECT_GT(answered, 1500ms) << "ended long before the deadline";
  EXPECT_EQ(stepped.ended(), v1::STEP_END_DEADLINE);
  EXPECT_GT(stepped.ticks(), seen);
  EXPECT_LT(stepped.ticks(), 1000000u);
  EXPECT_EQ(stepped.world().tick(), stepped.ticks());  // the world was at tick 0
  EXPECT_EQ(stepped.world().body_count(), 205u);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(b.get_world("long").tick(), stepped.ticks()) << "the world stepped on after its Step ended";
  std::printf("Step of 10^6 ticks with a 2 s deadline: %u ticks, answered after %.3f s\n", stepped.ticks(),
              std::chrono::duration<double>(answered).count());
  expect_healthy(vitals);
}

// A cancelled Step stops the world's ticks at once; a deleted world ends its
// Step with UNAVAILABLE and DeleteWorld answers at once; Resume ends a Step.
TEST(Wedge, AStepEndsWhenCancelledDeletedOrResumed) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  create_steady_world(a, "steady");
  Vitals vitals(server.target(), "steady");

  // Cancelled.
  create_hanging_chain(a, "cancelled", 200, 60);
  {
    auto ctx = context(60s);
    v1::StepResponse resp;
    grpc::Status status;
    std::thread caller([&] { status = a.worlds->Step(ctx.get(), step_request("cancelled", 1000000), &resp); });
    std::this_thread::sleep_for(300ms);
    ctx->TryCancel();
    caller.join();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status_text(status);
    std::this_thread::sleep_for(50ms);  // the tick under way, if any
    const std::uint64_t stopped_at = b.get_world("cancelled").tick();
    EXPECT_GT(stopped_at, 0u);
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(b.get_world("cancelled").tick(), stopped_at) << "the world stepped on after its Step was cancelled";
  }
  // Deleted.
  create_hanging_chain(a, "deleted", 200, 60);
  {
    v1::StepResponse resp;
    grpc::Status status;
    Clock::time_point ended;
    std::thread caller([&] {
      status = a.worlds->Step(context(60s).get(), step_request("deleted", 1000000), &resp);
      ended = Clock::now();
    });
    std::this_thread::sleep_for(300ms);
    const auto asked = Clock::now();
    ASSERT_TRUE(delete_world(b, "deleted").ok());
    EXPECT_LT(Clock::now() - asked, 1s) << "DeleteWorld waited";
    caller.join();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status_text(status);
    EXPECT_LT(ended - asked, 1s);
    v1::ListWorldsResponse listed;
    ASSERT_TRUE(b.worlds->ListWorlds(context().get(), {}, &listed).ok());
    for (const v1::World& w : listed.worlds()) EXPECT_NE(w.name(), "deleted");
  }
  // Resumed.
  create_hanging_chain(a, "resumed", 200, 60);
  {
    v1::StepResponse resp;
    grpc::Status status;
    std::thread caller([&] { status = a.worlds->Step(context(60s).get(), step_request("resumed", 1000000), &resp); });
    std::this_thread::sleep_for(300ms);
    ASSERT_TRUE(resume(b, "resumed").ok());
    caller.join();
    ASSERT_TRUE(status.ok()) << status_text(status);
    EXPECT_EQ(resp.ended(), v1::STEP_END_RESUMED);
    EXPECT_GT(resp.ticks(), 0u);
    EXPECT_FALSE(resp.world().paused());
  }
  expect_healthy(vitals);
}

// --- case 2: settings that would hang a world ---

// The settings are refused naming the field, and change nothing.
TEST(Wedge, SettingsThatWouldSpinForeverAreRefused) {
  InProcessServer server;
  Client c(server.target());
  create_steady_world(c, "steady");
  Vitals vitals(server.target(), "steady");
  const v1::World before = c.get_world("steady");

  struct Case {
    std::function<void(v1::WorldSettings&)> set;
    std::vector<std::string> words;
  };
  const Case cases[] = {
      {[](v1::WorldSettings& s) {
         s.set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
         s.set_solver_tolerance(1e-300);
         s.set_solver_max_iterations(INT_MAX);
       },
       {"settings.solver_tolerance", "1e-15", "1e-300"}},
      {[](v1::WorldSettings& s) {
         s.set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
         s.set_solver_max_iterations(INT_MAX);
       },
       {"settings.solver_max_iterations"}},
      {[](v1::WorldSettings& s) { s.set_solver_max_iterations(10001); },
       {"settings.solver_max_iterations", "10000", "--max-iterations"}},
      {[](v1::WorldSettings& s) {
         s.set_project_positions(true);
         s.set_projection_tolerance(1e-300);
       },
       {"settings.projection_tolerance", "1e-15"}},
      {[](v1::WorldSettings& s) { s.set_projection_max_iterations(INT_MAX); }, {"settings.projection_max_iterations"}},
      {[](v1::WorldSettings& s) { s.set_velocity_iterations(10001); }, {"settings.velocity_iterations"}},
  };
  for (const Case& k : cases) {
    v1::UpdateWorldRequest update;
    update.set_world("steady");
    k.set(*update.mutable_settings());
    expect_status(update_world(c, update), grpc::StatusCode::INVALID_ARGUMENT, k.words);
    v1::CreateWorldRequest create;
    create.set_name("refused");
    *create.mutable_settings() = update.settings();
    v1::CreateWorldResponse created;
    expect_status(c.worlds->CreateWorld(context().get(), create, &created), grpc::StatusCode::INVALID_ARGUMENT,
                  k.words);
  }
  const v1::World after = c.get_world("steady");
  EXPECT_EQ(after.settings().SerializeAsString(), before.settings().SerializeAsString());
  std::this_thread::sleep_for(500ms);
  expect_healthy(vitals);
}

// The most a server allows can still make steps slower than the world's
// period; the watchdog pauses such a world, says why, and everything else
// goes on: the world answers meanwhile, and the update that undoes it works.
TEST(Wedge, TheWatchdogPausesAWorldWhoseStepsOverrun) {
  ServerOptions options;
  // 20 ticks of 2 periods: a streak, not one step as long as it (0.67 s).
  options.limits.world.watchdog = {.factor = 2.0, .ticks = 20};
  InProcessServer server(options);
  Client c(server.target());
  create_steady_world(c, "steady");
  create_heavy_world(c, "heavy");
  Vitals vitals(server.target(), "steady");
  ASSERT_TRUE(resume(c, "heavy").ok());

  const v1::World halted =
      wait_for_world(c, "heavy", [](const v1::World& w) { return w.halt().reason() != v1::HALT_REASON_UNSPECIFIED; }, 15s);
  EXPECT_TRUE(halted.paused());
  EXPECT_EQ(halted.halt().reason(), v1::HALT_REASON_WATCHDOG);
  EXPECT_EQ(halted.watchdog_halts(), 1u);
  EXPECT_EQ(halted.halt().tick(), halted.tick());
  EXPECT_GE(halted.tick(), 20u);
  EXPECT_GT(halted.step_seconds(), 2.0 / 60.0);
  EXPECT_NE(halted.halt().message().find("20 steps in a row"), std::string::npos) << halted.halt().message();
  std::printf("watchdog: %s (step %.3f s)\n", halted.halt().message().c_str(), halted.step_seconds());
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(c.get_world("heavy").tick(), halted.tick()) << "a halted world stepped on";

  // The update that undoes it reaches the world at once, and it runs again.
  v1::UpdateWorldRequest undo;
  undo.set_world("heavy");
  undo.mutable_settings()->set_solver(v1::LINEAR_SOLVER_LDLT);
  const auto asked = Clock::now();
  ASSERT_TRUE(update_world(c, undo).ok());
  ASSERT_TRUE(resume(c, "heavy").ok());
  EXPECT_LT(Clock::now() - asked, 1s);
  const v1::World running = c.get_world("heavy");
  EXPECT_FALSE(running.has_halt());
  EXPECT_FALSE(running.paused());
  wait_for_world(c, "heavy", [&](const v1::World& w) { return w.tick() >= running.tick() + 30; }, 3s);
  expect_healthy(vitals);
}

// One step as long as a whole streak (a step of minutes: an exact solve of
// a pile) pauses its world after that step, not after `ticks` of them.
TEST(Wedge, TheWatchdogPausesAWorldAfterOneStepAsLongAsAStreak) {
  ServerOptions options;
  // 3 ticks of 1 period: a step of 3 periods (50 ms) is as long as the
  // streak; the heavy chain's take about 100 ms.
  options.limits.world.watchdog = {.factor = 1.0, .ticks = 3};
  InProcessServer server(options);
  Client c(server.target());
  create_heavy_world(c, "heavy");
  const std::uint64_t start = c.get_world("heavy").tick();
  ASSERT_TRUE(resume(c, "heavy").ok());
  const v1::World halted =
      wait_for_world(c, "heavy", [](const v1::World& w) { return w.halt().reason() != v1::HALT_REASON_UNSPECIFIED; }, 15s);
  EXPECT_EQ(halted.halt().reason(), v1::HALT_REASON_WATCHDOG);
  EXPECT_EQ(halted.tick(), start + 1) << "paused after its first step";
  EXPECT_GE(halted.step_seconds(), 3.0 / 60.0);
  EXPECT_NE(halted.halt().message().find("its step took"), std::string::npos) << halted.halt().message();
  std::printf("watchdog: %s\n", halted.halt().message().c_str());
}

// --- case 3: tick rates ---

TEST(Wedge, TickRatesOutsideTheServersRangeAreRefusedOnEveryPath) {
  ServerOptions options;
  options.limits.settings.min_tick_rate = 1.0;
  options.limits.settings.max_tick_rate = 1000.0;
  InProcessServer server(options);
  Client c(server.target());
  create_steady_world(c, "steady");
  Vitals vitals(server.target(), "steady");
  const v1::World before = c.get_world("steady");

  for (const double rate : {1e-300, 0.5, 1000.5, 1e300}) {
    const std::vector<std::string> words = {"tick_rate", "1 to 1000 Hz", "--min-tick-rate"};
    v1::CreateWorldRequest create;
    create.set_name("refused");
    create.mutable_settings()->set_tick_rate(rate);
    v1::CreateWorldResponse created;
    grpc::Status s = c.worlds->CreateWorld(context().get(), create, &created);
    if (rate == 1e300) {  // beyond any server's range: the field's own
      expect_status(s, grpc::StatusCode::INVALID_ARGUMENT, {"settings.tick_rate"});
      continue;
    }
    expect_status(s, grpc::StatusCode::INVALID_ARGUMENT, words);
    v1::UpdateWorldRequest update;
    update.set_world("steady");
    update.mutable_settings()->set_tick_rate(rate);
    expect_status(update_world(c, update), grpc::StatusCode::INVALID_ARGUMENT, {"settings.tick_rate"});
    v1::LoadSceneRequest load;
    load.set_world("steady");
    load.mutable_scene()->mutable_settings()->set_tick_rate(rate);
    v1::LoadSceneResponse loaded;
    expect_status(c.worlds->LoadScene(context().get(), load, &loaded), grpc::StatusCode::INVALID_ARGUMENT,
                  {"scene.settings.tick_rate", "--max-tick-rate"});
  }
  EXPECT_EQ(c.get_world("steady").settings().SerializeAsString(), before.settings().SerializeAsString());
  EXPECT_EQ(c.get_world("steady").body_count(), before.body_count());
  // The bounds themselves are fine.
  for (const double rate : {1.0, 1000.0}) {
    v1::CreateWorldRequest create;
    create.set_name("rate-" + std::to_string(static_cast<int>(rate)));
    create.set_paused(true);
    create.mutable_settings()->set_tick_rate(rate);
    EXPECT_EQ(c.create_world(create).settings().tick_rate(), rate);
  }
  std::this_thread::sleep_for(700ms);
  expect_healthy(vitals);
}

// --- case 7: divergence ---

// Explicit Euler on a 1e12 N/m spring goes non-finite within a second. The
// world is put back to its last good state and paused; GetWorld, the stream
// and the log say so, a counter counts it, and the world saves as a scene
// that loads.
TEST(Wedge, ADivergedWorldIsPutBackPausedAndSaysWhy) {
  auto log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  spdlog::default_logger()->sinks().push_back(log);
  InProcessServer server;
  Client c(server.target()), watcher(server.target());
  create_steady_world(c, "steady");
  v1::CreateWorldRequest create;
  create.set_name("stiff");
  create.set_paused(true);
  create.mutable_settings()->set_integrator(v1::INTEGRATOR_EXPLICIT_EULER);
  c.create_world(create);
  v1::ApplyBatchRequest build;
  build.set_world("stiff");
  v1::BodyDef anchor = particle("anchor", 0, 0);
  anchor.set_motion(v1::MOTION_FIXED);
  *build.add_commands()->mutable_create_body() = anchor;
  *build.add_commands()->mutable_create_body() = particle("ball", 1, 0, 1.0);
  v1::Spring* spring = build.add_commands()->mutable_add_force()->mutable_spring();
  spring->mutable_a()->set_name("anchor");
  spring->mutable_b()->set_name("ball");
  spring->set_stiffness(1e12);
  spring->set_rest_length(0.5);
  c.apply_batch(build);
  Vitals vitals(server.target(), "steady");

  // A viewer: keeps the first frame that says the world halted.
  auto stream_ctx = context(20s);
  v1::StreamStateRequest watch;
  watch.set_world("stiff");
  watch.set_diagnostics(true);
  auto reader = watcher.worlds->StreamState(stream_ctx.get(), watch);
  v1::Snapshot halted_frame;
  std::thread viewer([&] {
    v1::Snapshot frame;
    while (reader->Read(&frame))
      if (frame.has_halt()) {
        halted_frame = frame;
        stream_ctx->TryCancel();
      }
  });
  ASSERT_TRUE(resume(c, "stiff").ok());
  const v1::World w = wait_for_world(c, "stiff", [](const v1::World& w) { return w.has_halt(); }, 5s);
  viewer.join();
  reader->Finish();

  EXPECT_TRUE(w.paused());
  EXPECT_EQ(w.halt().reason(), v1::HALT_REASON_DIVERGED);
  EXPECT_EQ(w.divergences(), 1u);
  EXPECT_EQ(w.halt().tick(), w.tick());
  EXPECT_LT(w.tick(), 60u) << "a 1e12 N/m spring under explicit Euler goes non-finite within a second";
  EXPECT_NE(w.halt().message().find("not finite"), std::string::npos) << w.halt().message();
  // The last good state: the tick before the one that failed.
  EXPECT_NE(w.halt().message().find("tick " + std::to_string(w.tick() + 1) + " diverged"), std::string::npos)
      << w.halt().message();
  EXPECT_NE(w.halt().message().find("put back to tick " + std::to_string(w.tick())), std::string::npos)
      << w.halt().message();
  std::printf("divergence: %s\n", w.halt().message().c_str());

  // The stream's frame: the halt, and the good state it was put back to.
  ASSERT_TRUE(halted_frame.has_halt());
  EXPECT_EQ(halted_frame.halt().reason(), v1::HALT_REASON_DIVERGED);
  EXPECT_EQ(halted_frame.tick(), w.tick());
  EXPECT_TRUE(halted_frame.paused());
  for (const double x : halted_frame.position()) EXPECT_TRUE(std::isfinite(x));
  for (const double v : halted_frame.velocity()) EXPECT_TRUE(std::isfinite(v));
  EXPECT_TRUE(std::isfinite(halted_frame.diagnostics().kinetic_energy()));

  // The log.
  bool logged = false;
  for (const std::string& line : log->last_formatted())
    logged |= line.find("'stiff'") != std::string::npos && line.find("diverged") != std::string::npos;
  EXPECT_TRUE(logged) << "no log line says the world diverged";
  spdlog::default_logger()->sinks().pop_back();

  // Its own scene loads back.
  v1::SaveSceneRequest save;
  save.set_world("stiff");
  v1::SaveSceneResponse saved;
  ASSERT_TRUE(c.worlds->SaveScene(context().get(), save, &saved).ok());
  v1::CreateWorldRequest copy;
  copy.set_name("copy");
  copy.set_paused(true);
  c.create_world(copy);
  v1::LoadSceneRequest load;
  load.set_world("copy");
  *load.mutable_scene() = saved.scene();
  v1::LoadSceneResponse loaded;
  const grpc::Status reloaded = c.worlds->LoadScene(context().get(), load, &loaded);
  EXPECT_TRUE(reloaded.ok()) << status_text(reloaded);
  EXPECT_EQ(loaded.world().body_count(), 2u);

  // Resumed as it is, it diverges again, and the counter says so.
  ASSERT_TRUE(resume(c, "stiff").ok());
  EXPECT_FALSE(c.get_world("stiff").has_halt()) << "Resume clears the halt";
  wait_for_world(c, "stiff", [](const v1::World& w) { return w.divergences() == 2; }, 5s);
  expect_healthy(vitals);
}

// A bound on the constraint error, set per world, is a divergence too; a
// Step that meets it ends there.
TEST(Wedge, AConstraintErrorAboveTheWorldsBoundIsADivergence) {
  InProcessServer server;
  Client c(server.target());
  create_steady_world(c, "steady");
  Vitals vitals(server.target(), "steady");
  // A pendulum under explicit Euler with no drift feedback: its rod stretches every step.
  v1::CreateWorldRequest create;
  create.set_name("drift");
  create.set_paused(true);
  create.mutable_settings()->set_integrator(v1::INTEGRATOR_EXPLICIT_EULER);
  create.mutable_settings()->set_feedback_stiffness(0);
  create.mutable_settings()->set_feedback_damping(0);
  c.create_world(create);
  v1::ApplyBatchRequest build;
  build.set_world("drift");
  *build.add_commands()->mutable_create_body() = particle("bob", 1, 0, 1.0);
  *build.add_commands()->mutable_add_constraint() = rod("", "bob", "rod");
  c.apply_batch(build);

  v1::UpdateWorldRequest bound;
  bound.set_world("drift");
  bound.mutable_limits()->set_max_error(-1);
  expect_status(update_world(c, bound), grpc::StatusCode::INVALID_ARGUMENT, {"limits.max_error"});
  bound.mutable_limits()->clear_max_error();
  bound.mutable_limits()->set_max_bodies(0);
  expect_status(update_world(c, bound), grpc::StatusCode::INVALID_ARGUMENT, {"limits.max_bodies"});
  v1::UpdateWorldRequest shrink;
  shrink.set_world("steady");
  shrink.mutable_limits()->set_max_bodies(5);
  expect_status(update_world(c, shrink), grpc::StatusCode::FAILED_PRECONDITION, {"limits.max_bodies", "holds 20"});
  bound.mutable_limits()->clear_max_bodies();
  bound.mutable_limits()->set_max_error(1e-3);
  ASSERT_TRUE(update_world(c, bound).ok());
  EXPECT_EQ(c.get_world("drift").limits().max_error(), 1e-3);

  v1::StepResponse stepped;
  ASSERT_TRUE(c.worlds->Step(context().get(), step_request("drift", 600), &stepped).ok());
  EXPECT_EQ(stepped.ended(), v1::STEP_END_HALTED);
  EXPECT_LT(stepped.ticks(), 600u);
  const v1::World& w = stepped.world();
  EXPECT_EQ(w.halt().reason(), v1::HALT_REASON_DIVERGED);
  EXPECT_NE(w.halt().message().find("limits.max_error"), std::string::npos) << w.halt().message();
  EXPECT_EQ(w.divergences(), 1u);
  EXPECT_EQ(w.tick(), stepped.ticks()) << "the ticks done are the ticks the world kept";
  EXPECT_NE(w.halt().message().find("diverged: the largest constraint error"), std::string::npos);
  EXPECT_NE(w.halt().message().find("put back to tick " + std::to_string(w.tick())), std::string::npos);
  std::printf("bound: %s\n", w.halt().message().c_str());
  std::this_thread::sleep_for(500ms);
  expect_healthy(vitals);
}

// --- case 13: stream rates ---

TEST(Wedge, StreamRatesBelowTheServersMinimumAreRefused) {
  ServerOptions options;
  options.limits.min_stream_rate = 1.0;
  options.limits.max_streams = 2;
  InProcessServer server(options);
  Client c(server.target());
  create_steady_world(c, "steady");
  Vitals vitals(server.target(), "steady");

  for (const double rate : {1e-300, 0.5, -1.0}) {
    auto ctx = context();
    v1::StreamStateRequest req;
    req.set_world("steady");
    req.set_rate_hz(rate);
    auto reader = c.worlds->StreamState(ctx.get(), req);
    v1::Snapshot frame;
    EXPECT_FALSE(reader->Read(&frame));
    expect_status(reader->Finish(), grpc::StatusCode::INVALID_ARGUMENT, {"rate_hz", "--min-stream-rate"});
  }
  // None of them took a stream slot (2 here); the minimum itself is honoured:
  // the first frame at once, the next a second later.
  auto ctx = context(5s);
  v1::StreamStateRequest req;
  req.set_world("steady");
  req.set_rate_hz(1.0);
  auto reader = c.worlds->StreamState(ctx.get(), req);
  int frames = 0;
  v1::Snapshot frame;
  const auto opened = Clock::now();
  while (reader->Read(&frame) && Clock::now() - opened < 1500ms) ++frames;
  ctx->TryCancel();
  while (reader->Read(&frame)) {
  }
  reader->Finish();
  EXPECT_EQ(frames, 2) << "a 1 Hz stream over 1.5 s";
  expect_healthy(vitals);
}

// --- a flood of calls cannot hold a world ---

// Sends `count` calls at once through `start(ctx, response, done)` (an
// async stub's call, `done` its callback) and waits for every answer; their
// statuses. `seen` reads each response as it comes (it is freed then).
template <class Response, class Start>
std::vector<grpc::Status> flood(int count, Start start, const std::function<void(const Response&)>& seen = {}) {
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<Response>> responses(static_cast<std::size_t>(count));
  std::vector<grpc::Status> statuses(static_cast<std::size_t>(count));
  std::mutex mutex;
  std::condition_variable answered;
  int done = 0;
  for (int i = 0; i < count; ++i) {
    const auto at = static_cast<std::size_t>(i);
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(std::chrono::system_clock::now() + 60s);
    responses[at] = std::make_unique<Response>();
    start(contexts.back().get(), responses[at].get(), std::function<void(grpc::Status)>([&, at](grpc::Status status) {
            if (seen) seen(*responses[at]);
            const std::lock_guard lock(mutex);
            responses[at].reset();
            statuses[at] = std::move(status);
            ++done;
            answered.notify_all();
          }));
  }
  std::unique_lock lock(mutex);
  EXPECT_TRUE(answered.wait_for(lock, 60s, [&] { return done == count; })) << done << " of " << count << " answered";
  return statuses;
}

// How many are OK and how many RESOURCE_EXHAUSTED for the world's waiting
// calls (saying so); anything else fails the test.
std::pair<int, int> ok_and_refused(const std::vector<grpc::Status>& statuses) {
  int ok = 0, refused = 0;
  for (const grpc::Status& s : statuses) {
    if (s.ok()) {
      ++ok;
    } else if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_NE(s.error_message().find("calls waiting for its thread"), std::string::npos) << status_text(s);
    } else {
      ADD_FAILURE() << status_text(s);
    }
  }
  return {ok, refused};
}

// 1,500 ListBodies sent at once to a running world of 2,000 bodies: they
// run between its ticks, which keep their 60 Hz (before, the world ran
// every waiting call before its next tick: 9.5 Hz).
TEST(Wedge, AFloodOfCallsCannotHoldAWorldsTicks) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  create_steady_world(a, "steady");
  v1::CreateBodiesRequest many;
  many.set_world("steady");
  for (int i = 0; i < 2000; ++i) *many.add_bodies() = particle("p" + std::to_string(i), 0.01 * i, 5.0);
  v1::CreateBodiesResponse made;
  ASSERT_TRUE(a.bodies->CreateBodies(context().get(), many, &made).ok());
  Vitals vitals(server.target(), "steady");
  std::this_thread::sleep_for(300ms);
  v1::ListBodiesRequest list;
  list.set_world("steady");
  std::atomic<int> whole{0};
  const auto [ok, refused] = ok_and_refused(flood<v1::ListBodiesResponse>(
      1500, [&](grpc::ClientContext* ctx, v1::ListBodiesResponse* resp, auto done) {
        b.bodies->async()->ListBodies(ctx, &list, resp, std::move(done));
      },
      [&](const v1::ListBodiesResponse& r) { whole += r.bodies_size() == 2020 ? 1 : 0; }));
  std::printf("flood: %d answered, %d refused\n", ok, refused);
  EXPECT_EQ(whole.load(), ok);
  EXPECT_EQ(ok + refused, 1500);
  expect_healthy(vitals);
}

// A paused 400-link heavy world (create_heavy_world: about a fifth of a
// second a tick) inside a Step of `ticks` on a thread of its own, from
// 100 ms after the Step began: calls sent meanwhile wait for its thread.
struct BusyWorld {
  BusyWorld(Client& c, const std::string& name, std::uint32_t ticks) {
    create_heavy_world(c, name, 400);
    stepper = std::thread([&c, name, ticks, this] { status = c.worlds->Step(context(30s).get(), step_request(name, ticks), &stepped); });
    std::this_thread::sleep_for(100ms);
  }
  ~BusyWorld() {
    if (stepper.joinable()) stepper.join();
  }
  // The Step's answer, once it has come.
  grpc::Status finish() {
    stepper.join();
    return status;
  }
  v1::StepResponse stepped;
  grpc::Status status;
  std::thread stepper;
};

// While a world is inside one of a Step's ticks, 3,000 GetBody arrive:
// WorldHost::kMaxWaiting of them wait, the rest are refused at once and
// say why.
TEST(Wedge, CallsPastTheWaitingLimitAreRefusedAtOnce) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  BusyWorld busy(a, "heavy", 4);
  v1::GetBodyRequest get;
  get.set_world("heavy");
  get.mutable_body()->set_name("link-1");
  const auto [ok, refused] = ok_and_refused(
      flood<v1::GetBodyResponse>(3000, [&](grpc::ClientContext* ctx, v1::GetBodyResponse* resp, auto done) {
        b.bodies->async()->GetBody(ctx, &get, resp, std::move(done));
      }));
  std::printf("flood: %d answered, %d refused\n", ok, refused);
  EXPECT_GE(ok, static_cast<int>(server::WorldHost::kMaxWaiting));
  EXPECT_GT(refused, 0);
  EXPECT_EQ(ok + refused, 3000);
  const grpc::Status stepped = busy.finish();
  EXPECT_TRUE(stepped.ok()) << status_text(stepped);
}

// While a world is inside one of a Step's ticks, 100 CreateBodies of about
// 1 MB each arrive (each refused when it runs: its last body's mass is
// -1): those that would take the waiting requests past
// WorldHost::kMaxWaitingBytes, or (first, at the same 64 MiB) past their
// client's share of what the server holds for its calls, requests
// included (host/unread.hpp), are refused at once and say why.
TEST(Wedge, CallsPastTheWaitingBytesAreRefusedAtOnce) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  BusyWorld busy(a, "heavy", 10);
  v1::CreateBodiesRequest big;
  big.set_world("heavy");
  for (int i = 0; i < 20000; ++i) *big.add_bodies() = particle("p" + std::to_string(i), 0.01 * i, 5.0, i < 19999 ? 0.1 : -1.0);
  const std::size_t bytes = big.ByteSizeLong();
  int ran = 0, refused = 0;
  for (const grpc::Status& s :
       flood<v1::CreateBodiesResponse>(100, [&](grpc::ClientContext* ctx, v1::CreateBodiesResponse* resp, auto done) {
         b.bodies->async()->CreateBodies(ctx, &big, resp, std::move(done));
       })) {
    const std::string& why = s.error_message();
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
        (why.find("MiB of requests") != std::string::npos || why.find("requests of their calls") != std::string::npos)) {
      ++refused;
    } else {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status_text(s);
      ++ran;
    }
  }
  std::printf("flood: %d ran, %d refused, %zu bytes each\n", ran, refused, bytes);
  EXPECT_GT(refused, 0);
  const std::size_t room = std::min<std::size_t>(server::WorldHost::kMaxWaitingBytes, server::UnreadLimits{}.per_peer);
  EXPECT_GE(ran, static_cast<int>(room / (bytes + server::Unread::kCallBytes)));
  const grpc::Status stepped = busy.finish();
  EXPECT_TRUE(stepped.ok()) << status_text(stepped);
  EXPECT_EQ(b.list_bodies("heavy").bodies_size(), 400);
}

// A call whose caller gives up while it waits for the world's thread
// (behind one of a Step's ticks) does not run when its turn comes: the
// body it asked for is not made.
TEST(Wedge, ACallWhoseCallerGaveUpDoesNotRun) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  BusyWorld busy(a, "heavy", 2);
  v1::CreateBodyRequest create;
  create.set_world("heavy");
  *create.mutable_body() = particle("late", 5, 5);
  v1::CreateBodyResponse created;
  const grpc::Status late = b.bodies->CreateBody(context(50ms).get(), create, &created);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status_text(late);
  const grpc::Status stepped = busy.finish();
  ASSERT_TRUE(stepped.ok()) << status_text(stepped);
  const v1::ListBodiesResponse listed = b.list_bodies("heavy");
  EXPECT_EQ(listed.bodies_size(), 400);
  for (const v1::Body& body : listed.bodies()) EXPECT_NE(body.def().name(), "late");
  *create.mutable_body() = particle("in-time", 5, 5);
  EXPECT_TRUE(b.bodies->CreateBody(context().get(), create, &created).ok());
}

}  // namespace
}  // namespace linkage::itest
