#pragma once
// One world on the server: its core World, the names clients gave its bodies
// and constraints, and the thread that steps it.
//
// Concurrency: everything in `State` belongs to the host's tick thread.
// Other threads (gRPC's) never touch it: they post commands, which the tick
// thread runs between two steps, never inside one, and which answer through
// their own callback. What other threads may read without waiting for the
// world is its summary (a linkage.v1.World), which the tick thread publishes
// after every tick and every command. Subscribers are called from the tick
// thread with frames it built; they must not block (a stream keeps only the
// newest frame).
//
// Nothing holds the thread for longer than one step: a Step of N ticks is a
// job the loop runs one tick at a time, serving commands in between, and
// stopping (DeleteWorld, SIGTERM) answers every call waiting on the world at
// once and lets the thread go after the step it is in.
//
// With a store (--data-dir, durable/world_store.hpp) the world is durable:
// every change is journalled by the tick thread, and answers given with
// reply() wait until what the commands before them changed is on disk.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contact_log.hpp"
#include "guard.hpp"
#include "hosted_world.hpp"
#include "world_meters.hpp"
#include "linkage/linkage.hpp"
#include "linkage/v1/world.pb.h"

namespace linkage::server {

class Subscriber;
struct WorldHostState;
namespace durable {
class WorldStore;
}

// How a Step job ended.
enum class StepEnd { done, deadline, resumed, halted, cancelled };

// A paused world's Step: `ticks` ticks, run by the tick loop one at a time.
struct StepJob {
  std::uint32_t ticks = 0;
  // Whether the caller has gone away; asked before every tick.
  std::function<bool()> cancelled;
  // The job ends with the ticks done when the next tick would likely end
  // after this, less `margin` (set by start_step): the answer needs time to
  // reach the caller.
  std::chrono::system_clock::time_point deadline = std::chrono::system_clock::time_point::max();
  std::chrono::system_clock::duration margin{};
  // Answers the call, on the tick thread, with the ticks done and why it ended.
  std::function<void(WorldHostState&, std::uint32_t done, StepEnd end)> finish;
  // Answers the call when the world goes away first (any thread).
  std::function<void()> dropped;
  // The world's tick when the job started: the ticks done are the world's
  // since (a step undone by the divergence check is not one of them).
  std::uint64_t start_tick = 0;
};

// What commands see and change: the hosted world (the only way to change
// it) and the clock and guards' record that go with it.
struct WorldHostState {
  HostedWorld world;
  bool paused = false;
  std::uint64_t tick = 0;
  std::uint64_t overruns = 0;
  // Why the world paused itself, if it did; and how often each guard fired.
  Halt halt{};
  std::uint64_t watchdog_halts = 0;
  std::uint64_t divergences = 0;
};

class WorldHost {
 public:
  using State = WorldHostState;
  using Command = std::function<void(State&)>;
  using Clock = std::chrono::steady_clock;

  // Starts the world's thread; `store`, if given, journals the world.
  WorldHost(std::string name, State state, std::unique_ptr<durable::WorldStore> store = nullptr);
  WorldHost(std::string name, World world, Names names, Limits limits, bool paused);
  ~WorldHost();
  WorldHost(const WorldHost&) = delete;
  WorldHost& operator=(const WorldHost&) = delete;

  const std::string& name() const { return name_; }
  // Null for a world that is not durable.
  durable::WorldStore* store() const { return store_.get(); }
  // Null without metrics (world_meters.hpp).
  const std::shared_ptr<WorldMeters>& meters() const { return meters_; }

  // Tick thread only (from inside a command): answers the caller once the
  // changes of the commands run so far are durable (at once without a
  // store). `answer` gets "" or what kept them from disk.
  void reply(std::function<void(const std::string& unsaved)> answer);

  // Commands that may wait for the tick thread at once, and the bytes of
  // their requests: calls sent faster than the world runs them are refused
  // past either (post), where they would queue without end (1,024 batches
  // of 4 MB each would hold 4 GB).
  static constexpr std::size_t kMaxWaiting = 1024;
  static constexpr std::size_t kMaxWaitingBytes = std::size_t{64} << 20;

