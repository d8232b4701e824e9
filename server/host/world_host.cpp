#include "world_host.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include <spdlog/spdlog.h>

#include "describe.hpp"
#include "frames.hpp"
#include "durable/world_store.hpp"
#include "log/log.hpp"
#include "subscriber.hpp"

namespace linkage::server {
namespace {

using Clock = WorldHost::Clock;

// Ticks between two checkpoints of a world no command has touched. A copy
// of the world costs 2 to 25 % of a step (a 1000-link chain: 12 to 54 µs
// against 0.1 to 0.7 ms), so a thirtieth of that per tick; a divergence
// replays at most this many ticks from the checkpoint.
constexpr int kCheckpointTicks = 30;

// The time a Step's answer needs to reach its caller before the deadline:
// gRPC's threads and the caller's may wait for a core on a busy machine. And
// the deadline a server sees is the caller's rounded up: gRPC sends it with
// at most three significant digits (1.72 s travels as 1.8 s, 17.2 s as 18 s),
// so the job also ends a tenth of its time early.
constexpr std::chrono::milliseconds kAnswerMargin{50};
constexpr int kDeadlineRounding = 10;  // the encoding's worst relative error, 1/10

Clock::duration period_of(const WorldSettings& s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.dt));
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  return text;
}

}  // namespace

WorldHost::WorldHost(std::string name, State state, std::unique_ptr<durable::WorldStore> store)
    : name_(std::move(name)), state_(std::move(state)), store_(std::move(store)), meters_(world_meters(name_)) {
  if (store_) {
    store_->attach(&state_);
    state_.world.record_to(store_.get());
  }
  describe(name_, state_, 0, &summary_);
  thread_ = std::thread([this] { run(); });
}

WorldHost::WorldHost(std::string name, World world, Names names, Limits limits, bool paused)
    : WorldHost(std::move(name), State{.world = HostedWorld(std::move(world), std::move(names), limits), .paused = paused}) {}

WorldHost::~WorldHost() { stop("world deleted"); }

bool WorldHost::post(Command command, std::function<void()> dropped, std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      if (queue_.size() >= kMaxWaiting || (waiting_bytes_ > 0 && waiting_bytes_ + bytes > kMaxWaitingBytes)) return false;
      waiting_bytes_ += bytes;
      queue_.push_back({std::move(command), std::move(dropped), bytes});
      wake_.notify_one();
      return true;
    }
  }
  dropped();
  return true;
}

void WorldHost::reply(std::function<void(const std::string& unsaved)> answer) {
  if (store_) {
    replies_.push_back(std::move(answer));
  } else {
    answer({});
  }
}

void WorldHost::commit() {
  if (!store_) return;
  const std::string unsaved = store_->commit();
  std::vector<std::function<void(const std::string&)>> replies;
  replies.swap(replies_);
  for (auto& answer : replies) answer(unsaved);
}

void WorldHost::advance(State& s, std::uint32_t ticks) {
  for (std::uint32_t i = 0; i < ticks; ++i) {
    tick(s, false);
    publish(s);
  }
  publish_summary(s);
}

Status WorldHost::start_step(State& s, StepJob job) {
  if (!s.paused)
    return Error{ErrorCode::failed_precondition, "world " + quote(name_) + " is running; Pause it before stepping it"};
  {
    std::lock_guard lock(mutex_);
    if (job_)
      return Error{ErrorCode::failed_precondition,
                   "world " + quote(name_) + " is already stepping: a Step of " + std::to_string(job_->ticks) +
                       " ticks has done " + std::to_string(s.tick - job_->start_tick) +
                       "; wait for its answer or cancel it"};
    if (!stopping_) {
      // The world moves again: whatever paused it by itself is history.
      s.halt = {};
      job.start_tick = s.tick;
      const auto now = std::chrono::system_clock::now();
      job.margin = kAnswerMargin;
      if (job.deadline > now && job.deadline != std::chrono::system_clock::time_point::max())
        job.margin += (job.deadline - now) / kDeadlineRounding;
      job_ = std::move(job);
      return ok_status();
    }
  }
  job.dropped();
  return ok_status();
}

void WorldHost::publish_summary(const State& s, bool hash) {
  v1::World summary;
  describe(name_, s, 0, &summary, hash && s.paused);
  std::lock_guard lock(mutex_);
  summary_.Swap(&summary);
}

