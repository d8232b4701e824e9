#include "convert/names.hpp"

#include <gtest/gtest.h>

#include "linkage/world.hpp"

namespace linkage::server {
namespace {

TEST(Names, AllowedCharacters) {
  EXPECT_TRUE(check_name("a"));
  EXPECT_TRUE(check_name("Crank-motor_2.v1"));
  EXPECT_TRUE(check_name(std::string(64, 'x')));
  for (const std::string& bad : {std::string(), std::string(65, 'x'), std::string("a b"), std::string("é"),
                                std::string("a/b"), std::string("a:b")}) {
    Status s = check_name(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().code, ErrorCode::invalid_argument);
    EXPECT_TRUE(s.error().message.starts_with("name: ")) << s.error().message;
  }
}

TEST(Names, NothingThatReadsAsAnIdOrTheWorld) {
  for (const char* ok : {"3a", "a3", "3.1", "3-1", "world2", "World", "w"}) EXPECT_TRUE(check_name(ok)) << ok;
  for (const char* id : {"3", "007", "3:1", "0:0"}) {
    Status s = check_name(id);
    ASSERT_FALSE(s) << id;
    EXPECT_EQ(s.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(s.error().message.find("reads as an id"), std::string::npos) << s.error().message;
  }
  Status world = check_name("world");
  ASSERT_FALSE(world);
  EXPECT_NE(world.error().message.find("fixed frame"), std::string::npos) << world.error().message;
  // Names live and die with the same rules in every world.
  Names n;
  EXPECT_FALSE(n.check_body_name("12"));
  EXPECT_FALSE(n.check_constraint_name("world"));
}

TEST(Names, QuotedShortAndPrintableInMessages) {
  EXPECT_EQ(quote("bob"), "'bob'");
  EXPECT_EQ(quote(std::string("a\nb\x01\xff", 5)), "'a\\x0ab\\x01\\xff'");
  const std::string q = quote(std::string(8000, 'x'));
  EXPECT_EQ(q, "'" + std::string(64, 'x') + "'… (8000 bytes)");
  // A long or unprintable name in a refusal is quoted the same way.
  Status s = check_name(std::string(8000, 'y'));
  ASSERT_FALSE(s);
  EXPECT_LT(s.error().message.size(), 200u) << s.error().message;
}

TEST(Names, BodiesBothWays) {
  Names n;
  const BodyId a{0, 1}, b{1, 1};
  ASSERT_TRUE(n.add_body("a", a));
  ASSERT_TRUE(n.add_body("", b));  // unnamed: nothing recorded
  EXPECT_EQ(n.find_body("a"), a);
  EXPECT_EQ(n.body_name(a), "a");
  EXPECT_EQ(n.body_name(b), "");
  EXPECT_FALSE(n.find_body(""));
  EXPECT_EQ(n.named_bodies(), 1u);
  // Unique per world; a clash is the world's state, not a malformed name.
  Status clash = n.add_body("a", b);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, ErrorCode::failed_precondition);
  EXPECT_EQ(clash.error().message, "name: 'a' is already the name of body 0:1");
  EXPECT_FALSE(n.check_body_name("a"));
  EXPECT_TRUE(n.check_body_name("b"));
  EXPECT_TRUE(n.add_body("a", a));  // its own name again: fine
  // Renaming frees the old name.
  ASSERT_TRUE(n.add_body("a2", a));
  EXPECT_FALSE(n.find_body("a"));
  EXPECT_EQ(n.find_body("a2"), a);
  n.remove_body(a);
  EXPECT_FALSE(n.find_body("a2"));
  EXPECT_EQ(n.body_name(a), "");
  // Bodies and constraints have separate name spaces.
  ASSERT_TRUE(n.add_body("x", b));
  ASSERT_TRUE(n.add_constraint("x", ConstraintId{0, 1}));
  EXPECT_EQ(n.constraint_name(ConstraintId{0, 1}), "x");
  EXPECT_EQ(n.find_constraint("x"), (ConstraintId{0, 1}));
  EXPECT_FALSE(n.add_constraint("x", ConstraintId{1, 1}));
}

TEST(Names, FollowTheWorld) {
  World w = World::create().value();
  Names n;
  const BodyId a = w.add_body({.mass = 1}).value();
  const BodyId b = w.add_body({.position = Vec3(1, 0, 0), .mass = 1}).value();
  const ConstraintId rod = w.add_constraint(DistanceDef{.a = a, .b = b}).value();
  const ConstraintId pin = w.add_constraint(PinDef{.b = a}).value();
  n.add_body("a", a).value();
  n.add_body("b", b).value();
  n.add_constraint("rod", rod).value();
  n.add_constraint("pin", pin).value();
  const Removed removed = w.remove_body(b).value();
  n.remove(b, removed);
  EXPECT_FALSE(n.find_body("b"));
  EXPECT_FALSE(n.find_constraint("rod"));
  EXPECT_EQ(n.find_constraint("pin"), pin);
  // prune: whatever the world no longer holds.
  w.remove_body(a).value();
  n.prune(w);
  EXPECT_EQ(n.named_bodies(), 0u);
  EXPECT_EQ(n.named_constraints(), 0u);
}

}  // namespace
}  // namespace linkage::server
