#pragma once
// The worlds of a server, by name, and the server-wide limits.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "linkage/result.hpp"
#include "memory_gate.hpp"
#include "policy.hpp"
#include "unread.hpp"
#include "world_host.hpp"

namespace linkage::server {

struct ServerLimits {
  int max_worlds = 64;
  int max_streams = 256;          // open StateStream calls, all worlds together
  double min_stream_rate = 0.01;  // Hz; a stream asking for less (but 0, every tick) is refused
  double max_stream_rate = 240;   // Hz; a stream asking for more gets this
  UnreadLimits unread;            // answers and frames made but not yet read by their clients
  std::int64_t max_memory = 0;    // bytes the worlds may grow the process to (memory_gate.hpp); 0: no limit
  SettingsPolicy settings;        // tick rates and iteration caps every world's settings keep to
  Limits world;                   // per world, unless a world sets its own
};

namespace durable {
class DataDir;
}

class Registry {
 public:
  using Clock = WorldHost::Clock;

  explicit Registry(ServerLimits limits)
      : limits_(limits), memory_(std::make_shared<MemoryGate>(static_cast<std::uint64_t>(limits.max_memory))), unread_(limits.unread) {}
  ~Registry() { stop_all("server stopping"); }

  const ServerLimits& limits() const { return limits_; }

  // Keeps every world created from now on durable in `data` (null: none);
  // `data` must outlive the registry's worlds.
  void set_data_dir(durable::DataDir* data) { data_ = data; }
  durable::DataDir* data_dir() const { return data_; }

  // A new running (or paused) world; INVALID_ARGUMENT for a bad name,
  // FAILED_PRECONDITION if it exists, RESOURCE_EXHAUSTED past max_worlds or
  // when the server's memory (max_memory) has no room for it. Its changes
  // ask the memory gate from then on.
  Result<std::shared_ptr<WorldHost>> create(const std::string& name, World world, Names names, Limits limits,
                                            bool paused);
  // The same for a world with a state of its own (a fork). With a data
  // directory the world's files are made first: FAILED_PRECONDITION if they
  // cannot be.
  Result<std::shared_ptr<WorldHost>> create(const std::string& name, WorldHost::State state);
  // A world restored from the data directory, with its store (null: not
  // durable), past any limit (its later changes ask the memory gate).
  std::shared_ptr<WorldHost> adopt(const std::string& name, WorldHost::State state,
                                   std::unique_ptr<durable::WorldStore> store);
  std::shared_ptr<WorldHost> find(const std::string& name) const;
  // Every world, by name.
  std::vector<std::shared_ptr<WorldHost>> all() const;
  // Takes the world out of the registry and stops it without waiting
  // (WorldHost::request_stop): its streams end and its waiting calls are
  // answered now, its thread ends after the step it may be in. False if
  // there is no such world.
  bool remove(const std::string& name, const std::string& reason);

  // Stops every world without waiting, then reports whether all their
  // threads (those of removed worlds too) have ended by `deadline`.
  void request_stop_all(const std::string& reason);
  bool wait_stopped(Clock::time_point deadline);
  // Stops every world and waits for all their threads.
  void stop_all(const std::string& reason);

  // Counts open streams against max_streams.
  bool acquire_stream();
  void release_stream();

  // Answers and frames made for clients and not yet read, by address.
  Unread& unread() { return unread_; }
  const Unread& unread() const { return unread_; }
  const MemoryGate& memory() const { return *memory_; }

 private:
  // Forgets removed worlds whose threads have ended (so joining them is
  // instant); their memory goes with them.
  void reap();

  const ServerLimits limits_;
  durable::DataDir* data_ = nullptr;
  // Shared with every world it governs: a world may outlive the registry.
  const std::shared_ptr<MemoryGate> memory_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<WorldHost>> worlds_;
  std::vector<std::shared_ptr<WorldHost>> removed_;  // stopping, their threads maybe in a last step
  std::atomic<int> streams_{0};
  Unread unread_;
};

// Letters, digits, '-', '_' and '.', 1 to 64 characters.
bool valid_name(const std::string& name);

}  // namespace linkage::server
