#include <gtest/gtest.h>

#include "linkage/linkage.hpp"

using namespace linkage;

TEST(World, CreatesWithDefaults) {
  Result<World> w = World::create();
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value().settings().dimension, 2);
  EXPECT_EQ(w.value().bodies().size(), 0u);
}
