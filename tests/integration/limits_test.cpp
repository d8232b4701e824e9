// Issue 12, cases 4, 5 and 8: every limit holds on every path, a world stays
// small enough to be listed, saved and streamed whole, and a big request is
// refused at once without holding up the server.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>

#include "picture.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

v1::Spring* spring_between(v1::ForceDef& f, const std::string& a, const std::string& b) {
  v1::Spring* s = f.mutable_spring();
  s->mutable_a()->set_name(a);
  s->mutable_b()->set_name(b);
  s->set_stiffness(10);
  return s;
}

v1::World paused_world(Client& c, const std::string& name, int max_forces = 0) {
  v1::CreateWorldRequest req;
  req.set_name(name);
  req.set_paused(true);
  if (max_forces > 0) req.mutable_limits()->set_max_forces(max_forces);
  return c.create_world(req);
}

// Case 4: LoadScene counts forces (and bodies and constraints) against the
// world's limits before it builds anything; so do AddForce and batches.
TEST(Limits, ForcesOnEveryPath) {
  InProcessServer server;
  Client c(server.target());
  paused_world(c, "lab", 1000);
  v1::CreateBodiesRequest two;
  two.set_world("lab");
  *two.add_bodies() = particle("a", 0, 0);
  *two.add_bodies() = particle("b", 1, 0);
  v1::CreateBodiesResponse made;
  ASSERT_TRUE(c.bodies->CreateBodies(context().get(), two, &made).ok());
  const Picture before = picture(c, "lab");

  v1::LoadSceneRequest load;
  load.set_world("lab");
  *load.mutable_scene()->add_bodies() = particle("a", 0, 0);
  *load.mutable_scene()->add_bodies() = particle("b", 1, 0);
  for (int i = 0; i < 5000; ++i) spring_between(*load.mutable_scene()->add_forces(), "a", "b");
  v1::LoadSceneResponse loaded;
  grpc::Status s = c.worlds->LoadScene(context().get(), load, &loaded);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("scene.forces"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("--max-forces"), std::string::npos) << s.error_message();
  expect_same(picture(c, "lab"), before);

  // Within the limit the same scene loads.
  load.mutable_scene()->mutable_forces()->DeleteSubrange(1000, 4000);
  ASSERT_TRUE(c.worlds->LoadScene(context().get(), load, &loaded).ok());
  EXPECT_EQ(loaded.world().force_count(), 1000u);
  const Picture full = picture(c, "lab");

  v1::AddForceRequest one_more;
  one_more.set_world("lab");
  spring_between(*one_more.mutable_force(), "a", "b");
  v1::AddForceResponse added;
  s = c.forces->AddForce(context().get(), one_more, &added);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  v1::ApplyBatchRequest batch;
  batch.set_world("lab");
  *batch.add_commands()->mutable_add_force() = one_more.force();
  v1::ApplyBatchResponse applied;
  s = c.worlds->ApplyBatch(context().get(), batch, &applied);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("commands[0]"), std::string::npos) << s.error_message();
  expect_same(picture(c, "lab"), full);

  // Bodies and constraints likewise.
  v1::CreateWorldRequest small;
  small.set_name("small");
  small.set_paused(true);
  small.mutable_limits()->set_max_bodies(2);
  small.mutable_limits()->set_max_constraints(1);
  c.create_world(small);
  const Picture empty = picture(c, "small");
  load.set_world("small");
  load.mutable_scene()->clear_forces();
  *load.mutable_scene()->add_bodies() = particle("c", 2, 0);
  s = c.worlds->LoadScene(context().get(), load, &loaded);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("scene.bodies"), std::string::npos) << s.error_message();
  load.mutable_scene()->mutable_bodies()->RemoveLast();
  *load.mutable_scene()->add_constraints() = rod("a", "b");
  *load.mutable_scene()->add_constraints() = rod("", "b");
  s = c.worlds->LoadScene(context().get(), load, &loaded);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("scene.constraints"), std::string::npos) << s.error_message();
  expect_same(picture(c, "small"), empty);
}

