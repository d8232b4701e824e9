// Issue 12, cases 6, 10, 11 and 12: errors stay precise. A long name is cut
// in the message instead of turning the error into another; only an absent
// number means "the current value", an explicit NaN or infinity is refused;
// UpdateConstraint renames or says why not; names that read as ids or as the
// world are refused. Every refusal changes nothing.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "picture.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

struct Refusal {
  std::string name;
  std::function<grpc::Status(Client&)> call;
  grpc::StatusCode code;
  std::string needle;  // must be in the message
};

void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

// The world every case runs against: paused, two particles on a rod named
// "rod", a rigid wheel with a motor, a spring.
void build(Client& c) {
  v1::CreateWorldRequest create;
  create.set_name("lab");
  create.set_paused(true);
  c.create_world(create);
  v1::ApplyBatchRequest batch;
  batch.set_world("lab");
  *batch.add_commands()->mutable_create_body() = particle("p1", 0, 0);
  *batch.add_commands()->mutable_create_body() = particle("p2", 1, 0);
  v1::BodyDef wheel = particle("wheel", 3, 0, 1.0);
  wheel.set_kind(v1::BODY_KIND_RIGID);
  wheel.mutable_shape()->mutable_disk()->set_radius(0.5);
  *batch.add_commands()->mutable_create_body() = wheel;
  *batch.add_commands()->mutable_add_constraint() = rod("p1", "p2", "rod");
  *batch.add_commands()->mutable_add_constraint() = rod("", "p2", "hook");
  v1::ConstraintDef motor;
  motor.set_name("motor");
  motor.mutable_motor()->mutable_b()->set_name("wheel");
  motor.mutable_motor()->set_speed(1);
  *batch.add_commands()->mutable_add_constraint() = motor;
  v1::Spring* spring = batch.add_commands()->mutable_add_force()->mutable_spring();
  spring->mutable_a()->set_name("p2");
  spring->mutable_b()->set_name("wheel");
  ASSERT_EQ(c.apply_batch(batch).results_size(), 7);
}

v1::Id constraint_id(Client& c, const std::string& name) {
  const v1::ListConstraintsResponse listed = c.list_constraints("lab");
  for (const v1::Constraint& k : listed.constraints())
    if (k.def().name() == name) return k.id();
  ADD_FAILURE() << "no constraint " << name;
  return {};
}

grpc::Status add_constraint(Client& c, const v1::ConstraintDef& def) {
  v1::AddConstraintRequest req;
  req.set_world("lab");
  *req.mutable_constraint() = def;
  v1::AddConstraintResponse resp;
  return c.constraints->AddConstraint(context().get(), req, &resp);
}

grpc::Status create_body(Client& c, const v1::BodyDef& def) {
  v1::CreateBodyRequest req;
  req.set_world("lab");
  *req.mutable_body() = def;
  v1::CreateBodyResponse resp;
  return c.bodies->CreateBody(context().get(), req, &resp);
}

grpc::Status add_force(Client& c, const v1::ForceDef& def) {
  v1::AddForceRequest req;
  req.set_world("lab");
  *req.mutable_force() = def;
  v1::AddForceResponse resp;
  return c.forces->AddForce(context().get(), req, &resp);
}

grpc::Status update_constraint(Client& c, const std::string& which, const std::function<void(v1::ConstraintDef&)>& edit) {
  v1::GetConstraintRequest get;
  get.set_world("lab");
  *get.mutable_id() = constraint_id(c, which);
  v1::GetConstraintResponse got;
  EXPECT_TRUE(c.constraints->GetConstraint(context().get(), get, &got).ok());
  v1::UpdateConstraintRequest req;
  req.set_world("lab");
  *req.mutable_id() = got.constraint().id();
  *req.mutable_constraint() = got.constraint().def();
  edit(*req.mutable_constraint());
  v1::UpdateConstraintResponse resp;
  return c.constraints->UpdateConstraint(context().get(), req, &resp);
}

// A distance constraint from p2 to the world with `edit` applied.
v1::ConstraintDef distance(const std::function<void(v1::Distance&)>& edit) {
  v1::ConstraintDef def = rod("", "p2");
  edit(*def.mutable_distance());
  return def;
}

const std::string kLong(8000, 'n');

