// How a world remembers the splits of its steps (step_split.hpp).
#include "step_split.hpp"

#include <gtest/gtest.h>

namespace linkage {
namespace {

// A step that held at level 2 makes the next start there; after a wait at
// that level one level coarser is tried, and its failure doubles the wait.
TEST(StepSplit, StartsWhereTheLastStepHeldAndTriesCoarserAfterAWait) {
  StepSplit split;
  EXPECT_EQ(split.first_level(1), 0);
  split.held_at(0, 2);
  for (int i = 0; i < StepSplit::kFirstWait; ++i) {
    ASSERT_EQ(split.first_level(1), 2) << i;
    split.held_at(2, 2);
  }
  EXPECT_EQ(split.first_level(1), 1);  // the wait is over
  split.held_at(1, 2);                // the coarser level failed
  for (int i = 0; i < 2 * StepSplit::kFirstWait; ++i) {
    ASSERT_EQ(split.first_level(1), 2) << i;
    split.held_at(2, 2);
  }
  EXPECT_EQ(split.first_level(1), 1);
  split.held_at(1, 1);  // it held: the level drops, the wait starts over
  for (int i = 0; i < StepSplit::kFirstWait; ++i) {
    ASSERT_EQ(split.first_level(1), 1) << i;
    split.held_at(1, 1);
  }
  EXPECT_EQ(split.first_level(1), 0);
  split.held_at(0, 0);
  EXPECT_EQ(split.first_level(1), 0);
  EXPECT_EQ(split.level, 0);
}

// The wait for a coarser try doubles up to kMaxWait.
TEST(StepSplit, TheWaitForACoarserTryIsBounded) {
  StepSplit split;
  split.held_at(0, 1);
  for (int tries = 0; tries < 10; ++tries) {
    while (split.first_level(1) == 1) split.held_at(1, 1);
    split.held_at(0, 1);
  }
  EXPECT_EQ(split.wait, StepSplit::kMaxWait);
}

// Where no split held, splitting rests 1, 2, 4, … steps (at most kMaxRest);
// a split that holds again ends the doubling.
TEST(StepSplit, RestsLongerEachTimeNoSplitHolds) {
  StepSplit split;
  for (const int rest : {1, 2, 4, 8}) {
    ASSERT_GE(split.first_level(1), 0);
    split.none_held();
    for (int i = 0; i < rest; ++i) {
      ASSERT_EQ(split.first_level(1), -1) << rest << " " << i;
      split.rested();
    }
  }
  for (int i = 0; i < 10; ++i) split.none_held();
  EXPECT_EQ(split.rest, StepSplit::kMaxRest);
  while (split.first_level(1) < 0) split.rested();
  split.held_at(0, 1);
  split.none_held();
  EXPECT_EQ(split.rest, 1);
}

// A split never makes more substeps than a world may be set to: a world of
// 100 substeps splits to 800 at most, one of 600 not at all; a level held
// before the substeps rose is lowered to what they allow.
TEST(StepSplit, NeverMoreSubstepsThanAWorldMayHave) {
  EXPECT_EQ(StepSplit::max_level(1), StepSplit::kMaxLevel);
  EXPECT_EQ(StepSplit::max_level(100), 3);
  EXPECT_EQ(StepSplit::max_level(500), 1);
  EXPECT_EQ(StepSplit::max_level(600), 0);
  EXPECT_EQ(StepSplit::max_level(kMaxSubsteps), 0);
  StepSplit split;
  split.held_at(0, StepSplit::kMaxLevel);
  EXPECT_EQ(split.first_level(100), 3);
  EXPECT_EQ(split.first_level(600), -1);
}

}  // namespace
}  // namespace linkage
