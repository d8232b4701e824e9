// The real binary: it starts, serves, and on SIGTERM ends its open streams
// with a status and exits with 0.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "support.hpp"

extern char** environ;

namespace linkage::itest {
namespace {

// gRPC's graceful shutdown waits until every client has closed its connection
// after the server's GOAWAY (or until the server's 5 s drain deadline). An
// idle synchronous C++ client has no thread reading its socket, and only sees
// the GOAWAY when its channel's backup poller runs: every 5 s by default.
// Polling every 100 ms, this test's clients let linkaged exit promptly;
// without it the test still passes, with linkaged exiting 5 s after SIGTERM.
// Read at gRPC's initialisation, so set before any channel exists.
const bool kFastBackupPoll = [] {
  setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "100", 0);
  return true;
}();

// A port nothing listens on now (the system's choice for a socket bound to port 0).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return 0;
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// linkaged as a child process; killed if a test leaves it running.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  }
  ~Child() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  // The exit status once it has exited, within `timeout`; nullopt if it has not.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return status;
      }
      std::this_thread::sleep_for(10ms);
    }
    return std::nullopt;
  }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

TEST(Shutdown, SigtermEndsOpenStreamsWithAStatusAndExitsCleanly) {
  const int port = free_port();
  ASSERT_NE(port, 0);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  // The cloth in the default world: frames big enough to fill a stalled client's window.
  Child server({LINKAGED, "--listen", target, "--log-level", "warn", "--scene",
                std::string(LINKAGE_SCENES_DIR) + "/cloth.json"});
  ASSERT_GT(server.pid(), 0) << "cannot start " << LINKAGED;

  // Wait until it answers.
  Client client(target);
  bool up = false;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!up && std::chrono::steady_clock::now() < until) {
    v1::GetWorldRequest req;
    req.set_world("default");
    v1::GetWorldResponse resp;
    auto ctx = context(500ms);
    ctx->set_wait_for_ready(true);
    up = client.worlds->GetWorld(ctx.get(), req, &resp).ok();
    if (!up) {
      ASSERT_FALSE(server.wait(50ms).has_value()) << "linkaged exited at start-up";
    }
  }
  ASSERT_TRUE(up) << "linkaged did not answer on " << target << " within 10 s";

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
