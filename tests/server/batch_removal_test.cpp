// A batch's removals of bodies or of constraints, which run at once
// (HostedWorld::run_removals), against the same commands one by one:
// the same world, names, results, change log and errors.
#include <gtest/gtest.h>

#include <string>

#include "host/hosted_world.hpp"

using namespace linkage;
using namespace linkage::server;

namespace {

v1::Id proto_id(auto id) {
  v1::Id out;
  out.set_index(id.index);
  out.set_generation(id.generation);
  return out;
}

// A named chain of 12 particles hung from a fixed body, a spring and a
// force on some of them.
HostedWorld chain() {
  HostedWorld w(World::create().value());
  Repeated<v1::BodyDef> bodies;
  Repeated<v1::Id> ids;
  for (int i = 0; i <= 12; ++i) {
    v1::BodyDef* b = bodies.Add();
    b->set_name("b" + std::to_string(i));
    b->mutable_position()->set_x(0.5 * i);
    b->set_mass(1.0);
    if (i == 0) b->set_motion(v1::MOTION_FIXED);
  }
  EXPECT_TRUE(w.create_bodies(bodies, &ids).ok());
  Repeated<v1::ConstraintDef> rods;
  Repeated<v1::Id> rod_ids;
  for (int i = 0; i < 12; ++i) {
    v1::ConstraintDef* c = rods.Add();
    c->set_name("r" + std::to_string(i));
    c->mutable_distance()->mutable_a()->set_name("b" + std::to_string(i));
    c->mutable_distance()->mutable_b()->set_name("b" + std::to_string(i + 1));
  }
  EXPECT_TRUE(w.add_constraints(rods, &rod_ids).ok());
  v1::ForceDef spring;
  spring.mutable_spring()->mutable_a()->set_name("b3");
  spring.mutable_spring()->mutable_b()->set_name("b7");
  spring.mutable_spring()->set_stiffness(2.0);
  EXPECT_TRUE(w.add_force(spring).ok());
  v1::ForceDef push;
  push.mutable_applied()->mutable_body()->set_name("b5");
  push.mutable_applied()->mutable_force()->set_x(1.0);
  EXPECT_TRUE(w.add_force(push).ok());
  return w;
}

v1::Command remove_body(const std::string& name) {
  v1::Command c;
  c.mutable_remove_body()->set_name(name);
  return c;
}

v1::Command remove_body(BodyId id) {
  v1::Command c;
  *c.mutable_remove_body()->mutable_id() = proto_id(id);
  return c;
}

v1::Command remove_constraint(ConstraintId id) {
  v1::Command c;
  *c.mutable_remove_constraint() = proto_id(id);
  return c;
}

// The batch `commands` on one chain, and each command as a batch of its own
// on another: the same outcome, result by result.
void expect_as_one_by_one(const std::vector<v1::Command>& commands) {
  HostedWorld at_once = chain(), one_by_one = chain();
  const std::uint64_t since = at_once.changes().version();
  Repeated<v1::Command> batch;
  for (const v1::Command& c : commands) *batch.Add() = c;
  Repeated<v1::CommandResult> results;
  const Status ok = at_once.apply_batch(batch, &results);
  Status first_error = ok_status();
  int failed = -1;
  Repeated<v1::CommandResult> singles;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    Repeated<v1::Command> one;
    *one.Add() = commands[i];
    Repeated<v1::CommandResult> result;
    const Status s = one_by_one.apply_batch(one, &result);
    if (!s) {
      first_error = s;
      failed = static_cast<int>(i);
      break;
    }
    *singles.Add() = result.Get(0);
  }
  if (failed >= 0) {
    ASSERT_FALSE(ok.ok());
    EXPECT_EQ(ok.error().code, first_error.error().code);
    // One by one, each batch's error names commands[0].
    std::string expected = first_error.error().message;
    expected.replace(0, std::string("commands[0]").size(), "commands[" + std::to_string(failed) + "]");
    EXPECT_EQ(ok.error().message, expected);
    EXPECT_EQ(results.size(), 0);
    const HostedWorld untouched = chain();
    EXPECT_EQ(at_once.core().bodies(), untouched.core().bodies()) << "a refused batch changes nothing";
    EXPECT_EQ(at_once.core().constraints(), untouched.core().constraints());
    EXPECT_EQ(at_once.changes().version(), since);
    return;
  }
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(results.size(), singles.size());
  for (int i = 0; i < results.size(); ++i)
    EXPECT_EQ(results.Get(i).SerializeAsString(), singles.Get(i).SerializeAsString()) << "result " << i;
  EXPECT_EQ(at_once.core().bodies(), one_by_one.core().bodies());
  EXPECT_EQ(at_once.core().constraints(), one_by_one.core().constraints());
  EXPECT_EQ(at_once.core().forces(), one_by_one.core().forces());
  for (int i = 0; i <= 12; ++i) {
    const std::string name = "b" + std::to_string(i);
    EXPECT_EQ(at_once.names().find_body(name), one_by_one.names().find_body(name)) << name;
  }
  const TopologyDelta a = at_once.changes().since(since), b = one_by_one.changes().since(since);
  EXPECT_EQ(a.removed_bodies, b.removed_bodies);
  EXPECT_EQ(a.removed_constraints, b.removed_constraints);
  EXPECT_EQ(a.removed_springs, b.removed_springs);
}

}  // namespace

