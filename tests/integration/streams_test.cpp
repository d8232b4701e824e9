// Several clients on one world at once: one edits, two follow the topology
// from their streams alone, and everyone ends up with the same picture.
#include <gtest/gtest.h>

#include "mirror.hpp"

namespace linkage::itest {
namespace {

std::set<IdKey> ids(const std::map<IdKey, std::string>& m) {
  std::set<IdKey> out;
  for (const auto& [id, name] : m) out.insert(id);
  return out;
}

TEST(Streams, ThreeClientsFollowOneWorldFromTheirStreams) {
  InProcessServer server;
  Client a(server.target()), b(server.target()), c(server.target());

  v1::CreateWorldRequest create;
  create.set_name("three");
  a.create_world(create);

  Mirror mb(b, "three"), mc(c, "three");
  for (Mirror* m : {&mb, &mc})
    ASSERT_TRUE(m->wait_until([](const Mirror::Picture& p) { return p.frames >= 1; })) << "no first frame";
  EXPECT_EQ(a.get_world("three").subscribers(), 2u);

  // A builds a 20-link chain in one batch.
  const v1::ApplyBatchResponse built = a.apply_batch(chain_batch("three", 20));
  ASSERT_EQ(built.results_size(), 40);
  std::set<IdKey> batch_bodies, batch_constraints;
  IdKey link10{}, rod10{}, rod11{};
  for (int i = 0; i < 20; ++i) batch_bodies.insert(key(built.results(i).created()));
  for (int i = 20; i < 40; ++i) batch_constraints.insert(key(built.results(i).created()));
  link10 = key(built.results(9).created());
  rod10 = key(built.results(29).created());
  rod11 = key(built.results(30).created());
  ASSERT_EQ(batch_bodies.size(), 20u);
  ASSERT_EQ(batch_constraints.size(), 20u);

  auto built_up = [](const Mirror::Picture& p) { return p.bodies.size() == 20 && p.constraints.size() == 20; };
  for (Mirror* m : {&mb, &mc}) {
    ASSERT_TRUE(m->wait_until(built_up)) << "the stream never showed the 20-link chain";
    const Mirror::Picture p = m->picture();
    EXPECT_EQ(ids(p.bodies), batch_bodies);
    EXPECT_EQ(ids(p.constraints), batch_constraints);
    EXPECT_EQ(p.bodies.at(link10), "link-10");
    EXPECT_EQ(p.constraints.at(rod10), "rod-10");
  }

  // A removes link-10 while B and C stream: the body and both rods on it go.
  v1::RemoveBodyRequest remove;
  remove.set_world("three");
  remove.mutable_body()->set_name("link-10");
  v1::RemoveBodyResponse removed;
  const grpc::Status st = a.bodies->RemoveBody(context().get(), remove, &removed);
  ASSERT_TRUE(st.ok()) << status_text(st);
  std::set<IdKey> removed_constraints;
  for (const v1::Id& id : removed.removed_constraints()) removed_constraints.insert(key(id));
  EXPECT_EQ(removed_constraints, (std::set<IdKey>{rod10, rod11}));

  std::set<IdKey> left_bodies = batch_bodies, left_constraints = batch_constraints;
  left_bodies.erase(link10);
  left_constraints.erase(rod10);
  left_constraints.erase(rod11);
  auto after_removal = [](const Mirror::Picture& p) { return p.bodies.size() == 19 && p.constraints.size() == 18; };
  for (Mirror* m : {&mb, &mc}) {
    ASSERT_TRUE(m->wait_until(after_removal)) << "the stream never showed the removal";
    const Mirror::Picture p = m->picture();
    EXPECT_TRUE(p.removed_bodies.count(link10)) << "link-10's removal was not in the changes";
    EXPECT_TRUE(p.removed_constraints.count(rod10) && p.removed_constraints.count(rod11))
        << "the rods' removal was not in the changes";
  }

  // Let a few more frames through, then compare everyone's picture.
  const std::uint64_t tick = mb.picture().last_tick;
  for (Mirror* m : {&mb, &mc})
    ASSERT_TRUE(m->wait_until([&](const Mirror::Picture& p) { return p.last_tick >= tick + 5; }));
  const std::set<IdKey> listed_bodies = body_ids(a.list_bodies("three"));
  const std::set<IdKey> listed_constraints = constraint_ids(a.list_constraints("three"));
  EXPECT_EQ(listed_bodies, left_bodies);
  EXPECT_EQ(listed_constraints, left_constraints);
  for (Mirror* m : {&mb, &mc}) {
    const Mirror::Picture p = m->picture();
    EXPECT_EQ(ids(p.bodies), listed_bodies);
    EXPECT_EQ(ids(p.constraints), listed_constraints);
    EXPECT_EQ(p.full_frames, 1u) << "only the first frame should be a full one";
    EXPECT_FALSE(p.ended) << status_text(p.status);
    for (const std::string& problem : p.problems) ADD_FAILURE() << problem;
  }
}

// Deleting a world ends its streams with UNAVAILABLE, and the stream slot is given back.
TEST(Streams, DeletingAWorldEndsItsStreams) {
  ServerOptions options;
  options.limits.max_streams = 1;
  InProcessServer server(options);
  Client a(server.target()), b(server.target());
  v1::CreateWorldRequest create;
  create.set_name("doomed");
  a.create_world(create);
  {
    Mirror m(b, "doomed");
    ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.frames >= 1; }));
    v1::DeleteWorldRequest del;
    del.set_world("doomed");
    v1::DeleteWorldResponse resp;
    const grpc::Status st = a.worlds->DeleteWorld(context().get(), del, &resp);
    ASSERT_TRUE(st.ok()) << status_text(st);
    ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.ended; }));
    EXPECT_EQ(m.picture().status.error_code(), grpc::StatusCode::UNAVAILABLE) << status_text(m.picture().status);
  }
  // The one stream allowed is free again.
  Mirror again(b, "default");
  EXPECT_TRUE(again.wait_until([](const Mirror::Picture& p) { return p.frames >= 1 || p.ended; }));
  EXPECT_FALSE(again.picture().ended) << status_text(again.picture().status);
}

