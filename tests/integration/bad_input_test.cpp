// Every kind of bad input, one case each: the exact status code, a message
// that names the field (or the flag to raise), and no change to any world.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <functional>
#include <limits>

#include "support.hpp"

namespace linkage::itest {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr int kMaxWorlds = 3;                  // default, arena, tiny
constexpr int kMaxStreams = 2;
constexpr int kMaxReceiveBytes = 64 * 1024;    // the ServerBuilder's limit in this fixture
const std::vector<std::string> kWorlds = {"arena", "default", "tiny"};

// Everything a bad call must leave as it was, in every world.
struct WorldPicture {
  v1::ListBodiesResponse bodies;
  v1::ListConstraintsResponse constraints;
  v1::ListForcesResponse forces;
  std::uint64_t topology_version = 0;
  std::uint32_t body_count = 0, constraint_count = 0, force_count = 0;
};

class BadInput;

struct Case {
  std::string name;
  std::function<grpc::Status(BadInput&)> call;
  grpc::StatusCode code;
  std::string needle;  // must be in the message
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<Case> {
 public:
  static void SetUpTestSuite() {
    ServerOptions options;
    options.limits.max_worlds = kMaxWorlds;
    options.limits.max_streams = kMaxStreams;
    options.max_receive_bytes = kMaxReceiveBytes;
    server_ = new InProcessServer(options);
    client_ = new Client(server_->target());

    // arena: paused, three bodies on two rods and a spring; one body made and removed.
    v1::CreateWorldRequest arena;
    arena.set_name("arena");
    arena.set_paused(true);
    client_->create_world(arena);
    v1::ApplyBatchRequest batch;
    batch.set_world("arena");
    *batch.add_commands()->mutable_create_body() = particle("p1", 0, 0);
    *batch.add_commands()->mutable_create_body() = particle("p2", 1, 0);
    *batch.add_commands()->mutable_create_body() = particle("p3", 2, 0);
    *batch.add_commands()->mutable_create_body() = particle("gone", 3, 0);
    *batch.add_commands()->mutable_add_constraint() = rod("p1", "p2", "r12");
    *batch.add_commands()->mutable_add_constraint() = rod("p2", "p3", "r23");
    v1::Spring* spring = batch.add_commands()->mutable_add_force()->mutable_spring();
    spring->mutable_a()->set_name("p1");
    spring->mutable_b()->set_name("p3");
    spring->set_stiffness(10);
    batch.add_commands()->mutable_remove_body()->set_name("gone");
    const v1::ApplyBatchResponse built = client_->apply_batch(batch);
    ASSERT_EQ(built.results_size(), 8);
    gone_ = built.results(3).created();
    r12_ = built.results(4).created();

    // tiny: paused, at its limit of two bodies.
    v1::CreateWorldRequest tiny;
    tiny.set_name("tiny");
    tiny.set_paused(true);
    tiny.mutable_limits()->set_max_bodies(2);
    client_->create_world(tiny);
    v1::CreateBodiesRequest two;
    two.set_world("tiny");
    *two.add_bodies() = particle("t1", 0, 0);
    *two.add_bodies() = particle("t2", 1, 0);
    v1::CreateBodiesResponse made;
    ASSERT_TRUE(client_->bodies->CreateBodies(context().get(), two, &made).ok());
  }

  static void TearDownTestSuite() {
    delete client_;
    delete server_;
    client_ = nullptr;
    server_ = nullptr;
  }

  static Client& client() { return *client_; }
  static const v1::Id& gone() { return gone_; }
  static const v1::Id& r12() { return r12_; }
  static const std::string& target() { return server_->target(); }

  static WorldPicture picture(const std::string& world) {
    WorldPicture p;
    p.bodies = client_->list_bodies(world);
    p.constraints = client_->list_constraints(world);
    p.forces = client_->list_forces(world);
    const v1::World w = client_->get_world(world);
    p.topology_version = w.topology_version();
    p.body_count = w.body_count();
    p.constraint_count = w.constraint_count();
    p.force_count = w.force_count();
    return p;
  }

  static std::vector<std::string> world_names() {
    v1::ListWorldsResponse resp;
    EXPECT_TRUE(client_->worlds->ListWorlds(context().get(), {}, &resp).ok());
    std::vector<std::string> names;
    for (const v1::World& w : resp.worlds()) names.push_back(w.name());
    return names;
  }

 private:
  static inline InProcessServer* server_ = nullptr;
  static inline Client* client_ = nullptr;
  static inline v1::Id gone_;
  static inline v1::Id r12_;
};

// The status a stream was refused with (it must not deliver any frame).
grpc::Status refused_stream(Client& c, const std::string& world, double rate_hz) {
  auto ctx = context();
  v1::StreamStateRequest req;
  req.set_world(world);
  req.set_rate_hz(rate_hz);
  auto reader = c.worlds->StreamState(ctx.get(), req);
  v1::Snapshot frame;
  if (reader->Read(&frame)) {
    ctx->TryCancel();
    reader->Finish();
    return grpc::Status::OK;  // it was not refused
  }
  return reader->Finish();
}

grpc::Status create_body(const std::string& world, const v1::BodyDef& def) {
  v1::CreateBodyRequest req;
  req.set_world(world);
  *req.mutable_body() = def;
  v1::CreateBodyResponse resp;
  return BadInput::client().bodies->CreateBody(context().get(), req, &resp);
}

grpc::Status create_world(const std::string& name) {
  v1::CreateWorldRequest req;
  req.set_name(name);
  v1::CreateWorldResponse resp;
  return BadInput::client().worlds->CreateWorld(context().get(), req, &resp);
}

grpc::Status add_constraint(const std::string& world, const v1::ConstraintDef& def) {
  v1::AddConstraintRequest req;
  req.set_world(world);
  *req.mutable_constraint() = def;
  v1::AddConstraintResponse resp;
  return BadInput::client().constraints->AddConstraint(context().get(), req, &resp);
}

grpc::Status step(const std::string& world, std::uint32_t ticks) {
  v1::StepRequest req;
  req.set_world(world);
  req.set_ticks(ticks);
  v1::StepResponse resp;
  return BadInput::client().worlds->Step(context().get(), req, &resp);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// An update of r12 whose new length the world takes and whose softness it
// refuses: the length must not stay.
v1::UpdateConstraintRequest longer_rod_with_negative_softness() {
  v1::UpdateConstraintRequest u;
  u.set_world("arena");
  *u.mutable_id() = BadInput::r12();
  u.mutable_constraint()->mutable_distance()->set_length(0.5);
  u.mutable_constraint()->mutable_softness()->set_frequency(-1.0);
  u.mutable_update_mask()->add_paths("distance.length");
  u.mutable_update_mask()->add_paths("softness.frequency");
  return u;
}

std::vector<Case> cases() {
  using grpc::StatusCode;
  std::vector<Case> c;
  c.push_back({"UnknownWorld", [](BadInput&) { return create_body("nowhere", particle("x", 0, 0)); },
               StatusCode::NOT_FOUND, "world"});
  c.push_back({"UnknownWorldStream", [](BadInput&) { return refused_stream(BadInput::client(), "nowhere", 0); },
               StatusCode::NOT_FOUND, "world"});
  c.push_back({"InvalidWorldName", [](BadInput&) { return create_world("no spaces allowed"); },
               StatusCode::INVALID_ARGUMENT, "name"});
  c.push_back({"DuplicateWorld", [](BadInput&) { return create_world("arena"); }, StatusCode::FAILED_PRECONDITION,
               "name"});
  c.push_back({"TooManyWorlds", [](BadInput&) { return create_world("fourth"); }, StatusCode::RESOURCE_EXHAUSTED,
               "max-worlds"});
  c.push_back({"BadWorldLimits",
               [](BadInput&) {
                 v1::CreateWorldRequest req;
                 req.set_name("limited");
                 req.mutable_limits()->set_max_bodies(0);
                 v1::CreateWorldResponse resp;
                 return BadInput::client().worlds->CreateWorld(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "limits.max_bodies"});
  c.push_back({"BadSettingsUpdate",
               [](BadInput&) {
                 v1::UpdateWorldRequest req;
                 req.set_world("arena");
                 req.mutable_settings()->set_tick_rate(-5);
                 v1::UpdateWorldResponse resp;
                 return BadInput::client().worlds->UpdateWorld(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "tick_rate"});
  c.push_back({"NaNPosition",
               [](BadInput&) {
                 v1::BodyDef b = particle("nan", 0, 0);
                 b.mutable_position()->set_y(kNaN);
                 return create_body("arena", b);
               },
               StatusCode::INVALID_ARGUMENT, "position"});
  c.push_back({"ZInA2DWorld",
               [](BadInput&) {
                 v1::BodyDef b = particle("z", 0, 0);
                 b.mutable_position()->set_z(1);
                 return create_body("arena", b);
               },
               StatusCode::INVALID_ARGUMENT, "position"});
  c.push_back({"NegativeMass", [](BadInput&) { return create_body("arena", particle("neg", 0, 0, -1.0)); },
               StatusCode::INVALID_ARGUMENT, "mass"});
  c.push_back({"DuplicateBodyName", [](BadInput&) { return create_body("arena", particle("p1", 5, 5)); },
               StatusCode::FAILED_PRECONDITION, "name"});
  c.push_back({"UnknownBodyNameInAConstraint", [](BadInput&) { return add_constraint("arena", rod("p1", "ghost")); },
               StatusCode::NOT_FOUND, "distance.b"});
  c.push_back({"RemovedBodyId",
               [](BadInput&) {
                 v1::RemoveBodyRequest req;
                 req.set_world("arena");
                 *req.mutable_body()->mutable_id() = BadInput::gone();
                 v1::RemoveBodyResponse resp;
                 return BadInput::client().bodies->RemoveBody(context().get(), req, &resp);
               },
               StatusCode::NOT_FOUND, "body"});
  c.push_back({"RemovedBodyIdInAConstraint",
               [](BadInput&) {
                 v1::ConstraintDef def = rod("p1", "");
                 *def.mutable_distance()->mutable_b()->mutable_id() = BadInput::gone();
                 return add_constraint("arena", def);
               },
               StatusCode::NOT_FOUND, "distance.b"});
  c.push_back({"ConstraintWithNoType",
               [](BadInput&) {
                 v1::ConstraintDef def;
                 def.set_name("typeless");
                 return add_constraint("arena", def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint"});
  c.push_back({"UnknownConstraintId",
               [](BadInput&) {
                 v1::RemoveConstraintRequest req;
                 req.set_world("arena");
                 req.mutable_id()->set_index(999);
                 req.mutable_id()->set_generation(1);
                 v1::RemoveConstraintResponse resp;
                 return BadInput::client().constraints->RemoveConstraint(context().get(), req, &resp);
               },
               StatusCode::NOT_FOUND, "constraint"});
  c.push_back({"BatchWithABadThirdCommand",
               [](BadInput&) {
                 v1::ApplyBatchRequest req;
                 req.set_world("arena");
                 *req.add_commands()->mutable_create_body() = particle("q1", 0, 1);
                 *req.add_commands()->mutable_create_body() = particle("q2", 0, 2);
                 *req.add_commands()->mutable_create_body() = particle("q3", 0, 3, -2.0);
                 *req.add_commands()->mutable_create_body() = particle("q4", 0, 4);
                 *req.add_commands()->mutable_add_constraint() = rod("q1", "q2");
                 v1::ApplyBatchResponse resp;
                 const grpc::Status s = BadInput::client().worlds->ApplyBatch(context().get(), req, &resp);
                 EXPECT_EQ(resp.results_size(), 0);
                 return s;
               },
               StatusCode::INVALID_ARGUMENT, "commands[2].body.mass"});
  c.push_back({"BatchWithAnEmptyCommand",
               [](BadInput&) {
                 v1::ApplyBatchRequest req;
                 req.set_world("arena");
                 *req.add_commands()->mutable_create_body() = particle("q1", 0, 1);
                 req.add_commands();
                 v1::ApplyBatchResponse resp;
                 return BadInput::client().worlds->ApplyBatch(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "commands[1]"});
  c.push_back({"UpdateWithABadSoftness",
               [](BadInput&) {
                 v1::UpdateConstraintResponse resp;
                 return BadInput::client().constraints->UpdateConstraint(
                     context().get(), longer_rod_with_negative_softness(), &resp);
               },
               StatusCode::INVALID_ARGUMENT, "softness.frequency"});
  c.push_back({"BatchUpdateWithABadSoftness",
               [](BadInput&) {
                 v1::ApplyBatchRequest req;
                 req.set_world("arena");
                 *req.add_commands()->mutable_update_constraint() = longer_rod_with_negative_softness();
                 v1::ApplyBatchResponse resp;
                 return BadInput::client().worlds->ApplyBatch(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "commands[0].constraint.softness.frequency"});
  c.push_back({"StepARunningWorld", [](BadInput&) { return step("default", 1); }, StatusCode::FAILED_PRECONDITION,
               "running"});
  c.push_back({"StepZeroTicks", [](BadInput&) { return step("arena", 0); }, StatusCode::INVALID_ARGUMENT, "ticks"});
  c.push_back({"NegativeStreamRate", [](BadInput&) { return refused_stream(BadInput::client(), "arena", -1.0); },
               StatusCode::INVALID_ARGUMENT, "rate_hz"});
  c.push_back({"NaNStreamRate", [](BadInput&) { return refused_stream(BadInput::client(), "arena", kNaN); },
               StatusCode::INVALID_ARGUMENT, "rate_hz"});
  c.push_back({"BodyLimit", [](BadInput&) { return create_body("tiny", particle("t3", 2, 0)); },
               StatusCode::RESOURCE_EXHAUSTED, "max-bodies"});
  c.push_back({"BodyLimitInABatch",
               [](BadInput&) {
                 v1::CreateBodiesRequest req;
                 req.set_world("tiny");
                 *req.add_bodies() = particle("t3", 2, 0);
                 v1::CreateBodiesResponse resp;
                 return BadInput::client().bodies->CreateBodies(context().get(), req, &resp);
               },
               StatusCode::RESOURCE_EXHAUSTED, "bodies[0]"});
  c.push_back({"TooManyStreams",
               [](BadInput&) {
                 // Fill every stream slot, then ask for one more.
                 std::vector<std::unique_ptr<Client>> clients;
                 std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
                 std::vector<std::unique_ptr<grpc::ClientReader<v1::Snapshot>>> readers;
                 for (int i = 0; i < kMaxStreams; ++i) {
                   clients.push_back(std::make_unique<Client>(BadInput::target()));
                   contexts.push_back(context());
                   v1::StreamStateRequest req;
                   req.set_world("arena");
                   readers.push_back(clients.back()->worlds->StreamState(contexts.back().get(), req));
                   v1::Snapshot frame;
                   EXPECT_TRUE(readers.back()->Read(&frame)) << "stream " << i << " was refused";
                 }
                 const grpc::Status s = refused_stream(BadInput::client(), "arena", 0);
                 for (std::size_t i = 0; i < readers.size(); ++i) {
                   contexts[i]->TryCancel();
                   readers[i]->Finish();
                 }
                 return s;
               },
               StatusCode::RESOURCE_EXHAUSTED, "max-streams"});
  c.push_back({"MessageTooBig",
               [](BadInput&) {
                 v1::CreateBodiesRequest req;
                 req.set_world("arena");
                 for (int i = 0; i < 2000; ++i) *req.add_bodies() = particle("big-" + std::to_string(i), i, 0);
                 EXPECT_GT(req.ByteSizeLong(), static_cast<std::size_t>(kMaxReceiveBytes));
                 v1::CreateBodiesResponse resp;
                 return BadInput::client().bodies->CreateBodies(context().get(), req, &resp);
               },
               StatusCode::RESOURCE_EXHAUSTED, "larger than max"});
  return c;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

TEST_P(BadInput, IsRefusedPreciselyAndChangesNothing) {
  const Case& c = GetParam();
  std::map<std::string, WorldPicture> before;
  for (const std::string& w : kWorlds) before[w] = picture(w);
  const std::vector<std::string> worlds_before = world_names();

  const grpc::Status s = c.call(*this);
  std::printf("%s -> %s\n", c.name.c_str(), status_text(s).c_str());

  EXPECT_EQ(s.error_code(), c.code) << status_text(s);
  EXPECT_NE(lower(s.error_message()).find(lower(c.needle)), std::string::npos)
      << "the message does not name '" << c.needle << "': " << s.error_message();
  EXPECT_EQ(world_names(), worlds_before);
  for (const std::string& w : kWorlds) {
    SCOPED_TRACE("world " + w);
    const WorldPicture after = picture(w);
    const WorldPicture& was = before[w];
    EXPECT_TRUE(MessageDifferencer::Equals(after.bodies, was.bodies)) << "ListBodies changed";
    EXPECT_TRUE(MessageDifferencer::Equals(after.constraints, was.constraints)) << "ListConstraints changed";
    EXPECT_TRUE(MessageDifferencer::Equals(after.forces, was.forces)) << "ListForces changed";
    EXPECT_EQ(after.topology_version, was.topology_version);
    EXPECT_EQ(after.body_count, was.body_count);
    EXPECT_EQ(after.constraint_count, was.constraint_count);
    EXPECT_EQ(after.force_count, was.force_count);
  }
}

INSTANTIATE_TEST_SUITE_P(Server, BadInput, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace linkage::itest
