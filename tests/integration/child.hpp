#pragma once
// The real linkaged as a child process, for the tests of start-up and SIGTERM.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace linkage::itest {

// A port nothing listens on now (the system's choice for a socket bound to port 0).
int free_port();

// A process started from `args` (args[0] the program); killed if a test leaves it running.
class Child {
 public:
  explicit Child(std::vector<std::string> args);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // The wait status once it has exited, within `timeout`; nullopt if it has not.
  std::optional<int> wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

// Whether linkaged at `target` answers GetWorld("default") within `timeout`
// (false at once if `server` exits first).
bool wait_until_serving(Child& server, const std::string& target, std::chrono::milliseconds timeout);

}  // namespace linkage::itest
