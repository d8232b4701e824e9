// Updates by field mask: UpdateBody, UpdateConstraint, UpdateForce and
// UpdateWorld (and a batch's updates) change only the fields their
// update_mask names, read nothing first, and refuse an unknown path.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <thread>

#include "support.hpp"

namespace linkage::itest {
namespace {

using google::protobuf::util::MessageDifferencer;

v1::Body get_body(Client& c, const std::string& world, const std::string& name) {
  v1::GetBodyRequest r;
  r.set_world(world);
  r.mutable_body()->set_name(name);
  v1::GetBodyResponse resp;
  EXPECT_TRUE(c.bodies->GetBody(context().get(), r, &resp).ok());
  return resp.body();
}

v1::UpdateBodyRequest body_update(const std::string& world, const std::string& name, std::initializer_list<const char*> paths) {
  v1::UpdateBodyRequest r;
  r.set_world(world);
  r.mutable_body()->set_name(name);
  for (const char* p : paths) r.mutable_update_mask()->add_paths(p);
  return r;
}

class FieldMask : public ::testing::Test {
 protected:
  void SetUp() override {
    v1::CreateWorldRequest create;
    create.set_name("masks");
    create.set_paused(true);
    c.create_world(create);
    v1::ApplyBatchRequest b;
    b.set_world("masks");
    *b.add_commands()->mutable_create_body() = particle("bob", 1, 0, 2.0);
    *b.add_commands()->mutable_add_constraint() = rod("", "bob", "rod");
    v1::ForceDef spring;
    spring.mutable_spring()->mutable_a()->set_name("bob");
    spring.mutable_spring()->set_stiffness(50);
    spring.mutable_spring()->set_damping(0.5);
    *b.add_commands()->mutable_add_force() = spring;
    const v1::ApplyBatchResponse done = c.apply_batch(b);
    ASSERT_EQ(done.results_size(), 3);
    rod_id = done.results(1).created();
    spring_id = done.results(2).created();
  }

