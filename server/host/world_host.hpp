#pragma once
// One world on the server: its core World, the names clients gave its bodies
// and constraints, and the thread that steps it.
//
// Concurrency: everything in `State` belongs to the host's tick thread.
// Other threads (gRPC's) never touch it: they post commands, which the tick
// thread runs between two steps, never inside one, and which answer through
// their own callback. Subscribers are called from the tick thread with
// frames it built; they must not block (a stream keeps only the newest frame).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "change_log.hpp"
#include "linkage/linkage.hpp"
#include "linkage/v1/world.pb.h"
#include "convert/footprint.hpp"
#include "convert/names.hpp"

namespace linkage::server {

// Per-world caps (the server's flags give the defaults).
struct Limits {
  int max_bodies = 100000;
  int max_constraints = 200000;
  int max_forces = 100000;
  // The most the world's footprint may reach (convert/footprint.hpp), so that
  // every answer about it fits in a message: footprint_limit(--max-message-bytes).
  std::uint64_t max_bytes = (16u << 20) - kAnswerOverhead;
};

class Subscriber;

class WorldHost {
 public:
  // What commands see and change: the world and everything that goes with it.
  struct State {
    World world;
    Names names;
    Limits limits;
    ChangeLog changes;
    Footprint footprint;  // kept with every change to the world's objects (commands.cpp)
    bool paused = false;
    std::uint64_t tick = 0;
    std::uint64_t overruns = 0;
    // The scene last loaded (Reset returns to it); null: an empty world.
    struct ResetPoint {
      WorldState world;
      Names names;
    };
    std::shared_ptr<const ResetPoint> reset_point;
    const StepDiagnostics* last = nullptr;
  };
  using Command = std::function<void(State&)>;

  WorldHost(std::string name, World world, Names names, Limits limits, bool paused);
  ~WorldHost();
  WorldHost(const WorldHost&) = delete;
  WorldHost& operator=(const WorldHost&) = delete;

  const std::string& name() const { return name_; }

  // Runs the command on the tick thread before the next step. If the host
  // is stopping, the command is dropped and `dropped` runs instead (on the
  // caller's thread or the tick thread), so every caller is answered.
  void post(Command command, std::function<void()> dropped);

  // Tick thread only (from inside a command): steps `ticks` times at once,
  // publishing each (a paused world's Step).
  void advance(State& s, std::uint32_t ticks);

  void subscribe(std::shared_ptr<Subscriber> s);
  void unsubscribe(const Subscriber* s);
  int subscribers() const;

  // Ends the thread: pending commands are dropped, subscribers finished with
  // `reason`. Idempotent.
  void stop(const std::string& reason);

 private:
  struct Pending {
    Command command;
    std::function<void()> dropped;
  };
  void run();
  void step_once(State& s);
  using Subscribers = std::vector<std::shared_ptr<Subscriber>>;
  // Offers this tick's frame to every subscriber ready for one (to `only`,
  // if given); returns those that were not ready.
  Subscribers publish(State& s, const Subscribers* only = nullptr);

  const std::string name_;
  State state_;  // the tick thread's alone once it runs

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  std::vector<std::shared_ptr<Subscriber>> subscribers_;
  bool stopping_ = false;
  // A paused world publishes only when edited; subscribers not ready then
  // (a write in flight, or not due) are owed that frame. The tick thread's alone.
  Subscribers owed_;
  std::thread thread_;
};

}  // namespace linkage::server