// A rigid body of the largest size a request can give it: a 64-character
// name and a 64-vertex polygon.
v1::BodyDef largest_body(int i) {
  std::string name = "body-" + std::to_string(i) + "-";
  name.resize(64, 'x');
  v1::BodyDef b = particle(name, i, 0, 1.0);
  b.set_kind(v1::BODY_KIND_RIGID);
  for (int k = 0; k < 64; ++k) {
    const double a = 2 * std::numbers::pi * k / 64;
    *b.mutable_shape()->mutable_polygon()->add_vertices() = vec(0.5 * std::cos(a), 0.5 * std::sin(a));
  }
  return b;
}

// Case 5: polygons have at most 64 vertices, and a world is refused anything
// that would make its answers larger than --max-message-bytes: the largest
// world the server accepts can be listed, saved, loaded again and streamed.
TEST(Limits, EveryAcceptedWorldCanBeListedSavedAndStreamed) {
  constexpr int kMessageBytes = 256 * 1024;
  ServerOptions options;
  options.max_message_bytes = kMessageBytes;
  options.max_receive_bytes = kMessageBytes;
  InProcessServer server(options);
  Client c(server.target());
  paused_world(c, "big");

  // 8,000 vertices: refused for what it is, not for its size.
  v1::CreateBodyRequest huge;
  huge.set_world("big");
  *huge.mutable_body() = largest_body(0);
  for (int k = 64; k < 8000; ++k) *huge.mutable_body()->mutable_shape()->mutable_polygon()->add_vertices() = vec(0, 0);
  v1::CreateBodyResponse created;
  grpc::Status s = c.bodies->CreateBody(context().get(), huge, &created);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status_text(s);
  EXPECT_NE(s.error_message().find("body.shape.polygon.vertices: at most 64 vertices, got 8000"), std::string::npos)
      << s.error_message();

  // Fill the world with the largest bodies, each pinned to the one before by
  // the largest constraint and held by a spring, until it is refused.
  Picture last = picture(c, "big");
  grpc::Status refused;
  int n = 0;
  for (; refused.ok(); ++n) {
    v1::ApplyBatchRequest batch;
    batch.set_world("big");
    const v1::BodyDef body = largest_body(n);
    *batch.add_commands()->mutable_create_body() = body;
    if (n > 0) {
      v1::ConstraintDef pin;
      std::string name = "pin-" + std::to_string(n) + "-";
      name.resize(64, 'p');
      pin.set_name(name);
      pin.mutable_pin()->mutable_a()->set_name(largest_body(n - 1).name());
      pin.mutable_pin()->mutable_b()->set_name(body.name());
      pin.mutable_pin()->mutable_anchor_a()->set_x(0.5);
      pin.mutable_softness()->set_frequency(5);
      *batch.add_commands()->mutable_add_constraint() = pin;
      spring_between(*batch.add_commands()->mutable_add_force(), largest_body(n - 1).name(), body.name());
    }
    v1::ApplyBatchResponse applied;
    refused = c.worlds->ApplyBatch(context().get(), batch, &applied);
    if (refused.ok()) last = picture(c, "big");
  }
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(refused);
  EXPECT_NE(refused.error_message().find("--max-message-bytes"), std::string::npos) << refused.error_message();
  expect_same(picture(c, "big"), last);
  std::printf("%d bodies of 64 vertices accepted under --max-message-bytes %d\n", n - 1, kMessageBytes);
  ASSERT_GT(n, 20);

  // Every position, velocity, angle, λ and reaction becomes non-zero.
  c.step("big", 30);
  v1::ListBodiesRequest list_bodies;
  list_bodies.set_world("big");
  v1::ListBodiesResponse bodies;
  s = c.bodies->ListBodies(context().get(), list_bodies, &bodies);
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(bodies.bodies_size(), n - 1);
  v1::ListConstraintsRequest list_constraints;
  list_constraints.set_world("big");
  v1::ListConstraintsResponse constraints;
  s = c.constraints->ListConstraints(context().get(), list_constraints, &constraints);
  ASSERT_TRUE(s.ok()) << status_text(s);
  v1::ListForcesRequest list_forces;
  list_forces.set_world("big");
  v1::ListForcesResponse forces;
  s = c.forces->ListForces(context().get(), list_forces, &forces);
  ASSERT_TRUE(s.ok()) << status_text(s);

  v1::SaveSceneRequest save;
  save.set_world("big");
  v1::SaveSceneResponse saved;
  s = c.worlds->SaveScene(context().get(), save, &saved);
  ASSERT_TRUE(s.ok()) << status_text(s);
  paused_world(c, "copy");
  v1::LoadSceneRequest load;
  load.set_world("copy");
  *load.mutable_scene() = saved.scene();
  v1::LoadSceneResponse loaded;
  s = c.worlds->LoadScene(context().get(), load, &loaded);
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(loaded.world().body_count(), static_cast<std::uint32_t>(n - 1));

  // A stream's first frame holds the whole world: every body and constraint
  // whole, every column, the diagnostics.
  auto ctx = context();
  v1::StreamStateRequest stream;
  stream.set_world("big");
  stream.set_constraints(true);
  stream.set_diagnostics(true);
  auto reader = c.worlds->StreamState(ctx.get(), stream);
  v1::Snapshot frame;
  ASSERT_TRUE(reader->Read(&frame)) << status_text(reader->Finish());
  EXPECT_TRUE(frame.changes().full());
  EXPECT_EQ(frame.changes().added_bodies_size(), n - 1);
  EXPECT_EQ(frame.changes().added_constraints_size(), n - 2);
  std::printf("the largest answer, a full frame: %zu of %d bytes\n", frame.ByteSizeLong(), kMessageBytes);
  ctx->TryCancel();
  reader->Finish();
}

