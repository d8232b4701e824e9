#include <gtest/gtest.h>

#include "linkage/linkage.hpp"

using namespace linkage;

TEST(World, CreatesWithDefaults) {
  Result<World> w = World::create();
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value().settings().dimension, 2);
  EXPECT_EQ(w.value().bodies().size(), 0u);
}

TEST(World, StatesInPackedColumns) {
  World w = World::create().value();
  const BodyId p = w.add_body({.position = Vec3(1, 2, 0), .velocity = Vec3(3, 4, 0), .mass = 1}).value();
  const BodyId r = w.add_body({.kind = BodyKind::rigid, .position = Vec3(5, 6, 0), .angle = 0.5,
                               .angular_velocity = -1, .shape = Disk{1}})
                       .value();
  const ConstraintId c = w.add_constraint(DistanceDef{.a = p, .b = r, .length = 1.0}).value();
  BodyStates b;
  w.body_states(b);
  EXPECT_EQ(b.ids, (std::vector<BodyId>{p, r}));
  EXPECT_EQ(b.position, (std::vector<double>{1, 2, 5, 6}));
  EXPECT_EQ(b.velocity, (std::vector<double>{3, 4, 0, 0}));
  EXPECT_EQ(b.angle, (std::vector<double>{0, 0.5}));
  EXPECT_EQ(b.angular_velocity, (std::vector<double>{0, -1}));
  ConstraintStates cs;
  w.constraint_states(cs);
  ASSERT_EQ(cs.ids, std::vector<ConstraintId>{c});
  EXPECT_EQ(cs.rows, std::vector<std::uint32_t>{1});
  EXPECT_DOUBLE_EQ(cs.error[0], std::sqrt(32.0) - 1.0);
}
