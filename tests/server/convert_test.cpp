// proto ↔ core: round trips, defaults, and errors that name the proto field.
#include "convert/convert.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "proto_text.hpp"

namespace linkage::server {
namespace {

template <class T>
void expect_error(const Result<T>& r, ErrorCode code, const std::string& starts_with) {
  ASSERT_FALSE(r.ok()) << "expected an error starting with " << starts_with;
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_TRUE(r.error().message.starts_with(starts_with)) << r.error().message << "\nexpected to start with: "
                                                          << starts_with;
}

// --- settings ---

TEST(Settings, RoundTripAndEveryFieldFilled) {
  WorldSettings s;
  s.dimension = 3;
  s.gravity = Vec3(0.5, -3.0, -9.0);
  s.dt = 1.0 / 240.0;
  s.substeps = 3;
  s.integrator = Integrator::velocity_verlet;
  s.solver = LinearSolver::gauss_seidel;
  s.dynamics = Dynamics::sequential_impulses;
  s.feedback_stiffness = 7.0, s.feedback_damping = 3.0, s.solver_tolerance = 1e-7, s.solver_max_iterations = 33;
  s.regularization = 1e-8, s.warm_start = false, s.baumgarte = 0.3, s.velocity_iterations = 11;
  s.position_iterations = 4, s.relax_iterations = 2, s.project_positions = true, s.project_velocities = true;
  s.projection_tolerance = 1e-9, s.projection_max_iterations = 7;
  s.contacts = true, s.contact_margin = 0.01, s.contact_slop = 0.002, s.restitution_threshold = 0.5;
  v1::WorldSettings p;
  settings_to_proto(s, &p);
  // Every optional field and message is present: a client sees resolved settings.
  const auto* d = p.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->has_presence()) {
      EXPECT_TRUE(p.GetReflection()->HasField(p, d->field(i))) << d->field(i)->name();
    }
  }
  EXPECT_EQ(p.tick_rate(), 240.0);  // whole Hz stay whole
  Result<WorldSettings> back = settings_from_proto(p, WorldSettings{});
  ASSERT_TRUE(back);
  v1::WorldSettings again;
  settings_to_proto(back.value(), &again);
  EXPECT_PROTO_EQ(p, again);
  EXPECT_EQ(back.value().dt, s.dt);
}

TEST(Settings, UnsetFieldsKeepTheBase) {
  WorldSettings base;
  base.substeps = 5;
  base.integrator = Integrator::midpoint;
  base.gravity = Vec3(0, -1, 0);
  Result<WorldSettings> s = settings_from_proto(from_json<v1::WorldSettings>(R"({"tick_rate": 100})"), base);
  ASSERT_TRUE(s);
  EXPECT_EQ(s.value().dt, 1.0 / 100.0);
  EXPECT_EQ(s.value().substeps, 5);
  EXPECT_EQ(s.value().integrator, Integrator::midpoint);
  EXPECT_EQ(s.value().gravity, Vec3(0, -1, 0));
  s = settings_from_proto(from_json<v1::WorldSettings>(R"({"integrator": "INTEGRATOR_RK4", "gravity": {}})"), base);
  EXPECT_EQ(s.value().integrator, Integrator::rk4);
  EXPECT_EQ(s.value().gravity, Vec3::Zero());  // a set message is a value, even all zero
}