// Case 8: a million bodies are refused before any is made, while the world
// and every other call go on answering; as many as the world's limit are made.
TEST(Limits, AMillionBodiesAreRefusedAtOnce) {
  constexpr int kLimit = 20000;
  ServerOptions options;
  options.max_receive_bytes = 64 << 20;
  InProcessServer server(options);
  Client c(server.target());
  v1::CreateWorldRequest create;
  create.set_name("crowd");
  create.set_paused(true);
  create.mutable_limits()->set_max_bodies(kLimit);
  c.create_world(create);
  const Picture before = picture(c, "crowd");

  v1::CreateBodiesRequest million;
  million.set_world("crowd");
  for (int i = 0; i < 1000000; ++i) *million.add_bodies() = particle("", i * 1e-3, 0, 1.0);
  std::atomic<bool> done{false};
  std::thread poller([&] {
    // ListWorlds and GetWorld answer within a second the whole time.
    Client other(server.target());
    while (!done) {
      v1::ListWorldsResponse worlds;
      EXPECT_TRUE(other.worlds->ListWorlds(context(1s).get(), {}, &worlds).ok());
      v1::GetWorldRequest get;
      get.set_world("crowd");
      v1::GetWorldResponse got;
      EXPECT_TRUE(other.worlds->GetWorld(context(1s).get(), get, &got).ok());
      std::this_thread::sleep_for(10ms);
    }
  });
  v1::CreateBodiesResponse made;
  const grpc::Status s = c.bodies->CreateBodies(context(60s).get(), million, &made);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status_text(s);
  EXPECT_NE(s.error_message().find("bodies[" + std::to_string(kLimit) + "]"), std::string::npos) << s.error_message();
  expect_same(picture(c, "crowd"), before);

  million.mutable_bodies()->DeleteSubrange(kLimit, 1000000 - kLimit);
  const grpc::Status ok = c.bodies->CreateBodies(context(60s).get(), million, &made);
  done = true;
  poller.join();
  ASSERT_TRUE(ok.ok()) << status_text(ok);
  EXPECT_EQ(made.ids_size(), kLimit);
  EXPECT_EQ(c.get_world("crowd").body_count(), static_cast<std::uint32_t>(kLimit));
}

}  // namespace
}  // namespace linkage::itest