v1::World WorldHost::summary() const {
  v1::World out;
  {
    std::lock_guard lock(mutex_);
    out = summary_;
    out.set_subscribers(static_cast<std::uint32_t>(subscribers_.size()));
  }
  if (const Clock::rep started = step_started_.load(); started != 0)
    out.set_busy_seconds(std::chrono::duration<double>(Clock::now() - Clock::time_point(Clock::duration(started))).count());
  return out;
}

void WorldHost::subscribe(std::shared_ptr<Subscriber> s) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      s->end("world " + name_ + " is going away");
      return;
    }
    subscribers_.push_back(std::move(s));
  }
  // Wakes the loop: a paused world publishes after its commands run, so
  // the newcomer gets its first frame without waiting for a tick (a full
  // queue wakes it anyway).
  (void)post([](State&) {}, [] {});
}

void WorldHost::unsubscribe(const Subscriber* s) {
  std::lock_guard lock(mutex_);
  std::erase_if(subscribers_, [s](const auto& p) { return p.get() == s; });
}

int WorldHost::subscribers() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(subscribers_.size());
}

void WorldHost::request_stop(const std::string& reason) {
  std::deque<Pending> left;
  Subscribers subs;
  std::optional<StepJob> job;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    left.swap(queue_);
    subs.swap(subscribers_);
    job.swap(job_);
  }
  wake_.notify_all();
  for (Pending& p : left) p.dropped();
  if (job) job->dropped();
  for (auto& s : subs) s->end(reason);
}

bool WorldHost::wait_stopped(Clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  return ended_.wait_until(lock, deadline, [this] { return exited_; });
}

bool WorldHost::stopped() const {
  std::lock_guard lock(mutex_);
  return exited_;
}

void WorldHost::stop(const std::string& reason) {
  request_stop(reason);
  if (thread_.joinable()) thread_.join();
}

void WorldHost::step_once(State& s) {
  step_started_.store(Clock::now().time_since_epoch().count());
  const StepDiagnostics& d = s.world.step();
  step_started_.store(0);
  if (meters_) meters_->stepped(d);
  ++s.tick;
  if (d.step_seconds > s.world.core().settings().dt) ++s.overruns;
}

void WorldHost::checkpoint(const State& s) {
  if (!checkpoint_stale_ && since_checkpoint_ < kCheckpointTicks) {
    ++since_checkpoint_;
    return;
  }
  // Assignment reuses the last checkpoint's buffers.
  if (checkpoint_) {
    *checkpoint_ = s.world.core();
  } else {
    checkpoint_.emplace(s.world.core());
  }
  checkpoint_tick_ = s.tick;
  since_checkpoint_ = 1;
  checkpoint_stale_ = false;
}

void WorldHost::tick(State& s, bool running) {
  checkpoint(s);
  step_once(s);
  if (!check_divergence(s) && running) check_watchdog(s);
  // A durable checkpoint clears the world's caches: the divergence check's
  // copy must not take the world back across it.
  if (store_ && store_->ticked(s)) checkpoint_stale_ = true;
}

bool WorldHost::check_divergence(State& s) {
  const std::optional<std::string> what =
      divergence(s.world.core(), s.world.core().diagnostics(), s.world.limits().max_error, scratch_);
  if (!what) return false;
  const std::uint64_t failed = s.tick;
  // Back to the checkpoint, then forward again to the tick before the one
  // that failed. No command came in between (it would have taken a new
  // checkpoint) and steps are deterministic, so this is the state the world
  // had; the same bodies, constraints and forces, so names and streams stay
  // valid. A replayed step that fails after all, or a stop, ends it early.
  s.world.roll_back(*checkpoint_);
  s.tick = checkpoint_tick_;
  while (s.tick + 1 < failed && !stop_requested()) {
    s.world.step();
    if (divergence(s.world.core(), s.world.core().diagnostics(), s.world.limits().max_error, scratch_)) {
      s.world.roll_back(*checkpoint_);
      s.tick = checkpoint_tick_;
      break;
    }
    ++s.tick;
  }
  checkpoint_stale_ = true;
  ++s.divergences;
  halt(s, HaltReason::diverged,
       "tick " + std::to_string(failed) + " diverged: " + *what + "; put back to tick " + std::to_string(s.tick) +
           " and paused. A smaller step (a higher tick rate or more substeps), a stable integrator or softer "
           "springs help; then resume it");
  return true;
}