TEST(Settings, BadTickRateAndEnums) {
  for (double rate : {0.0, -60.0, 10001.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    v1::WorldSettings p;
    p.set_tick_rate(rate);
    expect_error(settings_from_proto(p, {}), ErrorCode::invalid_argument, "settings.tick_rate: must be > 0");
  }
  v1::WorldSettings p;
  p.set_tick_rate(10000.0);
  EXPECT_TRUE(settings_from_proto(p, {}));
  p.set_solver(static_cast<v1::LinearSolver>(42));
  expect_error(settings_from_proto(p, {}, "world.settings"), ErrorCode::invalid_argument,
               "world.settings.solver: unknown value 42");
}

TEST(Settings, CoreErrorsGetTheProtoPath) {
  Result<WorldSettings> s = settings_from_proto(from_json<v1::WorldSettings>(R"({"substeps": 0})"), {});
  ASSERT_TRUE(s);  // the core judges substeps
  Result<World> w = World::create(s.value());
  ASSERT_FALSE(w);
  EXPECT_EQ(settings_error(w.error()).message.substr(0, 19), "settings.substeps: ");
  // The path is rewritten from the error's field, never read from its text.
  const Error mapped = settings_error(field_error(ErrorCode::invalid_argument, "dt", "must be > 0"));
  EXPECT_EQ(mapped.message, "settings.tick_rate: must be > 0");
  EXPECT_EQ(mapped.field, "settings.tick_rate");
  EXPECT_EQ(settings_error(Error{ErrorCode::invalid_argument, "dt: looks like a field, is not one"}).message,
            "settings: dt: looks like a field, is not one");
}

// --- bodies ---

class Bodies : public ::testing::TestWithParam<const char*> {};

TEST_P(Bodies, RoundTripThroughTheWorld) {
  const auto proto = from_json<v1::BodyDef>(GetParam());
  World w1 = World::create().value(), w2 = World::create().value();
  Result<BodyDef> def = body_from_proto(proto);
  ASSERT_TRUE(def) << def.error().message;
  const BodyId id1 = w1.add_body(def.value()).value();
  v1::Body out;
  body_to_proto(w1.body(id1).value(), proto.name(), &out);
  EXPECT_EQ(out.id().generation(), id1.generation);
  EXPECT_EQ(out.def().name(), proto.name());
  if (def.value().motion == Motion::dynamic) {
    EXPECT_GT(out.def().mass(), 0.0);  // resolved
  }
  const BodyId id2 = w2.add_body(body_from_proto(out.def()).value()).value();
  v1::Body again;
  body_to_proto(w2.body(id2).value(), proto.name(), &again);
  // The core re-centres a polygon on its centroid each time it is added; on
  // an already centred polygon that moves vertices by an ulp or so.
  for (int i = 0; again.def().shape().has_polygon() && i < again.def().shape().polygon().vertices_size(); ++i) {
    auto* v = again.mutable_def()->mutable_shape()->mutable_polygon()->mutable_vertices();
    const v1::Vec3& want = out.def().shape().polygon().vertices(i);
    EXPECT_NEAR(v->Get(i).x(), want.x(), 1e-15);
    EXPECT_NEAR(v->Get(i).y(), want.y(), 1e-15);
    *v->Mutable(i) = want;
  }
  EXPECT_PROTO_EQ(out, again);
  const BodyInfo a = w1.body(id1).value(), b = w2.body(id2).value();
  EXPECT_EQ(a.mass, b.mass);
  EXPECT_EQ(a.inertia, b.inertia);
  EXPECT_EQ(a.position, b.position);
  EXPECT_EQ(a.velocity, b.velocity);
}

INSTANTIATE_TEST_SUITE_P(
    EveryKindAndShape, Bodies,
    ::testing::Values(
        R"({"name": "p", "position": {"x": 1, "y": 2}, "velocity": {"x": -1}, "mass": 2, "linear_damping": 0.1})",
        R"({"kind": "BODY_KIND_PARTICLE", "shape": {"disk": {"radius": 0.2}}, "density": 3})",
        R"({"kind": "BODY_KIND_RIGID", "angle": 0.5, "angular_velocity": 2, "shape": {"disk": {"radius": 0.5}}})",
        R"({"kind": "BODY_KIND_RIGID", "shape": {"box": {"half_width": 1, "half_height": 0.1}}, "angular_damping": 1})",
        R"({"kind": "BODY_KIND_RIGID", "mass": 2, "inertia": 0.7})",
        R"({"kind": "BODY_KIND_RIGID", "shape": {"polygon": {"vertices": [{"x": 0, "y": 0}, {"x": 2, "y": 0},
            {"x": 0, "y": 1}]}}})",
        R"({"motion": "MOTION_FIXED", "kind": "BODY_KIND_RIGID", "position": {"x": 3}})",
        R"({"motion": "MOTION_KINEMATIC", "velocity": {"x": 1, "y": 1}})",
        R"({"kind": "BODY_KIND_RIGID", "shape": {"box": {"half_width": 1, "half_height": 1}},
            "material": {"friction": 0.2, "restitution": 0.9}, "filter": {"category": 4, "mask": 3, "group": -2}})",
        R"({"kind": "BODY_KIND_RIGID", "shape": {"capsule": {"radius": 0.2, "half_length": 0.6}}})",
        R"({"kind": "BODY_KIND_RIGID", "motion": "MOTION_FIXED", "shape": {"segment": {"a": {"x": -1, "y": 0.5},
            "b": {"x": 2, "y": -0.5}}}})",
        R"({"kind": "BODY_KIND_RIGID", "motion": "MOTION_KINEMATIC", "angle": 0.2,
            "shape": {"plane": {"normal": {"x": 0.6, "y": 0.8}}}})"));

TEST(Body, NewShapesErrorsNameTheirProtoFields) {
  World w = World::create().value();
  const auto refused = [&](const char* json) {
    Result<BodyDef> def = body_from_proto(from_json<v1::BodyDef>(json));
    if (!def) return def.error().message;
    const Result<BodyId> id = w.add_body(def.value());
    return id ? std::string("accepted") : body_error(id.error(), "body").message;
  };
  EXPECT_EQ(refused(R"({"kind": "BODY_KIND_RIGID", "shape": {"capsule": {"radius": -1, "half_length": 1}}})")
                .rfind("body.shape.capsule.radius: ", 0),
            0u);
  EXPECT_EQ(refused(R"({"kind": "BODY_KIND_RIGID", "motion": "MOTION_FIXED", "shape": {"segment": {}}})")
                .rfind("body.shape.segment.b: must differ from shape.segment.a", 0),
            0u);
  EXPECT_EQ(refused(R"({"kind": "BODY_KIND_RIGID", "motion": "MOTION_FIXED", "shape": {"plane": {}}})")
                .rfind("body.shape.plane.normal: must not be zero", 0),
            0u);
  EXPECT_EQ(refused(R"({"kind": "BODY_KIND_RIGID", "shape": {"plane": {"normal": {"y": 1}}}})").rfind("body.motion: ", 0),
            0u);
}