  InProcessServer server;
  Client c{server.target()};
  v1::Id rod_id, spring_id;
};

TEST_F(FieldMask, UpdateBodyChangesOnlyTheNamedFields) {
  const v1::Body before = get_body(c, "masks", "bob");
  v1::UpdateBodyRequest r = body_update("masks", "bob", {"mass", "name"});
  r.mutable_def()->set_mass(5);
  r.mutable_def()->set_name("heavy");
  r.mutable_def()->mutable_position()->set_x(42);  // not named: ignored
  v1::UpdateBodyResponse resp;
  ASSERT_TRUE(c.bodies->UpdateBody(context().get(), r, &resp).ok());
  v1::Body expected = before;
  expected.mutable_def()->set_mass(5);
  expected.mutable_def()->set_name("heavy");
  EXPECT_TRUE(MessageDifferencer::Equals(resp.body(), expected))
      << resp.body().ShortDebugString() << "\nvs\n" << expected.ShortDebugString();
  EXPECT_TRUE(MessageDifferencer::Equals(get_body(c, "masks", "heavy"), expected));
}

TEST_F(FieldMask, AMassChangeLeavesARunningBodysStateAlone) {
  v1::ResumeRequest resume;
  resume.set_world("masks");
  v1::ResumeResponse resumed;
  ASSERT_TRUE(c.worlds->Resume(context().get(), resume, &resumed).ok());
  std::this_thread::sleep_for(300ms);  // bob swings down: its state is nothing like the one it was made with
  const v1::BodyDef moving = get_body(c, "masks", "bob").def();
  ASSERT_LT(moving.position().y(), -0.1);
  // The client sends only the mass (the def's position and velocity are
  // zero, and must not be taken).
  v1::UpdateBodyRequest r = body_update("masks", "bob", {"mass"});
  r.mutable_def()->set_mass(7);
  v1::UpdateBodyResponse resp;
  ASSERT_TRUE(c.bodies->UpdateBody(context().get(), r, &resp).ok());
  const v1::BodyDef& d = resp.body().def();
  EXPECT_EQ(d.mass(), 7);
  // On its rod of length 1 about the origin, where the world had it: not
  // snapped to (0, 0), nor to where it was when made.
  EXPECT_NEAR(d.position().x() * d.position().x() + d.position().y() * d.position().y(), 1.0, 1e-3);
  EXPECT_LT(d.position().y(), -0.1);
  EXPECT_GT(d.velocity().x() * d.velocity().x() + d.velocity().y() * d.velocity().y(), 0.01);
}

// A mask of state alone is the body's state set apart from its model
// (World::set_body_state): the body moves, its model stays, and a state the
// body cannot take is refused as a whole def's would be.
TEST_F(FieldMask, AStateMaskMovesTheBodyAlone) {
  const v1::Body before = get_body(c, "masks", "bob");
  v1::UpdateBodyRequest r = body_update("masks", "bob", {"position", "velocity.x"});
  r.mutable_def()->mutable_position()->set_x(0.6);
  r.mutable_def()->mutable_position()->set_y(-0.8);
  r.mutable_def()->mutable_velocity()->set_x(2);
  r.mutable_def()->set_mass(99);  // not named: ignored
  v1::UpdateBodyResponse resp;
  ASSERT_TRUE(c.bodies->UpdateBody(context().get(), r, &resp).ok());
  v1::Body expected = before;
  expected.mutable_def()->mutable_position()->set_x(0.6);
  expected.mutable_def()->mutable_position()->set_y(-0.8);
  expected.mutable_def()->mutable_velocity()->set_x(2);
  EXPECT_TRUE(MessageDifferencer::Equals(resp.body(), expected))
      << resp.body().ShortDebugString() << "\nvs\n" << expected.ShortDebugString();

  v1::UpdateBodyRequest bad = body_update("masks", "bob", {"angle"});
  bad.mutable_def()->set_angle(1.0);  // bob is a particle
  const grpc::Status s = c.bodies->UpdateBody(context().get(), bad, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("def.angle, def.angular_velocity: a particle has no angle"), std::string::npos)
      << s.error_message();
  EXPECT_TRUE(MessageDifferencer::Equals(get_body(c, "masks", "bob"), expected));
}

TEST_F(FieldMask, UpdateConstraintAndForceChangeOnlyTheNamedFields) {
  v1::GetConstraintRequest get;
  get.set_world("masks");
  *get.mutable_id() = rod_id;
  v1::GetConstraintResponse before;
  ASSERT_TRUE(c.constraints->GetConstraint(context().get(), get, &before).ok());

  v1::UpdateConstraintRequest r;
  r.set_world("masks");
  *r.mutable_id() = rod_id;
  r.mutable_constraint()->mutable_distance()->set_length(1.5);
  r.mutable_update_mask()->add_paths("distance.length");
  v1::UpdateConstraintResponse resp;
  ASSERT_TRUE(c.constraints->UpdateConstraint(context().get(), r, &resp).ok());
  v1::ConstraintDef expected = before.constraint().def();
  expected.mutable_distance()->set_length(1.5);
  EXPECT_TRUE(MessageDifferencer::Equals(resp.constraint().def(), expected))
      << resp.constraint().def().ShortDebugString() << "\nvs\n" << expected.ShortDebugString();

  v1::UpdateForceRequest f;
  f.set_world("masks");
  *f.mutable_id() = spring_id;
  f.mutable_force()->mutable_spring()->set_stiffness(80);
  f.mutable_update_mask()->add_paths("spring.stiffness");
  v1::UpdateForceResponse updated;
  ASSERT_TRUE(c.forces->UpdateForce(context().get(), f, &updated).ok());
  const v1::Spring& s = updated.force().def().spring();
  EXPECT_EQ(s.stiffness(), 80);
  EXPECT_EQ(s.damping(), 0.5);  // kept
  EXPECT_EQ(s.a().id().index(), get_body(c, "masks", "bob").id().index());
}

// A rod whose only body became fixed after it was added stays in the world
// (nothing moves it): its name and softness may still change, while a
// change of its definition is refused as adding it would be.
TEST_F(FieldMask, AConstraintOnFixedBodiesCanBeRenamed) {
  v1::UpdateBodyRequest fix = body_update("masks", "bob", {"motion"});
  fix.mutable_def()->set_motion(v1::MOTION_FIXED);
  v1::UpdateBodyResponse fixed;
  ASSERT_TRUE(c.bodies->UpdateBody(context().get(), fix, &fixed).ok());

  v1::UpdateConstraintRequest r;
  r.set_world("masks");
  *r.mutable_id() = rod_id;
  r.mutable_constraint()->set_name("still-here");
  r.mutable_constraint()->mutable_softness()->set_frequency(2.0);
  r.mutable_update_mask()->add_paths("name");
  r.mutable_update_mask()->add_paths("softness.frequency");
  v1::UpdateConstraintResponse resp;
  const grpc::Status renamed = c.constraints->UpdateConstraint(context().get(), r, &resp);
  ASSERT_TRUE(renamed.ok()) << renamed.error_message();
  EXPECT_EQ(resp.constraint().def().name(), "still-here");
  EXPECT_EQ(resp.constraint().def().softness().frequency(), 2.0);

  r.clear_update_mask();
  r.mutable_constraint()->mutable_distance()->set_length(1.5);
  r.mutable_update_mask()->add_paths("distance.length");
  const grpc::Status changed = c.constraints->UpdateConstraint(context().get(), r, &resp);
  EXPECT_EQ(changed.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(changed.error_message().find("no body it names is dynamic"), std::string::npos) << changed.error_message();
}

TEST_F(FieldMask, UpdateWorldChangesOnlyTheNamedSettings) {
  const v1::World before = c.get_world("masks");
  v1::UpdateWorldRequest r;
  r.set_world("masks");
  r.mutable_settings()->mutable_gravity()->set_y(-1.62);
  r.mutable_update_mask()->add_paths("gravity");
  v1::UpdateWorldResponse resp;
  ASSERT_TRUE(c.worlds->UpdateWorld(context().get(), r, &resp).ok());
  v1::WorldSettings expected = before.settings();
  *expected.mutable_gravity() = vec(0, -1.62);
  EXPECT_TRUE(MessageDifferencer::Equals(resp.world().settings(), expected))
      << resp.world().settings().ShortDebugString() << "\nvs\n" << expected.ShortDebugString();
}

TEST_F(FieldMask, ABatchUpdateTakesItsMask) {
  const v1::Body before = get_body(c, "masks", "bob");
  v1::ApplyBatchRequest b;
  b.set_world("masks");
  v1::UpdateBodyRequest* u = b.add_commands()->mutable_update_body();
  *u = body_update("", "bob", {"linear_damping"});
  u->mutable_def()->set_linear_damping(0.25);
  c.apply_batch(b);
  v1::Body expected = before;
  expected.mutable_def()->set_linear_damping(0.25);
  EXPECT_TRUE(MessageDifferencer::Equals(get_body(c, "masks", "bob"), expected));
}

TEST_F(FieldMask, AnUnknownPathIsRefusedAndChangesNothing) {
  const v1::Body before = get_body(c, "masks", "bob");
  v1::UpdateBodyRequest r = body_update("masks", "bob", {"mass", "colour"});
  r.mutable_def()->set_mass(9);
  v1::UpdateBodyResponse resp;
  const grpc::Status s = c.bodies->UpdateBody(context().get(), r, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("update_mask.paths[1]: BodyDef has no field 'colour'"), std::string::npos)
      << s.error_message();
  EXPECT_TRUE(MessageDifferencer::Equals(get_body(c, "masks", "bob"), before));
}

}  // namespace
}  // namespace linkage::itest