// A client that vanishes mid-stream (its call and channel dropped without a
// Finish) is unsubscribed.
TEST(Streams, AVanishedClientIsUnsubscribed) {
  InProcessServer server;
  Client a(server.target());
  {
    auto b = std::make_unique<Client>(server.target());
    auto ctx = context(30s);
    v1::StreamStateRequest req;
    req.set_world("default");
    auto reader = b->worlds->StreamState(ctx.get(), req);
    v1::Snapshot frame;
    ASSERT_TRUE(reader->Read(&frame));
    EXPECT_EQ(a.get_world("default").subscribers(), 1u);
    ctx->TryCancel();
    reader.reset();
    b.reset();
  }
  const auto until = std::chrono::steady_clock::now() + 2s;
  std::uint32_t n = 1;
  while (std::chrono::steady_clock::now() < until && (n = a.get_world("default").subscribers()) != 0)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(n, 0u);
}

// Loading a scene or resetting replaces the world: streams get a full frame
// and their picture is the new world.
TEST(Streams, LoadingASceneOrResettingSendsAFullFrame) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  v1::CreateWorldRequest create;
  create.set_name("swap");
  a.create_world(create);
  Mirror m(b, "swap");
  a.apply_batch(chain_batch("swap", 5));
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.bodies.size() == 5; }));

  v1::LoadSceneRequest load;
  load.set_world("swap");
  v1::Scene* scene = load.mutable_scene();
  *scene->add_bodies() = particle("bob", 1, 0);
  *scene->add_bodies() = particle("bob-2", 2, 0);
  *scene->add_constraints() = rod("", "bob", "arm");
  *scene->add_constraints() = rod("bob", "bob-2", "arm-2");
  v1::LoadSceneResponse loaded;
  const grpc::Status st = a.worlds->LoadScene(context().get(), load, &loaded);
  ASSERT_TRUE(st.ok()) << status_text(st);
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.full_frames == 2; }));
  Mirror::Picture p = m.picture();
  EXPECT_EQ(ids(p.bodies), body_ids(a.list_bodies("swap")));
  EXPECT_EQ(ids(p.constraints), constraint_ids(a.list_constraints("swap")));
  EXPECT_EQ(p.bodies.size(), 2u);

  // An edit, then Reset: back to the scene, in a full frame again.
  v1::CreateBodyRequest extra;
  extra.set_world("swap");
  *extra.mutable_body() = particle("extra", 3, 3);
  v1::CreateBodyResponse made;
  ASSERT_TRUE(a.bodies->CreateBody(context().get(), extra, &made).ok());
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& q) { return q.bodies.size() == 3; }));
  v1::ResetRequest reset;
  reset.set_world("swap");
  v1::ResetResponse was_reset;
  ASSERT_TRUE(a.worlds->Reset(context().get(), reset, &was_reset).ok());
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& q) { return q.full_frames == 3; }));
  p = m.picture();
  EXPECT_EQ(p.bodies.size(), 2u);
  EXPECT_EQ(ids(p.bodies), body_ids(a.list_bodies("swap")));
  EXPECT_EQ(ids(p.constraints), constraint_ids(a.list_constraints("swap")));
  for (const std::string& problem : p.problems) ADD_FAILURE() << problem;
}

