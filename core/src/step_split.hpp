#pragma once
// A step of the exact family whose position projection does not converge
// is taken again as twice as many substeps, as a DAE integrator halves a
// step whose Newton iteration fails (DASSL, IDA). The error a step leaves
// for the projection grows as h², and Newton's reach around curved
// constraints with it: a 3D slack cloth folding like an accordion (its top
// rods drawn nearly straight) left Gauss–Newton converging linearly, then
// not at all, at dt = 1/60, and holds 1e-10 at dt = 1/120.
//
// The split is remembered: the next steps start at the level that held,
// and a coarser one is tried again after a wait that doubles each time it
// fails. A step that no split holds (constraints that cannot all hold, a
// taut cloth's first-order mechanism) is taken at its own length to the
// full cap, as without splitting, and splitting rests for a while, also
// doubling: such a world pays for the tries about once in `kMaxRest` steps.

#include <algorithm>

#include "linkage/settings.hpp"

namespace linkage {

struct StepSplit {
  // A step splits at most this many times: up to 2^kMaxLevel × substeps,
  // and never into more than kMaxSubsteps (max_level).
  static constexpr int kMaxLevel = 4;
  static int max_level(int substeps) {
    int level = 0;
    while (level < kMaxLevel && (substeps << (level + 1)) <= kMaxSubsteps) ++level;
    return level;
  }
  // An attempt that may still split stops its projections at half their
  // cap: one that has not converged by then is judged to fail. Projections
  // that converge slowly are not split: chain_1000's take up to 52
  // iterations (its long, ill-conditioned modes, whatever the step's length).
  static int judged(int cap) { return std::max(cap / 2, 1); }
  static constexpr int kFirstWait = 8, kMaxWait = 64;
  static constexpr int kMaxRest = 64;

  int level = 0;  // the level steps start at: 2^level × substeps
  int calm = 0;   // steps run at `level` since it last changed or a coarser one failed
  int wait = kFirstWait;  // steps at `level` before one level coarser is tried
  int rest = 0;           // steps left that do not split (no split held)
  int next_rest = 1;

  // The level this step tries first, or −1: no splitting (at rest).
  int first_level(int substeps) const {
    if (rest > 0 || max_level(substeps) == 0) return -1;
    const int at = std::min(level, max_level(substeps));
    return at > 0 && calm >= wait ? at - 1 : at;
  }
  // The step, tried from `first` (first_level()), held at `held`.
  void held_at(int first, int held) {
    if (first < level) {  // one level coarser was tried: it held, or the wait doubles
      wait = held == first ? kFirstWait : std::min(2 * wait, kMaxWait);
      level = held;
      calm = 0;
    } else if (held > level) {
      level = held;
      calm = 0;
      wait = kFirstWait;
    } else {
      calm = std::min(calm + 1, kMaxWait);
    }
    if (held > 0) next_rest = 1;
  }
  // No level held: the step ran at its own length, and splitting rests.
  void none_held() {
    level = 0;
    calm = 0;
    wait = kFirstWait;
    rest = next_rest;
    next_rest = std::min(2 * next_rest, kMaxRest);
  }
  // A step taken without splitting (at rest).
  void rested() { rest = std::max(rest - 1, 0); }
};

}  // namespace linkage
