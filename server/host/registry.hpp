#pragma once
// The worlds of a server, by name, and the server-wide limits.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "linkage/result.hpp"
#include "world_host.hpp"

namespace linkage::server {

struct ServerLimits {
  int max_worlds = 64;
  int max_streams = 256;          // open StateStream calls, all worlds together
  double max_stream_rate = 240;   // Hz; a stream asking for more gets this
  Limits world;                   // per world, unless a world sets its own
};

class Registry {
 public:
  explicit Registry(ServerLimits limits) : limits_(limits) {}
  ~Registry() { stop_all("server stopping"); }

  const ServerLimits& limits() const { return limits_; }

  // A new running (or paused) world; INVALID_ARGUMENT for a bad name,
  // FAILED_PRECONDITION if it exists, RESOURCE_EXHAUSTED past max_worlds.
  Result<std::shared_ptr<WorldHost>> create(const std::string& name, World world, Names names, Limits limits,
                                            bool paused);
  std::shared_ptr<WorldHost> find(const std::string& name) const;
  std::vector<std::shared_ptr<WorldHost>> all() const;
  // Removes the world from the registry and hands it over (null if there is
  // none); the caller stops it.
  std::shared_ptr<WorldHost> take(const std::string& name);
  void stop_all(const std::string& reason);

  // Counts open streams against max_streams.
  bool acquire_stream();
  void release_stream();

 private:
  const ServerLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<WorldHost>> worlds_;
  std::atomic<int> streams_{0};
};

// Letters, digits, '-', '_' and '.', 1 to 64 characters.
bool valid_name(const std::string& name);

}  // namespace linkage::server
