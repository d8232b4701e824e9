#include "child.hpp"

#include <arpa/inet.h>
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
// Polling every 100 ms, the tests' clients let linkaged exit promptly;
// without it the tests still pass, with linkaged exiting 5 s after SIGTERM.
// Read at gRPC's initialisation, so set before any channel exists.
const bool kFastBackupPoll = [] {
  setenv("GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS", "100", 0);
  return true;
}();

}  // namespace

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

Child::Child(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
}

Child::~Child() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::optional<int> Child::wait(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  do {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      return status;
    }
    std::this_thread::sleep_for(10ms);
  } while (std::chrono::steady_clock::now() < until);
  return std::nullopt;
}

bool wait_until_serving(Child& server, const std::string& target, std::chrono::milliseconds timeout) {
  Client client(target);
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    v1::GetWorldRequest req;
    req.set_world("default");
    v1::GetWorldResponse resp;
    auto ctx = context(500ms);
    ctx->set_wait_for_ready(true);
    if (client.worlds->GetWorld(ctx.get(), req, &resp).ok()) return true;
    if (server.wait(50ms).has_value()) return false;
  }
  return false;
}

}  // namespace linkage::itest