TEST(BatchRemoval, BodiesAtOnceAsOneByOne) {
  const HostedWorld w = chain();
  const std::vector<BodyId> b = w.core().bodies();
  // Neighbours (the rod between them goes with the first), by name and by
  // id, the spring's two ends, the pushed body.
  expect_as_one_by_one({remove_body("b4"), remove_body(b[3]), remove_body("b7"), remove_body(b[5]), remove_body("b12")});
}

TEST(BatchRemoval, ConstraintsAtOnceAsOneByOne) {
  const HostedWorld w = chain();
  const std::vector<ConstraintId> c = w.core().constraints();
  expect_as_one_by_one({remove_constraint(c[11]), remove_constraint(c[0]), remove_constraint(c[5])});
}

TEST(BatchRemoval, RunsOfEachKindBetweenOtherCommands) {
  const HostedWorld w = chain();
  const std::vector<ConstraintId> c = w.core().constraints();
  v1::Command impulse;
  impulse.mutable_apply_impulse()->mutable_body()->set_name("b9");
  impulse.mutable_apply_impulse()->mutable_impulse()->set_y(1.0);
  expect_as_one_by_one({remove_constraint(c[1]), remove_constraint(c[2]), remove_body("b8"), remove_body("b9"), impulse,
                        remove_constraint(c[10]), remove_body("b1")});
}

// The error a removal gives one by one, at its index, and nothing changed:
// a body named twice, one whose name went with an earlier removal's body,
// an unknown id, a constraint removed twice, one a body removal took.
TEST(BatchRemoval, RefusedAsOneByOne) {
  const HostedWorld w = chain();
  const std::vector<BodyId> b = w.core().bodies();
  const std::vector<ConstraintId> c = w.core().constraints();
  expect_as_one_by_one({remove_body("b2"), remove_body("b3"), remove_body("b2"), remove_body("b4")});
  expect_as_one_by_one({remove_body(b[2]), remove_body("b2")});
  expect_as_one_by_one({remove_body("b2"), remove_body(BodyId{999, 1})});
  expect_as_one_by_one({remove_body("b2"), remove_body(BodyId{})});
  expect_as_one_by_one({remove_constraint(c[3]), remove_constraint(c[4]), remove_constraint(c[3])});
  expect_as_one_by_one({remove_body("b5"), remove_constraint(c[6]), remove_constraint(c[4])});
}