bool WorldHost::stop_requested() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool WorldHost::check_watchdog(State& s) {
  const double step = s.world.core().diagnostics().step_seconds, period = s.world.core().settings().dt;
  const WatchdogLimits& limits = s.world.limits().watchdog;
  if (!watchdog_.overran(step, period, limits)) return false;
  watchdog_.reset();
  ++s.watchdog_halts;
  char factor[16];
  std::snprintf(factor, sizeof factor, "%g", limits.factor);
  const std::string what =
      Watchdog::long_step(step, period, limits)
          ? "its step took " + milliseconds(step) + ", as long as " + std::to_string(limits.ticks) + " steps of " +
                factor + " × the " + milliseconds(period) + " tick period"
          : std::to_string(limits.ticks) + " steps in a row took longer than " + factor + " × the " +
                milliseconds(period) + " tick period (the last " + milliseconds(step) + ")";
  halt(s, HaltReason::watchdog,
       "tick " + std::to_string(s.tick) + ": " + what +
           "; paused. Fewer bodies, substeps or iterations, or a lower tick rate, make its steps fit; then resume it");
  return true;
}

void WorldHost::halt(State& s, HaltReason reason, const std::string& message) {
  s.paused = true;
  s.halt = {reason, s.tick, message};
  log::event(spdlog::level::warn, "world.halted", name_, message,
             {{"reason", reason == HaltReason::watchdog ? "watchdog" : "diverged"}, {"tick", s.tick}});
}

bool WorldHost::run_job(State& s) {
  std::optional<StepEnd> end;
  {
    std::lock_guard lock(mutex_);
    if (!job_) return false;
    const auto expected = std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::duration<double>(s.world.core().diagnostics().step_seconds));
    if (s.tick - job_->start_tick >= job_->ticks) {
      end = StepEnd::done;
    } else if (job_->cancelled && job_->cancelled()) {
      end = StepEnd::cancelled;
    } else if (std::chrono::system_clock::now() + expected + job_->margin >= job_->deadline) {
      end = StepEnd::deadline;
    }
  }
  if (end) {
    end_job(s, *end);
    return false;
  }
  tick(s, false);
  if (s.halt.reason != HaltReason::none) end_job(s, StepEnd::halted);
  return true;
}

void WorldHost::end_job(State& s, StepEnd end) {
  std::optional<StepJob> job;
  {
    std::lock_guard lock(mutex_);
    job.swap(job_);
  }
  // The ticks it answers for are on disk first.
  commit();
  if (job) job->finish(s, static_cast<std::uint32_t>(s.tick - job->start_tick), end);
}

WorldHost::Subscribers WorldHost::publish(State& s, const Subscribers* only) {
  Subscribers subs, skipped;
  bool contacts = false;
  {
    std::lock_guard lock(mutex_);
    if (only) {
      for (const auto& o : *only)
        if (std::find(subscribers_.begin(), subscribers_.end(), o) != subscribers_.end()) subs.push_back(o);
    } else {
      subs = subscribers_;
    }
    for (const auto& sub : subscribers_) contacts = contacts || sub->wants_contacts();
  }
  // Every publish follows whatever changed the contacts (a tick, commands),
  // so the log sees each change while anyone, ready or not, follows them.
  if (contacts) {
    contact_log_.observe(s.tick, s.world.core().contacts());
  } else {
    contact_log_.clear();
  }
  if (subs.empty()) return skipped;  // no one asked: no frame is built
  const Clock::time_point now = Clock::now();
  // By (constraints, diagnostics, contacts): each built at most once a tick.
  std::shared_ptr<v1::Snapshot> frames[2][2][2];
  // Frames with changes or contact events, shared by the subscribers of a
  // kind that last saw the same versions (streams in step with each other).
  std::map<std::tuple<bool, bool, bool, std::uint64_t, std::uint64_t>, std::shared_ptr<v1::Snapshot>> owed;
  for (const auto& sub : subs) {
    if (!sub->ready(now)) {
      if (!only) sub->missed(now);
      skipped.push_back(sub);
      continue;
    }
    const bool c = sub->wants_constraints(), d = sub->wants_diagnostics(), k = sub->wants_contacts();
    std::shared_ptr<v1::Snapshot>& base = frames[c][d][k];
    if (!base) {
      base = build_frame(s, name_, c, d, k);
      if (k) base->set_contact_version(contact_log_.version());
      if (meters_) meters_->frame_built();
    }
    const std::uint64_t known = sub->known_version();
    const std::uint64_t seen = k ? sub->known_contact_version() : contact_log_.version();
    if (known == s.world.changes().version() && seen == contact_log_.version()) {
      sub->send(base);
      continue;
    }
    std::shared_ptr<v1::Snapshot>& own = owed[{c, d, k, known, seen}];
    if (!own) {
      own = std::make_shared<v1::Snapshot>(*base);
      fill_changes(s, s.world.changes().since(known), own->mutable_changes());
      if (k) fill_contact_events(contact_log_.since(seen), own.get());
      if (meters_) meters_->frame_built();
    }
    sub->send(own);
  }
  return skipped;
}

