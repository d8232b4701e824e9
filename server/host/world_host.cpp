#include "world_host.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "frames.hpp"
#include "subscriber.hpp"

namespace linkage::server {

using Clock = std::chrono::steady_clock;

WorldHost::WorldHost(std::string name, World world, Names names, Limits limits, bool paused)
    : name_(std::move(name)), state_{std::move(world), std::move(names), limits, ChangeLog(), {}, paused, 0, 0, {}, nullptr} {
  state_.footprint = Footprint::of(state_.world, state_.names);
  thread_ = std::thread([this] { run(); });
}

WorldHost::~WorldHost() { stop("world deleted"); }

void WorldHost::post(Command command, std::function<void()> dropped) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      queue_.push_back({std::move(command), std::move(dropped)});
      wake_.notify_one();
      return;
    }
  }
  dropped();
}

void WorldHost::advance(State& s, std::uint32_t ticks) {
  for (std::uint32_t i = 0; i < ticks; ++i) {
    step_once(s);
    publish(s);
  }
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
  // the newcomer gets its first frame without waiting for a tick.
  post([](State&) {}, [] {});
}

void WorldHost::unsubscribe(const Subscriber* s) {
  std::lock_guard lock(mutex_);
  std::erase_if(subscribers_, [s](const auto& p) { return p.get() == s; });
}

int WorldHost::subscribers() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(subscribers_.size());
}

void WorldHost::stop(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::deque<Pending> left;
  std::vector<std::shared_ptr<Subscriber>> subs;
  {
    std::lock_guard lock(mutex_);
    left.swap(queue_);
    subs.swap(subscribers_);
  }
  for (Pending& p : left) p.dropped();
  for (auto& s : subs) s->end(reason);
}

void WorldHost::step_once(State& s) {
  s.last = &s.world.step();
  ++s.tick;
  if (s.last->step_seconds > s.world.settings().dt) ++s.overruns;
}

WorldHost::Subscribers WorldHost::publish(State& s, const Subscribers* only) {
  Subscribers subs, skipped;
  {
    std::lock_guard lock(mutex_);
    if (only) {
      for (const auto& o : *only)
        if (std::find(subscribers_.begin(), subscribers_.end(), o) != subscribers_.end()) subs.push_back(o);
    } else {
      subs = subscribers_;
    }
  }
  if (subs.empty()) return skipped;  // no one asked: no frame is built
  const Clock::time_point now = Clock::now();
  std::shared_ptr<v1::Snapshot> frames[2][2];  // by (constraints, diagnostics): each built at most once a tick
  for (const auto& sub : subs) {
    if (!sub->ready(now)) {
      skipped.push_back(sub);
      continue;
    }
    const bool c = sub->wants_constraints(), d = sub->wants_diagnostics();
    std::shared_ptr<v1::Snapshot>& base = frames[c][d];
    if (!base) base = build_frame(s, name_, c, d);
    const std::uint64_t known = sub->known_version();
    if (known == s.changes.version()) {
      sub->send(base);
      continue;
    }
    auto own = std::make_shared<v1::Snapshot>(*base);
    fill_changes(s, s.changes.since(known), own->mutable_changes());
    sub->send(std::move(own));
  }
  return skipped;
}

void WorldHost::run() {
  Clock::time_point next = Clock::now();
  for (;;) {
    std::deque<Pending> batch;
    {
      std::unique_lock lock(mutex_);
      auto woken = [&] { return stopping_ || !queue_.empty(); };
      if (state_.paused && owed_.empty()) {
        wake_.wait(lock, woken);
      } else if (state_.paused) {
        // Come back for the subscribers still owed the last edit.
        wake_.wait_until(lock, Clock::now() + std::chrono::milliseconds(5), woken);
      } else {
        wake_.wait_until(lock, next, woken);
      }
      if (stopping_) return;
      batch.swap(queue_);
    }
    // Commands run between steps, in the order they came.
    for (Pending& p : batch) p.command(state_);
    const Clock::duration period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(state_.world.settings().dt));
    if (state_.paused) {
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
    owed_.clear();  // a running world offers a frame every tick
    const Clock::time_point now = Clock::now();
    if (now < next) continue;  // woken by a command: the tick is not due yet
    step_once(state_);
    publish(state_);
    // The schedule advances by whole periods, so it does not drift; a tick
    // that ran late is not made up by a burst of ticks: the schedule
    // restarts from now (the overrun is counted in step_once).
    next += period;
    if (next < Clock::now()) next = Clock::now();
  }
}

}  // namespace linkage::server
