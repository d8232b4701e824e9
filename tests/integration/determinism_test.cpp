// Determinism across servers: the same scene and the same commands at the
// same ticks give bit-identical states on two separate in-process servers.
#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <sstream>

#include "convert/scene_io.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

v1::Scene chain_scene() {
  std::ifstream in(std::string(LINKAGE_SCENES_DIR) + "/chain.json");
  EXPECT_TRUE(in.good()) << "cannot read scenes/chain.json";
  std::stringstream text;
  text << in.rdbuf();
  Result<v1::Scene> scene = server::parse_scene_json(text.str());
  EXPECT_TRUE(scene.ok()) << (scene ? "" : scene.error().message);
  return scene ? scene.value() : v1::Scene{};
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

void expect_same_bits(const v1::Vec3& a, const v1::Vec3& b, const std::string& what) {
  EXPECT_TRUE(bits(a.x()) == bits(b.x()) && bits(a.y()) == bits(b.y()) && bits(a.z()) == bits(b.z()))
      << what << ": (" << a.x() << ", " << a.y() << ", " << a.z() << ") vs (" << b.x() << ", " << b.y() << ", "
      << b.z() << ")";
}

// One server with the chain loaded into a paused world, and the script's steps.
struct ServerRun {
  InProcessServer server;
  Client client{server.target()};

  ServerRun() {
    v1::CreateWorldRequest create;
    create.set_name("det");
    create.set_paused(true);
    client.create_world(create);
    v1::LoadSceneRequest load;
    load.set_world("det");
    *load.mutable_scene() = chain_scene();
    v1::LoadSceneResponse resp;
    const grpc::Status s = client.worlds->LoadScene(context().get(), load, &resp);
    EXPECT_TRUE(s.ok()) << status_text(s);
    EXPECT_TRUE(resp.world().paused());
    EXPECT_EQ(resp.world().body_count(), 20u);
  }
};

v1::ApplyBatchRequest first_batch() {
  v1::ApplyBatchRequest req;
  req.set_world("det");
  v1::Impulse* kick = req.add_commands()->mutable_apply_impulse();
  kick->mutable_body()->set_name("link-20");
  *kick->mutable_impulse() = vec(0.05, 0.1);
  v1::AppliedForce* push = req.add_commands()->mutable_add_force()->mutable_applied();
  push->mutable_body()->set_name("link-10");
  *push->mutable_force() = vec(0.0, 2.0);
  push->set_ticks(20);
  v1::BodyDef extra = particle("extra", 2.2, 0.0, 0.05);
  *req.add_commands()->mutable_create_body() = extra;
  *req.add_commands()->mutable_add_constraint() = rod("link-20", "extra", "tail");
  return req;
}

v1::ApplyBatchRequest second_batch(const v1::Id& tail) {
  v1::ApplyBatchRequest req;
  req.set_world("det");
  req.add_commands()->mutable_remove_body()->set_name("link-15");
  v1::Spring* spring = req.add_commands()->mutable_add_force()->mutable_spring();
  spring->mutable_a()->set_name("link-14");
  spring->mutable_b()->set_name("link-16");
  spring->set_stiffness(50.0);
  spring->set_damping(0.1);
  *req.add_commands()->mutable_remove_constraint() = tail;  // "extra" flies off on its own
  return req;
}

TEST(Determinism, SameSceneSameCommandsSameTicksGiveBitIdenticalStates) {
  ServerRun a, b;
  const v1::ListBodiesResponse start = a.client.list_bodies("det");

  // Step 30, batch, Step 45, batch, Step 60: the same on both servers.
  for (ServerRun* r : {&a, &b}) EXPECT_EQ(r->client.step("det", 30).tick(), 30u);
  v1::ApplyBatchResponse first[2], second[2];
  first[0] = a.client.apply_batch(first_batch());
  first[1] = b.client.apply_batch(first_batch());
  ASSERT_EQ(first[0].results_size(), 4);
  ASSERT_EQ(first[1].results_size(), 4);
  for (ServerRun* r : {&a, &b}) EXPECT_EQ(r->client.step("det", 45).tick(), 75u);
  second[0] = a.client.apply_batch(second_batch(first[0].results(3).created()));
  second[1] = b.client.apply_batch(second_batch(first[1].results(3).created()));
  for (ServerRun* r : {&a, &b}) EXPECT_EQ(r->client.step("det", 60).tick(), 135u);

  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(first[i].tick(), 30u);
    EXPECT_EQ(second[i].tick(), 75u);
  }
  EXPECT_EQ(first[0].SerializeAsString(), first[1].SerializeAsString()) << "the batches created different ids";
  EXPECT_EQ(second[0].SerializeAsString(), second[1].SerializeAsString());

  const v1::ListBodiesResponse ba = a.client.list_bodies("det"), bb = b.client.list_bodies("det");
  ASSERT_EQ(ba.bodies_size(), 20);  // 20 links + extra − link-15
  ASSERT_EQ(bb.bodies_size(), ba.bodies_size());
  int moved = 0;
  for (int i = 0; i < ba.bodies_size(); ++i) {
    const v1::Body &x = ba.bodies(i), &y = bb.bodies(i);
    SCOPED_TRACE(x.def().name());
    EXPECT_EQ(key(x.id()), key(y.id()));
    EXPECT_EQ(x.def().name(), y.def().name());
    expect_same_bits(x.def().position(), y.def().position(), "position");
    expect_same_bits(x.def().velocity(), y.def().velocity(), "velocity");
    EXPECT_EQ(bits(x.def().angle()), bits(y.def().angle()));
    EXPECT_EQ(bits(x.def().angular_velocity()), bits(y.def().angular_velocity()));
    for (const v1::Body& s : start.bodies())
      if (key(s.id()) == key(x.id()) && s.def().position().y() != x.def().position().y()) ++moved;
  }
  EXPECT_GE(moved, 15) << "the chain should have fallen: the test would prove nothing";
  EXPECT_EQ(ba.SerializeAsString(), bb.SerializeAsString());

  // The multipliers too.
  const v1::ListConstraintsResponse ca = a.client.list_constraints("det"), cb = b.client.list_constraints("det");
  ASSERT_EQ(ca.constraints_size(), cb.constraints_size());
  EXPECT_EQ(ca.SerializeAsString(), cb.SerializeAsString()) << "λ or C differ between the servers";
  EXPECT_EQ(a.client.list_forces("det").SerializeAsString(), b.client.list_forces("det").SerializeAsString());
}