// More changes at once than the server's change history holds: the streams
// are sent the whole topology instead, and stay right.
TEST(Streams, MoreChangesThanTheHistoryHoldsGiveAFullFrame) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  v1::CreateWorldRequest create;
  create.set_name("flood");
  create.set_paused(true);
  a.create_world(create);
  Mirror m(b, "flood");
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.frames >= 1; }));
  // 2100 bodies and 2100 rods: 4200 changes, past the 4096 the history keeps.
  a.apply_batch(chain_batch("flood", 2100, 0.1, 0.0, -1.0));
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.bodies.size() == 2100; }));
  // And a small change after it: a delta again.
  v1::RemoveBodyRequest remove;
  remove.set_world("flood");
  remove.mutable_body()->set_name("link-2100");
  v1::RemoveBodyResponse removed;
  ASSERT_TRUE(a.bodies->RemoveBody(context().get(), remove, &removed).ok());
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.bodies.size() == 2099; }));
  const Mirror::Picture p = m.picture();
  EXPECT_EQ(p.full_frames, 2u);
  EXPECT_EQ(ids(p.bodies), body_ids(a.list_bodies("flood")));
  EXPECT_EQ(ids(p.constraints), constraint_ids(a.list_constraints("flood")));
  for (const std::string& problem : p.problems) ADD_FAILURE() << problem;
}

// A paused world publishes only when edited. A stream still writing the frame
// of one edit when the next edit lands must be offered the newer frame as
// soon as it can take it, not at some later command.
TEST(Streams, APausedWorldsLastEditReachesEveryStream) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  v1::CreateWorldRequest create;
  create.set_name("still");
  create.set_paused(true);
  a.create_world(create);
  Mirror m(b, "still");
  const v1::ApplyBatchResponse built = a.apply_batch(chain_batch("still", 30));
  // Edits in quick succession, then silence: the last one must arrive.
  for (int i = 0; i < 10; ++i) {
    v1::RemoveConstraintRequest remove;
    remove.set_world("still");
    *remove.mutable_id() = built.results(30 + i).created();
    v1::RemoveConstraintResponse removed;
    ASSERT_TRUE(a.constraints->RemoveConstraint(context().get(), remove, &removed).ok());
  }
  const std::uint64_t tick = a.step("still", 1).tick();
  ASSERT_TRUE(m.wait_until([&](const Mirror::Picture& p) { return p.constraints.size() == 20 && p.last_tick == tick; }))
      << "the stream never saw the paused world's last edit";
  EXPECT_EQ(ids(m.picture().constraints), constraint_ids(a.list_constraints("still")));
}

