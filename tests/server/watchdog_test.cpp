// The watchdog's count (server/host/guard.hpp): a streak of slow ticks, or
// one tick as long as such a streak, pauses a world; a tick in time ends a
// streak; ticks 0 turns it off.
#include <gtest/gtest.h>

#include "host/guard.hpp"

using namespace linkage::server;

TEST(Watchdog, PausesAfterAStreakOfSlowTicks) {
  const WatchdogLimits limits{.factor = 4.0, .ticks = 60};
  const double period = 1.0 / 60.0, slow = 5.0 * period;
  Watchdog w;
  for (int i = 1; i < 60; ++i) ASSERT_FALSE(w.overran(slow, period, limits)) << i;
  EXPECT_TRUE(w.overran(slow, period, limits));
  w.reset();
  for (int i = 1; i < 60; ++i) ASSERT_FALSE(w.overran(slow, period, limits));
  EXPECT_FALSE(w.overran(period, period, limits)) << "a tick in time ends the streak";
  for (int i = 1; i < 60; ++i) ASSERT_FALSE(w.overran(slow, period, limits));
  EXPECT_TRUE(w.overran(slow, period, limits));
}

TEST(Watchdog, PausesAfterOneTickAsLongAsAStreak) {
  const WatchdogLimits limits{.factor = 4.0, .ticks = 60};
  const double period = 1.0 / 60.0;
  Watchdog w;
  EXPECT_FALSE(w.overran(3.9, period, limits));  // under 60 × 4 periods: one of a streak
  EXPECT_FALSE(Watchdog::long_step(3.9, period, limits));
  Watchdog fresh;
  EXPECT_TRUE(fresh.overran(4.0, period, limits));
  EXPECT_TRUE(Watchdog::long_step(40.0, period, limits));
}

TEST(Watchdog, TicksZeroNeverPauses) {
  const WatchdogLimits off{.factor = 4.0, .ticks = 0};
  Watchdog w;
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(w.overran(1000.0, 1.0 / 60.0, off));
  EXPECT_FALSE(Watchdog::long_step(1000.0, 1.0 / 60.0, off));
}