TEST(Body, MaterialAndFilterDefaultsAndChecks) {
  const BodyDef d = body_from_proto(from_json<v1::BodyDef>(R"({"material": {"restitution": 0.5}})")).value();
  EXPECT_EQ(d.material.friction, Material{}.friction);  // unset: the core's default
  EXPECT_EQ(d.material.restitution, 0.5);
  EXPECT_EQ(d.filter.category, 1u);
  EXPECT_EQ(d.filter.mask, 0xFFFFFFFFu);
  World w = World::create().value();
  const BodyDef bad = body_from_proto(from_json<v1::BodyDef>(R"({"mass": 1, "material": {"restitution": 2}})")).value();
  const Result<BodyId> refused = w.add_body(bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(body_error(refused.error(), "body").message.rfind("body.material.restitution: must be in [0, 1]", 0), 0u)
      << body_error(refused.error(), "body").message;
}

TEST(Body, Defaults) {
  const BodyDef d = body_from_proto(v1::BodyDef{}).value();
  EXPECT_EQ(d.kind, BodyKind::particle);
  EXPECT_EQ(d.motion, Motion::dynamic);
  EXPECT_EQ(d.density, 1.0);  // 0 means the default
  EXPECT_TRUE(std::holds_alternative<NoShape>(d.shape));
  const BodyDef p = body_from_proto(from_json<v1::BodyDef>(R"({"shape": {"polygon": {"vertices": [{"x": 1, "y": 2}]}}})"))
                        .value();
  ASSERT_EQ(std::get<Polygon>(p.shape).vertices.size(), 1u);
  EXPECT_EQ(std::get<Polygon>(p.shape).vertices[0], Vec2(1, 2));
}

TEST(Body, Errors) {
  expect_error(body_from_proto(from_json<v1::BodyDef>(
                                   R"({"shape": {"polygon": {"vertices": [{"x": 1}, {"x": 1, "z": 1}]}}})"),
                               "bodies[2]"),
               ErrorCode::invalid_argument, "bodies[2].shape.polygon.vertices[1].z: must be 0");
  v1::BodyDef bad_kind;
  bad_kind.set_kind(static_cast<v1::BodyKind>(9));
  expect_error(body_from_proto(bad_kind), ErrorCode::invalid_argument, "body.kind: unknown value 9");
  // The core's messages, with the proto's path.
  World w = World::create().value();
  auto core = [&](const char* json) {
    return body_error(w.add_body(body_from_proto(from_json<v1::BodyDef>(json)).value()).error());
  };
  EXPECT_TRUE(core(R"({})").message.starts_with("body.mass: ")) << core("{}").message;
  EXPECT_TRUE(core(R"({"kind": "BODY_KIND_RIGID", "shape": {"disk": {"radius": -1}}})")
                  .message.starts_with("body.shape.disk.radius: "));
  EXPECT_TRUE(core(R"({"kind": "BODY_KIND_RIGID", "shape": {"box": {"half_width": 1}}})")
                  .message.starts_with("body.shape.box.half_height: "));
  EXPECT_TRUE(core(R"({"mass": 1, "angle": 1})").message.starts_with("body.angle, body.angular_velocity: "));
}

// --- body references ---

TEST(BodyRefs, IdNameUnknownAndEmpty) {
  World w = World::create().value();
  Names names;
  const BodyId a = w.add_body({.mass = 1}).value();
  const BodyId gone = w.add_body({.mass = 1}).value();
  ASSERT_TRUE(names.add_body("anchor", a));
  ASSERT_TRUE(w.remove_body(gone));
  const BodyResolver resolve = resolver(w, names);
  EXPECT_EQ(resolve(from_json<v1::BodyRef>(R"({"name": "anchor"})"), "x").value(), a);
  v1::BodyRef by_id;
  id_to_proto(a, by_id.mutable_id());
  EXPECT_EQ(resolve(by_id, "x").value(), a);
  EXPECT_TRUE(resolve(v1::BodyRef{}, "x").value().is_null());  // the world
  EXPECT_TRUE(resolve(from_json<v1::BodyRef>(R"({"name": ""})"), "x").value().is_null());
  EXPECT_TRUE(resolve(from_json<v1::BodyRef>(R"({"id": {}})"), "x").value().is_null());
  expect_error(resolve(from_json<v1::BodyRef>(R"({"name": "nope"})"), "constraint.distance.b"), ErrorCode::not_found,
               "constraint.distance.b: no body named 'nope'");
  id_to_proto(gone, by_id.mutable_id());
  expect_error(resolve(by_id, "body"), ErrorCode::not_found, "body: body 1:1 does not exist");
}

}  // namespace
}  // namespace linkage::server
