// The real binary: it starts, serves, and on SIGTERM ends its open streams
// with a status and exits with 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <thread>

#include "child.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

TEST(Shutdown, SigtermEndsOpenStreamsWithAStatusAndExitsCleanly) {
  const int port = free_port();
  ASSERT_NE(port, 0);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  // The cloth in the default world: frames big enough to fill a stalled client's window.
  Child server({LINKAGED, "--listen", target, "--log-level", "warn", "--scene",
                std::string(LINKAGE_SCENES_DIR) + "/cloth.json"});
  ASSERT_GT(server.pid(), 0) << "cannot start " << LINKAGED;

  ASSERT_TRUE(wait_until_serving(server, target, 10s)) << "linkaged did not answer on " << target << " within 10 s";
  Client client(target);

  // Two streams, one reading and one that has stopped reading.
  auto reading_ctx = context(20s), stalled_ctx = context(20s);
  v1::StreamStateRequest req;
  req.set_world("default");
  auto reading = client.worlds->StreamState(reading_ctx.get(), req);
  Client other(target);
  auto stalled = other.worlds->StreamState(stalled_ctx.get(), req);
  v1::Snapshot frame;
  ASSERT_TRUE(reading->Read(&frame));
  ASSERT_TRUE(stalled->Read(&frame));
  ASSERT_EQ(frame.world(), "default");
  ASSERT_GT(frame.body_index_size(), 100);
  std::this_thread::sleep_for(500ms);  // the stalled stream's window fills

  ASSERT_EQ(kill(server.pid(), SIGTERM), 0);
  const auto sent = std::chrono::steady_clock::now();
  while (reading->Read(&frame)) {
  }
  const grpc::Status ended = reading->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE) << status_text(ended);
  const auto ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent).count();
  };
  std::printf("SIGTERM + %lld ms: the reading stream ended\n", static_cast<long long>(ms()));
  // The stalled one ends too, once its client drains it.
  while (stalled->Read(&frame)) {
  }
  const grpc::Status stalled_end = stalled->Finish();
  EXPECT_EQ(stalled_end.error_code(), grpc::StatusCode::UNAVAILABLE) << status_text(stalled_end);
  std::printf("SIGTERM + %lld ms: the stalled stream ended\n", static_cast<long long>(ms()));

  const std::optional<int> status = server.wait(10s);
  ASSERT_TRUE(status.has_value()) << "linkaged did not exit within 10 s of SIGTERM";
  std::printf("SIGTERM + %lld ms: linkaged exited\n", static_cast<long long>(ms()));
  EXPECT_TRUE(WIFEXITED(*status)) << "linkaged died of signal " << (WIFSIGNALED(*status) ? WTERMSIG(*status) : 0);
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 10s);
}

// A scene that cannot be read is an error at start-up (exit code 2), not a server without it.
TEST(Shutdown, AMissingSceneStopsStartUp) {
  const int port = free_port();
  ASSERT_NE(port, 0);
  Child server({LINKAGED, "--listen", "127.0.0.1:" + std::to_string(port), "--log-level", "off", "--scene",
                "/nonexistent/scene.json"});
  ASSERT_GT(server.pid(), 0);
  const std::optional<int> status = server.wait(10s);
  ASSERT_TRUE(status.has_value()) << "linkaged kept running without its scene";
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 2);
}

}  // namespace
}  // namespace linkage::itest
