#pragma once
// The two ways the server pauses a world by itself, checked after every step
// on the world's tick thread:
// - the watchdog: a running world whose steps take longer than `factor`
//   times its tick period for `ticks` ticks in a row (or one step as long as
//   those ticks) falls ever further behind real time while it holds a core;
//   it is paused.
// - divergence: a step that leaves a non-finite number in the world's state
//   (or a constraint error above the world's bound) is undone: the world goes
//   back to its last good state and is paused.

#include <cstdint>
#include <optional>
#include <string>

#include "linkage/linkage.hpp"

namespace linkage::server {

enum class HaltReason { none, watchdog, diverged };

// Why the server paused a world by itself; reason none: it has not (or a
// client has resumed or stepped it since).
struct Halt {
  HaltReason reason = HaltReason::none;
  std::uint64_t tick = 0;  // the tick the world holds since
  std::string message;     // for people: what happened and what was done
};

struct WatchdogLimits {
  double factor = 4.0;  // a step longer than factor × the tick period overruns
  int ticks = 60;       // overrunning ticks in a row that pause the world; 0: never
};

class Watchdog {
 public:
  // Counts one tick of a running world; true once `limits.ticks` ticks in a
  // row took longer than factor × period, or at once where one tick took as
  // long as such a streak at least would (long_step): a step of minutes (an
  // exact solve of a pile) pauses its world after it, not after sixty.
  bool overran(double step_seconds, double period, const WatchdogLimits& limits);
  static bool long_step(double step_seconds, double period, const WatchdogLimits& limits) {
    return limits.ticks > 0 && step_seconds >= limits.ticks * limits.factor * period;
  }
  // A paused, edited or resumed world starts counting afresh.
  void reset() { streak_ = 0; }

 private:
  int streak_ = 0;
};

// What is wrong with the world after a step, for people ("body 3:1's
// velocity is not finite"), or nothing. `max_error` > 0 bounds the step's
// largest constraint error; `scratch` keeps its buffers from step to step.
std::optional<std::string> divergence(const World& world, const StepDiagnostics& step, double max_error,
                                      BodyStates& scratch);

}  // namespace linkage::server
