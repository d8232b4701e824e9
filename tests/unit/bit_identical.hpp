#pragma once
// The determinism check several tests share: two worlds built alike step
// bit-identically, and one saved part-way and restored into a fresh world
// continues as the world it came from.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "linkage/linkage.hpp"

namespace linkage::test {

// Builds two worlds, runs both `steps` steps, saves one and runs both
// `steps` more; a third world restored from the save runs them too. The
// state hashes of those last steps agree. `check` sees every step's
// diagnostics (for what must hold along the way).
inline void expect_bit_identical(const std::function<World()>& build, int steps,
                                 const std::function<void(const StepDiagnostics&)>& check = {}) {
  const auto run = [&](World& w) {
    std::vector<std::uint64_t> hashes;
    for (int i = 0; i < steps; ++i) {
      const StepDiagnostics& d = w.step();
      if (check) check(d);
      hashes.push_back(w.state_hash());
    }
    return hashes;
  };
  World a = build(), b = build();
  run(a);
  run(b);
  const WorldState saved = a.save();
  const std::vector<std::uint64_t> expected = run(a);
  EXPECT_EQ(run(b), expected) << "a second run";
  World c = build();
  c.restore(saved);
  EXPECT_EQ(run(c), expected) << "restored";
}

}  // namespace linkage::test