void WorldHost::run() {
  Clock::time_point next = Clock::now();
  bool was_running = false;
  for (;;) {
    std::deque<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      auto woken = [&] { return stopping_ || !queue_.empty(); };
      if (job_) {
        // A Step job's ticks follow each other; commands only come between them.
      } else if (state_.paused && owed_.empty()) {
        wake_.wait(lock, woken);
      } else if (state_.paused) {
        // Come back for the subscribers still owed the last edit.
        wake_.wait_until(lock, Clock::now() + std::chrono::milliseconds(5), woken);
      } else {
        wake_.wait_until(lock, next, woken);
      }
      if (stopping_) break;
      batch.swap(queue_);
    }
    // Commands run between steps, in the order they came; once a running
    // world's tick is due (a Step job's: after a period of commands), the
    // rest wait for the next pass, at the front.
    const Clock::time_point commands_until = !state_.paused ? next
                                             : job_         ? Clock::now() + period_of(state_.world.core().settings())
                                                            : Clock::time_point::max();
    std::size_t ran = 0;  // the bytes of the commands run
    for (auto p = batch.begin(); p != batch.end(); ++p) {
      if (p != batch.begin() && Clock::now() >= commands_until) {
        std::lock_guard lock(mutex_);
        queue_.insert(queue_.begin(), std::make_move_iterator(p), std::make_move_iterator(batch.end()));
        batch.erase(p, batch.end());
        break;
      }
      p->command(state_);
      ran += p->bytes;
      if (store_) store_->after_command(state_);
    }
    if (ran > 0) {
      std::lock_guard lock(mutex_);
      waiting_bytes_ -= ran;
    }
    if (!batch.empty()) {
      checkpoint_stale_ = true;  // a command may have changed what a step would have to go back to
      publish_summary(state_);
      commit();
    }
    const Clock::duration period = period_of(state_.world.core().settings());
    if (state_.paused) {
      was_running = false;
      if (run_job(state_)) {
        owed_ = publish(state_);
        publish_summary(state_, false);  // the job's answer has it
        continue;
      }
      // Edits to a paused world are seen at once, by whoever is ready; the
      // rest get the newest frame as soon as they are.
      if (!batch.empty()) {
        owed_ = publish(state_);
      } else if (!owed_.empty()) {
        owed_ = publish(state_, &owed_);
      }
      next = Clock::now() + period;
      continue;
    }
    // Resumed: a Step under way ends here, and the watchdog counts afresh.
    end_job(state_, StepEnd::resumed);
    if (!was_running) watchdog_.reset();
    was_running = true;
    owed_.clear();  // a running world offers a frame every tick
    const Clock::time_point now = Clock::now();
    if (now < next) continue;  // woken by a command: the tick is not due yet
    tick(state_, true);
    // A world that halted itself offers that frame to everyone, as an edit would.
    Subscribers skipped = publish(state_);
    if (state_.paused) owed_ = std::move(skipped);
    publish_summary(state_);
    // The schedule advances by whole periods, so it does not drift; a tick
    // that ran late is not made up by a burst of ticks: the schedule
    // restarts from now (the overrun is counted in step_once).
    next += period;
    if (next < Clock::now()) next = Clock::now();
  }
  // Streams hold their world: one still owed a frame would hold it for ever.
  owed_.clear();
  // A checkpoint to start again from (SIGTERM), or a deleted world's files gone.
  if (store_) {
    commit();
    store_->close(state_);
  }
  {
    std::lock_guard lock(mutex_);
    exited_ = true;
  }
  ended_.notify_all();
}

}  // namespace linkage::server
