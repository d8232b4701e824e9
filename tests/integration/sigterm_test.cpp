// SLOW (~10 s): the real binary stops within 3 s of SIGTERM, exit code 0,
// whatever its worlds are doing: a Step of a million ticks under way, steps
// that each take six periods, or one step far longer than the shutdown's
// grace. And its flags keep to the rules the API keeps to.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <thread>

#include "child.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

using Clock = std::chrono::steady_clock;

struct Server {
  explicit Server(std::vector<std::string> flags) : port(free_port()), target("127.0.0.1:" + std::to_string(port)) {
    std::vector<std::string> args = {LINKAGED, "--listen", target, "--log-level", "warn"};
    args.insert(args.end(), flags.begin(), flags.end());
    child = std::make_unique<Child>(args);
  }
  int port;
  std::string target;
  std::unique_ptr<Child> child;
};

// SIGTERM now; the process must be gone, with exit code 0, within 3 s.
void expect_quick_clean_exit(Child& child) {
  ASSERT_EQ(kill(child.pid(), SIGTERM), 0);
  const auto sent = Clock::now();
  const std::optional<int> status = child.wait(5s);
  const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
  ASSERT_TRUE(status.has_value()) << "linkaged still runs 5 s after SIGTERM";
  std::printf("SIGTERM + %.3f s: linkaged exited\n", seconds);
  EXPECT_LT(seconds, 3.0);
  EXPECT_TRUE(WIFEXITED(*status)) << "linkaged died of signal " << (WIFSIGNALED(*status) ? WTERMSIG(*status) : 0);
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

// A running world whose every step runs Gauss–Seidel to its cap of
// `iterations` sweeps (it never reaches 1e-15 on a 100-link chain), four
// times a step (RK4): about `iterations` × 10 µs a step here.
void create_heavy_world(Client& c, const std::string& name, int iterations) {
  create_hanging_chain(c, name, 100, 60);
  v1::UpdateWorldRequest heavy;
  heavy.set_world(name);
  heavy.mutable_settings()->set_solver(v1::LINEAR_SOLVER_GAUSS_SEIDEL);
  heavy.mutable_settings()->set_solver_tolerance(1e-15);
  heavy.mutable_settings()->set_solver_max_iterations(iterations);
  v1::UpdateWorldResponse updated;
  ASSERT_TRUE(c.worlds->UpdateWorld(context().get(), heavy, &updated).ok());
  v1::ResumeRequest resume;
  resume.set_world(name);
  v1::ResumeResponse resumed;
  ASSERT_TRUE(c.worlds->Resume(context().get(), resume, &resumed).ok());
}

TEST(Sigterm, DuringALongStepExitsCleanlyWithin3s) {
  Server server({});
  ASSERT_TRUE(wait_until_serving(*server.child, server.target, 10s));
  Client c(server.target);
  create_hanging_chain(c, "long", 200, 60);
  v1::StepRequest req;
  req.set_world("long");
  req.set_ticks(1000000);
  v1::StepResponse resp;
  grpc::Status status;
  std::thread caller([&] { status = c.worlds->Step(context(30s).get(), req, &resp); });
  std::this_thread::sleep_for(300ms);
  Client other(server.target);
  EXPECT_GT(other.get_world("long").tick(), 0u) << "the Step is under way";
  expect_quick_clean_exit(*server.child);
  caller.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status_text(status);
}

TEST(Sigterm, DuringStepsFarSlowerThanTheirPeriodExitsCleanlyWithin3s) {
  Server server({});
  ASSERT_TRUE(wait_until_serving(*server.child, server.target, 10s));
  Client c(server.target);
  create_heavy_world(c, "heavy", 10000);
  // Wedged to look at: it answers, and its steps take tens of periods.
  v1::World w;
  const auto until = Clock::now() + 5s;
  do {
    std::this_thread::sleep_for(100ms);
    w = c.get_world("heavy");
  } while (w.step_seconds() < 0.05 && Clock::now() < until);
  std::printf("heavy world: step %.3f s, %.3f s into the current one\n", w.step_seconds(), w.busy_seconds());
  EXPECT_GT(w.step_seconds(), 0.05);
  expect_quick_clean_exit(*server.child);
}

// A step far longer than the 2 s grace (a million sweeps, several seconds):
// the process leaves it behind and still exits 0 within 3 s.
TEST(Sigterm, DuringOneStepLongerThanTheGraceExitsWithin3s) {
  Server server({"--max-iterations", "1000000"});
  ASSERT_TRUE(wait_until_serving(*server.child, server.target, 10s));
  Client c(server.target);
  create_heavy_world(c, "stuck", 1000000);
  v1::World w;
  const auto until = Clock::now() + 5s;
  do {
    std::this_thread::sleep_for(100ms);
    w = c.get_world("stuck");
  } while (w.busy_seconds() < 0.5 && Clock::now() < until);
  EXPECT_GT(w.busy_seconds(), 0.5) << "GetWorld answers while the world is inside its step, and says how long";
  EXPECT_EQ(w.tick(), 0u);
  expect_quick_clean_exit(*server.child);
}

// The same ranges as the API: a tick rate outside [--min-tick-rate,
// --max-tick-rate], or bounds that make no sense, stop start-up (exit 2).
TEST(Flags, KeepToTheRulesOfTheApi) {
  const std::vector<std::vector<std::string>> refused = {
      {"--tick-rate", "1e-300"},
      {"--tick-rate", "5", "--min-tick-rate", "10"},
      {"--tick-rate", "200", "--max-tick-rate", "100"},
      {"--min-tick-rate", "100", "--max-tick-rate", "10"},
      {"--max-iterations", "0"},
      {"--min-stream-rate", "500"},
      {"--watchdog-factor", "0.5"},
      {"--watchdog-ticks", "-1"},
      {"--max-connections", "-1"},
      {"--max-connections-per-peer", "-5"},
      {"--max-connections", "99999999999"},
      {"--max-connections-per-peer", "nan"},
      {"--max-unread-bytes", "-1"},
      {"--max-unread-bytes-per-peer", "1e99"},
      {"--max-unread-bytes-per-peer", "1000"},  // below the largest answer
      {"--max-transport-bytes", "-1"},
      {"--max-memory", "-1"},
      {"--max-memory", "1e99"},
  };
  for (const auto& flags : refused) {
    Server server(flags);
    const std::optional<int> status = server.child->wait(10s);
    std::string line;
    for (const std::string& f : flags) line += " " + f;
    ASSERT_TRUE(status.has_value()) << "linkaged" << line << " kept running";
    EXPECT_TRUE(WIFEXITED(*status)) << line;
    EXPECT_NE(WEXITSTATUS(*status), 0) << "linkaged" << line << " started";
  }
  // Within the ranges it starts.
  Server fine({"--tick-rate", "120", "--min-tick-rate", "100", "--max-tick-rate", "200", "--max-iterations", "500"});
  ASSERT_TRUE(wait_until_serving(*fine.child, fine.target, 10s));
  Client c(fine.target);
  EXPECT_EQ(c.get_world("default").settings().tick_rate(), 120.0);
  expect_quick_clean_exit(*fine.child);
}

}  // namespace
}  // namespace linkage::itest