// Bad input changes nothing, not even the next steps: a failed batch (which
// got as far as adding a body and a rod before its bad command) leaves the
// world on exactly the path it would have taken without it.
TEST(Determinism, AFailedBatchDoesNotPerturbTheRun) {
  ServerRun a, b;
  for (ServerRun* r : {&a, &b}) r->client.step("det", 40);
  v1::ApplyBatchRequest bad;
  bad.set_world("det");
  *bad.add_commands()->mutable_create_body() = particle("intruder", 0.5, -0.5, 1.0);
  *bad.add_commands()->mutable_add_constraint() = rod("link-20", "intruder");
  v1::Impulse* kick = bad.add_commands()->mutable_apply_impulse();
  kick->mutable_body()->set_name("link-5");
  *kick->mutable_impulse() = vec(1.0, 1.0);
  *bad.add_commands()->mutable_create_body() = particle("broken", 0.0, 0.0, -1.0);
  v1::ApplyBatchResponse resp;
  const grpc::Status s = a.client.worlds->ApplyBatch(context().get(), bad, &resp);
  ASSERT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status_text(s);
  for (ServerRun* r : {&a, &b}) r->client.step("det", 80);
  EXPECT_EQ(a.client.list_bodies("det").SerializeAsString(), b.client.list_bodies("det").SerializeAsString())
      << "the failed batch changed the run";
  EXPECT_EQ(a.client.list_constraints("det").SerializeAsString(), b.client.list_constraints("det").SerializeAsString());
}

}  // namespace
}  // namespace linkage::itest