// Settings travel in the change records too: a viewer shows another
// client's change of solver with the next frame, paused or running.
TEST(Streams, ASettingsChangeReachesEveryStreamOnce) {
  InProcessServer server;
  Client a(server.target()), b(server.target());
  v1::CreateWorldRequest create;
  create.set_name("tuned");
  create.set_paused(true);
  create.mutable_settings()->set_solver(v1::LINEAR_SOLVER_LDLT);
  a.create_world(create);
  Mirror m(b, "tuned");
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.settings_frames == 1; }));
  EXPECT_EQ(m.picture().settings.solver(), v1::LINEAR_SOLVER_LDLT);

  v1::UpdateWorldRequest update;
  update.set_world("tuned");
  update.mutable_settings()->set_solver(v1::LINEAR_SOLVER_CONJUGATE_GRADIENT);
  update.mutable_settings()->set_substeps(3);
  v1::UpdateWorldResponse updated;
  ASSERT_TRUE(a.worlds->UpdateWorld(context().get(), update, &updated).ok());
  ASSERT_TRUE(m.wait_until([](const Mirror::Picture& p) { return p.settings_frames == 2; }))
      << "the paused world's stream never heard of the new settings";
  Mirror::Picture p = m.picture();
  EXPECT_EQ(p.settings.solver(), v1::LINEAR_SOLVER_CONJUGATE_GRADIENT);
  EXPECT_EQ(p.settings.substeps(), 3);
  EXPECT_EQ(p.settings.SerializeAsString(), a.get_world("tuned").settings().SerializeAsString());

  // Running: later frames do not repeat them.
  v1::ResumeRequest resume;
  resume.set_world("tuned");
  v1::ResumeResponse resumed;
  ASSERT_TRUE(a.worlds->Resume(context().get(), resume, &resumed).ok());
  const std::uint64_t frames = m.picture().frames;
  ASSERT_TRUE(m.wait_until([&](const Mirror::Picture& q) { return q.frames >= frames + 10; }));
  EXPECT_EQ(m.picture().settings_frames, 2u);
  for (const std::string& problem : m.picture().problems) ADD_FAILURE() << problem;
}

// A frame's diagnostics give the step's time by stage, by name and in the
// step's order, summing to the step's time, and the substeps it ran (the
// world's: a chain at rest does not split its steps).
TEST(Streams, DiagnosticsCarryEveryStageOfTheStep) {
  InProcessServer server;
  Client a(server.target());
  v1::CreateWorldRequest create;
  create.set_name("staged");
  a.create_world(create);
  a.apply_batch(chain_batch("staged", 20));

  auto ctx = context(std::chrono::seconds(10));
  v1::StreamStateRequest stream;
  stream.set_world("staged");
  stream.set_diagnostics(true);
  auto reader = a.worlds->StreamState(ctx.get(), stream);
  v1::Snapshot frame;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(reader->Read(&frame)) << status_text(reader->Finish());
  const v1::Diagnostics& d = frame.diagnostics();
  const std::vector<std::string> order = {"forces", "constraints", "solve", "integrate", "project_positions",
                                          "project_velocities", "expire", "measure"};
  ASSERT_EQ(d.stages_size(), static_cast<int>(order.size()));
  double sum = 0.0;
  for (int k = 0; k < d.stages_size(); ++k) {
    EXPECT_EQ(d.stages(k).stage(), order[static_cast<std::size_t>(k)]);
    EXPECT_GE(d.stages(k).seconds(), 0.0);
    sum += d.stages(k).seconds();
  }
  EXPECT_GT(d.stages(2).seconds(), 0.0);  // the chain's solve
  EXPECT_NEAR(sum, d.step_seconds(), 1e-12 + 1e-12 * d.step_seconds());
  EXPECT_EQ(d.substeps(), 1);
  ctx->TryCancel();
  reader->Finish();
}

}  // namespace
}  // namespace linkage::itest