std::vector<Refusal> refusals() {
  using grpc::StatusCode;
  std::vector<Refusal> r;
  // Case 6: an 8,000-character name is cut in the message (the status would
  // not fit in the client's metadata otherwise).
  r.push_back({"LongWorldNameGetWorld",
               [](Client& c) {
                 v1::GetWorldRequest req;
                 req.set_world(kLong);
                 v1::GetWorldResponse resp;
                 return c.worlds->GetWorld(context().get(), req, &resp);
               },
               StatusCode::NOT_FOUND, "(8000 bytes)"});
  r.push_back({"LongWorldNameCreateWorld",
               [](Client& c) {
                 v1::CreateWorldRequest req;
                 req.set_name(kLong);
                 v1::CreateWorldResponse resp;
                 return c.worlds->CreateWorld(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "(8000 bytes)"});
  r.push_back({"LongBodyNameGetBody",
               [](Client& c) {
                 v1::GetBodyRequest req;
                 req.set_world("lab");
                 req.mutable_body()->set_name(kLong);
                 v1::GetBodyResponse resp;
                 return c.bodies->GetBody(context().get(), req, &resp);
               },
               StatusCode::NOT_FOUND, "(8000 bytes)"});
  r.push_back({"LongBodyNameCreateBody", [](Client& c) { return create_body(c, particle(kLong, 5, 5)); },
               StatusCode::INVALID_ARGUMENT, "(8000 bytes)"});
  r.push_back({"LongBodyNameInAConstraint", [](Client& c) { return add_constraint(c, rod(kLong, "p1")); },
               StatusCode::NOT_FOUND, "(8000 bytes)"});
  r.push_back({"LongNameInAStream",
               [](Client& c) {
                 auto ctx = context();
                 v1::StreamStateRequest req;
                 req.set_world(kLong);
                 auto reader = c.worlds->StreamState(ctx.get(), req);
                 v1::Snapshot frame;
                 EXPECT_FALSE(reader->Read(&frame));
                 return reader->Finish();
               },
               StatusCode::NOT_FOUND, "(8000 bytes)"});
  // Case 10: an explicit NaN or infinity is refused, naming the field; only
  // an absent one means "current" (or "unlimited").
  r.push_back({"NaNLength", [](Client& c) { return add_constraint(c, distance([](v1::Distance& d) { d.set_length(kNaN); })); },
               StatusCode::INVALID_ARGUMENT, "constraint.distance.length: must be a finite number, got NaN"});
  r.push_back({"InfiniteMaxLength",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_rope()->mutable_b()->set_name("p2");
                 def.mutable_rope()->set_max_length(kInf);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.rope.max_length: must be a finite number, got Infinity"});
  r.push_back({"NaNRadius",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_point_on_circle()->mutable_b()->set_name("p2");
                 def.mutable_point_on_circle()->set_radius(kNaN);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.point_on_circle.radius: must be a finite number"});
  r.push_back({"NaNAngle",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_relative_angle()->mutable_b()->set_name("wheel");
                 def.mutable_relative_angle()->set_angle(kNaN);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.relative_angle.angle: must be a finite number"});
  r.push_back({"InfiniteOffset",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_gear()->mutable_b()->set_name("wheel");
                 def.mutable_gear()->set_offset(-kInf);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.gear.offset: must be a finite number, got -Infinity"});
  r.push_back({"NaNInAnAngularMotorsAxis",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_motor()->mutable_b()->set_name("wheel");
                 def.mutable_motor()->set_speed(1);
                 def.mutable_motor()->mutable_axis()->set_x(kNaN);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.motor.axis.x: must be a finite number"});
  r.push_back({"InfiniteMaxForce",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_motor()->mutable_b()->set_name("wheel");
                 def.mutable_motor()->set_max_force(kInf);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "leave it unset for no limit"});
  r.push_back({"NaNSoftness",
               [](Client& c) {
                 v1::ConstraintDef def = distance([](v1::Distance&) {});
                 def.mutable_softness()->set_frequency(kNaN);
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.softness.frequency: must be a finite number"});
  r.push_back({"NaNLengthInAnUpdate",
               [](Client& c) {
                 return update_constraint(c, "rod", [](v1::ConstraintDef& d) { d.mutable_distance()->set_length(kNaN); });
               },
               StatusCode::INVALID_ARGUMENT, "constraint.distance.length: must be a finite number"});
  r.push_back({"NaNSpringStiffness",
               [](Client& c) {
                 v1::ForceDef f;
                 f.mutable_spring()->mutable_a()->set_name("p1");
                 f.mutable_spring()->set_stiffness(kNaN);
                 return add_force(c, f);
               },
               StatusCode::INVALID_ARGUMENT, "force.spring.stiffness: must be a finite number"});
  r.push_back({"InfiniteAppliedForce",
               [](Client& c) {
                 v1::ForceDef f;
                 f.mutable_applied()->mutable_body()->set_name("p1");
                 f.mutable_applied()->mutable_force()->set_y(kInf);
                 return add_force(c, f);
               },
               StatusCode::INVALID_ARGUMENT, "force.applied.force.y: must be a finite number"});
  r.push_back({"NaNImpulse",
               [](Client& c) {
                 v1::ApplyImpulseRequest req;
                 req.set_world("lab");
                 req.mutable_impulse()->mutable_body()->set_name("wheel");
                 req.mutable_impulse()->set_angular_impulse(kNaN);
                 v1::ApplyImpulseResponse resp;
                 return c.forces->ApplyImpulse(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "impulse.angular_impulse: must be a finite number"});
  // Finite numbers whose result is not: a velocity, an inverse mass or an
  // inertia beyond the largest double, which no step could bring back.
  r.push_back({"ImpulseThatOverflowsTheVelocity",
               [](Client& c) {
                 v1::ApplyImpulseRequest req;
                 req.set_world("lab");
                 req.mutable_impulse()->mutable_body()->set_name("p1");  // 0.1 kg
                 req.mutable_impulse()->mutable_impulse()->set_x(1e308);
                 v1::ApplyImpulseResponse resp;
                 return c.forces->ApplyImpulse(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "impulse.impulse: too large for this body"});
  r.push_back({"MassWhoseInverseOverflows",
               [](Client& c) { return create_body(c, particle("speck", 5, 5, 1e-320)); },
               StatusCode::INVALID_ARGUMENT, "body.mass: too small"});
  r.push_back({"InertiaThatOverflowsAtTheGivenMass",
               [](Client& c) {
                 v1::BodyDef b = particle("planet", 5, 5, 1e300);
                 b.set_kind(v1::BODY_KIND_RIGID);
                 b.mutable_shape()->mutable_disk()->set_radius(1e10);
                 return create_body(c, b);
               },
               StatusCode::INVALID_ARGUMENT, "body.inertia: too large"});
  r.push_back({"TrajectoryWhoseFrequencyOverflows",
               [](Client& c) {
                 v1::ConstraintDef def;
                 def.mutable_trajectory()->mutable_body()->set_name("p1");
                 def.mutable_trajectory()->mutable_path()->mutable_frequency()->set_x(1e308);  // 2π·f = ∞
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.trajectory: its error or Jacobian"});
  r.push_back({"AnchorsAnInfiniteDistanceApart",
               [](Client& c) {
                 v1::ConstraintDef def = rod("p1", "p2");
                 def.mutable_distance()->mutable_anchor_a()->set_x(-1e308);
                 def.mutable_distance()->mutable_anchor_b()->set_x(1e308);  // a current length of ∞
                 return add_constraint(c, def);
               },
               StatusCode::INVALID_ARGUMENT, "constraint.distance: its error or Jacobian"});
  r.push_back({"SpringAnchorsAnInfiniteDistanceApart",
               [](Client& c) {
                 v1::ForceDef f;
                 f.mutable_spring()->mutable_a()->set_name("p1");
                 f.mutable_spring()->mutable_anchor_a()->set_x(-1e308);
                 f.mutable_spring()->mutable_anchor_b()->set_x(1e308);
                 return add_force(c, f);
               },
               StatusCode::INVALID_ARGUMENT, "force.spring.rest_length: the anchors' current distance"});
  r.push_back({"NaNPolygonVertex",
               [](Client& c) {
                 v1::BodyDef b = particle("tri", 5, 5, 1.0);
                 b.set_kind(v1::BODY_KIND_RIGID);
                 *b.mutable_shape()->mutable_polygon()->add_vertices() = vec(0, 0);
                 *b.mutable_shape()->mutable_polygon()->add_vertices() = vec(1, kNaN);
                 *b.mutable_shape()->mutable_polygon()->add_vertices() = vec(0, 1);
                 return create_body(c, b);
               },
               StatusCode::INVALID_ARGUMENT, "body.shape.polygon.vertices[1].y: must be a finite number"});
  // Case 11: UpdateConstraint renames, or says why not.
  r.push_back({"RenameToAnInvalidName",
               [](Client& c) { return update_constraint(c, "rod", [](v1::ConstraintDef& d) { d.set_name("no spaces"); }); },
               StatusCode::INVALID_ARGUMENT, "constraint.name: only letters"});
  r.push_back({"RenameToATakenName",
               [](Client& c) { return update_constraint(c, "rod", [](v1::ConstraintDef& d) { d.set_name("motor"); }); },
               StatusCode::FAILED_PRECONDITION, "constraint.name: 'motor' is already the name of constraint"});
  r.push_back({"RenameWithABadLength",
               [](Client& c) {
                 return update_constraint(c, "rod", [](v1::ConstraintDef& d) {
                   d.set_name("rod2");
                   d.mutable_distance()->set_length(-1);
                 });
               },
               StatusCode::INVALID_ARGUMENT, "constraint.distance.length"});
  // Case 12: names that read as ids, or as the world.
  r.push_back({"BodyNamedWorld", [](Client& c) { return create_body(c, particle("world", 5, 5)); },
               StatusCode::INVALID_ARGUMENT, "body.name: 'world' stands for the fixed frame"});
  r.push_back({"BodyNamedAnIndex", [](Client& c) { return create_body(c, particle("0", 5, 5)); },
               StatusCode::INVALID_ARGUMENT, "body.name: '0' reads as an id"});
  r.push_back({"BodyNamedAnId", [](Client& c) { return create_body(c, particle("3:1", 5, 5)); },
               StatusCode::INVALID_ARGUMENT, "body.name: '3:1' reads as an id"});
  r.push_back({"BodyRenamedToAnIndex",
               [](Client& c) {
                 v1::UpdateBodyRequest req;
                 req.set_world("lab");
                 req.mutable_body()->set_name("p1");
                 *req.mutable_def() = particle("42", 0, 0);
                 v1::UpdateBodyResponse resp;
                 return c.bodies->UpdateBody(context().get(), req, &resp);
               },
               StatusCode::INVALID_ARGUMENT, "def.name: '42' reads as an id"});
  r.push_back({"ConstraintNamedAnIndex", [](Client& c) { return add_constraint(c, rod("", "p2", "7")); },
               StatusCode::INVALID_ARGUMENT, "constraint.name: '7' reads as an id"});
  r.push_back({"ConstraintRenamedWorld",
               [](Client& c) { return update_constraint(c, "rod", [](v1::ConstraintDef& d) { d.set_name("world"); }); },
               StatusCode::INVALID_ARGUMENT, "constraint.name: 'world'"});
  return r;
}

class PreciseErrors : public ::testing::TestWithParam<Refusal> {
 public:
  static void SetUpTestSuite() {
    server_ = new InProcessServer();
    client_ = new Client(server_->target());
    build(*client_);
  }
  static void TearDownTestSuite() {
    delete client_;
    delete server_;
  }

 protected:
  static inline InProcessServer* server_ = nullptr;
  static inline Client* client_ = nullptr;
};

TEST_P(PreciseErrors, AreRefusedWithTheirOwnStatusAndChangeNothing) {
  const Refusal& r = GetParam();
  const Picture before = picture(*client_, "lab");
  const grpc::Status s = r.call(*client_);
  std::printf("%s -> %s\n", r.name.c_str(), status_text(s).c_str());
  EXPECT_EQ(s.error_code(), r.code) << status_text(s);
  EXPECT_NE(s.error_message().find(r.needle), std::string::npos) << "wanted '" << r.needle << "' in: " << s.error_message();
  EXPECT_LT(s.error_message().size(), 400u) << "a message that long echoes its input";
  expect_same(picture(*client_, "lab"), before);
}

INSTANTIATE_TEST_SUITE_P(Server, PreciseErrors, ::testing::ValuesIn(refusals()),
                         [](const ::testing::TestParamInfo<Refusal>& info) { return info.param.name; });

// Case 11: a valid new name is taken and frees the old one; an empty name
// keeps the constraint's.
TEST(UpdateConstraint, Renames) {
  InProcessServer server;
  Client c(server.target());
  build(c);
  const v1::Id rod_id = constraint_id(c, "rod");
  grpc::Status s = update_constraint(c, "rod", [](v1::ConstraintDef& d) {
    d.set_name("long-rod");
    d.mutable_distance()->set_length(2);
  });
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(key(constraint_id(c, "long-rod")), key(rod_id));
  // The old name is free again.
  ASSERT_TRUE(add_constraint(c, rod("p2", "wheel", "rod")).ok());
  // No name: the constraint keeps its own.
  s = update_constraint(c, "long-rod", [](v1::ConstraintDef& d) { d.clear_name(); });
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(key(constraint_id(c, "long-rod")), key(rod_id));
}

// Case 10's other half: an absent value is the current one.
TEST(AbsentValues, AreTheCurrentOnes) {
  InProcessServer server;
  Client c(server.target());
  build(c);
  ASSERT_TRUE(add_constraint(c, rod("p1", "wheel", "measured")).ok());
  v1::GetConstraintRequest get;
  get.set_world("lab");
  *get.mutable_id() = constraint_id(c, "measured");
  v1::GetConstraintResponse got;
  ASSERT_TRUE(c.constraints->GetConstraint(context().get(), get, &got).ok());
  EXPECT_DOUBLE_EQ(got.constraint().def().distance().length(), 3.0);
}

}  // namespace
}  // namespace linkage::itest
