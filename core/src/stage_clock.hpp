#pragma once
// Charges a step's wall time to its stages (linkage::Stage): at every moment
// to the innermost stage running, so that the stages sum to the step's time
// with nothing worked out by subtraction. A stage is entered for the life of
// a Scope; entering one pauses the stage around it.

#include <chrono>

#include "linkage/diagnostics.hpp"

namespace linkage {

class StageClock {
 public:
  using Clock = std::chrono::steady_clock;

  // A step begins, in `stage` (its own bookkeeping); its times start at 0.
  void start(Stage stage) {
    times_ = {};
    current_ = stage;
    started_ = since_ = Clock::now();
  }
  // The step ends: the time since the last change goes to the stage
  // running. Returns the step's time, the sum of the stages'.
  double stop() {
    const Clock::time_point now = switch_at(current_);
    return std::chrono::duration<double>(now - started_).count();
  }
  const StageTimes& times() const { return times_; }

  class Scope {
   public:
    Scope(StageClock& clock, Stage stage) : clock_(clock), outer_(clock.current_) { clock_.switch_at(stage); }
    ~Scope() { clock_.switch_at(outer_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StageClock& clock_;
    Stage outer_;
  };

 private:
  // Charges the time since the last change to the current stage, then runs `next`.
  Clock::time_point switch_at(Stage next) {
    const Clock::time_point now = Clock::now();
    times_[current_] += std::chrono::duration<double>(now - since_).count();
    since_ = now;
    current_ = next;
    return now;
  }

  StageTimes times_;
  Stage current_ = Stage::integrate;
  Clock::time_point started_{}, since_{};
};

}  // namespace linkage