  // Runs the command on the tick thread, in the order posted, between
  // steps: a running world's commands wait once its next tick is due, so
  // that a flood of them cannot hold its ticks. If the host is stopping,
  // the command is dropped and `dropped` runs instead (on the caller's
  // thread or the stopping one), so every caller is answered. `bytes`: what
  // the command holds until it runs (its request). False, with neither
  // run, when kMaxWaiting commands wait already, or it would take the
  // waiting ones past kMaxWaitingBytes (one waits whatever its size): the
  // caller answers.
  [[nodiscard]] bool post(Command command, std::function<void()> dropped, std::size_t bytes = 0);

  // Tick thread only (from inside a command): steps `ticks` times at once,
  // publishing each; for benchmarks, which time the ticks themselves.
  void advance(State& s, std::uint32_t ticks);

  // Tick thread only (from inside a command): starts a paused world's Step
  // job; FAILED_PRECONDITION if the world runs or a Step is under way.
  Status start_step(State& s, StepJob job);

  // Tick thread only: publishes the world's summary (after a command that
  // answers its caller, before it answers, so that the caller's next
  // GetWorld sees what it did). With its state hash if the world is paused
  // and `hash`: a running world's summary, published every tick, goes without.
  void publish_summary(const State& s, bool hash = true);
  // Any thread, without waiting for the world: its last published summary,
  // with the subscribers now and how long its current step has run.
  v1::World summary() const;

  void subscribe(std::shared_ptr<Subscriber> s);
  void unsubscribe(const Subscriber* s);
  int subscribers() const;

  // Without waiting: ends every stream with `reason`, answers every call
  // waiting on the world (posted commands, a Step job) as the world being
  // gone, and tells the thread to end after the step it may be in. Idempotent.
  void request_stop(const std::string& reason);
  // Whether the thread has ended, waiting for it until `deadline`.
  bool wait_stopped(Clock::time_point deadline) const;
  // Whether the thread has ended, now.
  bool stopped() const;
  // request_stop, then waits for the thread (at most one step).
  void stop(const std::string& reason);

 private:
  struct Pending {
    Command command;
    std::function<void()> dropped;
    std::size_t bytes = 0;
  };
  void run();
  // One tick of the world's clock (running, or for a Step job), then the guards.
  void tick(State& s, bool running);
  void step_once(State& s);
  bool stop_requested() const;
  // The guards after a step; true if the world halted.
  bool check_divergence(State& s);
  bool check_watchdog(State& s);
  void halt(State& s, HaltReason reason, const std::string& message);
  // Keeps a copy of the world to go back to if a step diverges: before the
  // first step after any command, and every kCheckpointTicks ticks; the
  // divergence check replays from it to the last good tick.
  void checkpoint(const State& s);
  // Runs the next tick of the Step job, or ends it; false if there is none.
  bool run_job(State& s);
  void end_job(State& s, StepEnd end);
  // Syncs the journal and gives the answers waiting for it.
  void commit();
  using Subscribers = std::vector<std::shared_ptr<Subscriber>>;
  // Offers this tick's frame to every subscriber ready for one (to `only`,
  // if given), with the changes and contact events it has not seen; returns
  // those that were not ready.
  Subscribers publish(State& s, const Subscribers* only = nullptr);

  const std::string name_;
  State state_;  // the tick thread's alone once it runs

  // The tick thread's alone: the watchdog's count, the last good state.
  Watchdog watchdog_;
  std::optional<World> checkpoint_;
  std::unique_ptr<durable::WorldStore> store_;
  const std::shared_ptr<WorldMeters> meters_;
  // Answers waiting for the journal's sync (reply()).
  std::vector<std::function<void(const std::string&)>> replies_;
  std::uint64_t checkpoint_tick_ = 0;
  int since_checkpoint_ = 0;
  bool checkpoint_stale_ = true;
  BodyStates scratch_;
  // The pairs that touch and when that changed, while a stream follows contacts.
  ContactLog contact_log_;
  // When the step under way began (Clock ticks since its epoch); 0: none.
  std::atomic<Clock::rep> step_started_{0};

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;           // commands and stopping, for the thread
  mutable std::condition_variable ended_;  // the thread's end, for wait_stopped
  std::deque<Pending> queue_;
  std::size_t waiting_bytes_ = 0;  // of the commands posted and not yet run
  std::vector<std::shared_ptr<Subscriber>> subscribers_;
  std::optional<StepJob> job_;
  v1::World summary_;
  bool stopping_ = false;
  bool exited_ = false;
  // A paused world publishes only when edited; subscribers not ready then
  // (a write in flight, or not due) are owed that frame. The tick thread's alone.
  Subscribers owed_;
  std::thread thread_;
};

}  // namespace linkage::server
