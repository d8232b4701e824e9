#include "picture.hpp"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

namespace linkage::itest {

using google::protobuf::util::MessageDifferencer;

Picture picture(Client& c, const std::string& world) {
  Picture p;
  p.bodies = c.list_bodies(world);
  p.constraints = c.list_constraints(world);
  p.forces = c.list_forces(world);
  p.world = c.get_world(world);
  p.world.clear_subscribers();
  // Timings, not what the world is.
  p.world.clear_overruns();
  p.world.clear_step_seconds();
  p.world.clear_busy_seconds();
  if (!p.world.paused()) {
    p.world.clear_tick();
    p.world.clear_time();
  }
  return p;
}

void expect_same(const Picture& after, const Picture& before) {
  EXPECT_TRUE(MessageDifferencer::Equals(after.bodies, before.bodies)) << "ListBodies changed";
  EXPECT_TRUE(MessageDifferencer::Equals(after.constraints, before.constraints)) << "ListConstraints changed";
  EXPECT_TRUE(MessageDifferencer::Equals(after.forces, before.forces)) << "ListForces changed";
  EXPECT_TRUE(MessageDifferencer::Equals(after.world, before.world))
      << "GetWorld changed:\n" << before.world.DebugString() << "→\n" << after.world.DebugString();
}

}  // namespace linkage::itest
