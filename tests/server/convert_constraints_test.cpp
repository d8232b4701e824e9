// Constraints and forces: every type through the world and back; defaults;
// errors with the proto path.
#include <gtest/gtest.h>

#include <cmath>

#include "convert/convert.hpp"
#include "proto_text.hpp"

namespace linkage::server {
namespace {

// Two rigid bodies and two particles, named; the same ids in every copy.
struct Fixture {
  World world = World::create().value();
  Names names;
  explicit Fixture(int dimension = 2) {
    world = World::create({.dimension = dimension}).value();
    if (dimension == 3) {
      names.add_body("p1", world.add_body({.position = Vec3(0, 0, 1), .mass = 1}).value()).value();
      return;
    }
    add("r1", {.kind = BodyKind::rigid, .shape = Box{0.5, 0.1}});
    add("r2", {.kind = BodyKind::rigid, .position = Vec3(1, 0.5, 0), .angle = 0.2, .shape = Disk{0.5}});
    add("p1", {.position = Vec3(2, 0, 0), .mass = 1});
    add("p2", {.position = Vec3(0, -1, 0), .mass = 2});
  }
  void add(const char* name, const BodyDef& def) { names.add_body(name, world.add_body(def).value()).value(); }
  BodyId id(const char* name) const { return names.find_body(name).value(); }
};

template <class T>
void expect_error_message(const Result<T>& r, const std::string& starts_with) {
  ASSERT_FALSE(r.ok()) << starts_with;
  EXPECT_TRUE(r.error().message.starts_with(starts_with)) << r.error().message;
}

struct Case {
  const char* json;
  int dimension = 2;
};

class Constraints : public ::testing::TestWithParam<Case> {};

TEST_P(Constraints, RoundTripThroughTheWorld) {
  const auto proto = from_json<v1::ConstraintDef>(GetParam().json);
  Fixture f1(GetParam().dimension), f2(GetParam().dimension);
  Result<ConstraintDef> def = constraint_from_proto(proto, resolver(f1.world, f1.names));
  ASSERT_TRUE(def) << def.error().message;
  Result<ConstraintId> id = f1.world.add_constraint(def.value(), softness_from_proto(proto));
  ASSERT_TRUE(id) << constraint_error(id.error(), proto).message;
  ASSERT_TRUE(f1.names.add_constraint(proto.name(), id.value()));
  f1.world.step();
  v1::Constraint out;
  constraint_to_proto(f1.world.constraint(id.value()).value(), f1.world, f1.names, &out);
  EXPECT_EQ(out.def().type_case(), proto.type_case());
  EXPECT_EQ(out.def().name(), proto.name());
  const int rows = f1.world.constraint(id.value()).value().rows;
  EXPECT_EQ(out.lambda_size(), rows);
  EXPECT_EQ(out.error_size(), rows);
  EXPECT_EQ(out.error_rate_size(), rows);
  // Bodies come back as ids; read them into a twin world and out again.
  Result<ConstraintDef> back = constraint_from_proto(out.def(), resolver(f2.world, f2.names));
  ASSERT_TRUE(back) << back.error().message;
  const ConstraintId id2 = f2.world.add_constraint(back.value(), softness_from_proto(out.def())).value();
  f2.names.add_constraint(out.def().name(), id2).value();
  v1::Constraint again;
  constraint_to_proto(f2.world.constraint(id2).value(), f2.world, f2.names, &again);
  EXPECT_PROTO_EQ(out.def(), again.def());
}

INSTANTIATE_TEST_SUITE_P(
    EveryType, Constraints,
    ::testing::Values(
        Case{R"({"distance": {"a": {"name": "r1"}, "anchor_a": {"x": 0.5}, "b": {"name": "p1"}}, "name": "rod"})"},
        Case{R"({"rope": {"a": {"name": "p1"}, "b": {"name": "p2"}, "max_length": 3}})"},
        Case{R"({"pin": {"a": {"name": "r1"}, "anchor_a": {"x": 0.5}, "b": {"name": "r2"},
                  "anchor_b": {"x": -0.5, "y": -0.5}}, "softness": {"frequency": 5, "damping_ratio": 0.5}})"},
        Case{R"({"point_on_line": {"a": {"name": "r1"}, "b": {"name": "p1"}, "axis": {"x": 1, "y": 1}}})"},
        Case{R"({"point_on_circle": {"b": {"name": "p1"}}, "softness": {"frequency": 2}})"},
        Case{R"({"point_on_plane": {"b": {"name": "p1"}, "normal": {"x": 0, "y": 1, "z": 1}}})", 3},
        Case{R"({"weld": {"a": {"name": "r1"}, "b": {"name": "r2"}, "anchor_a": {"x": 1, "y": 0.5}}})"},
        Case{R"({"relative_angle": {"b": {"name": "r1"}, "angle": 0.3}})"},
        Case{R"({"gear": {"a": {"name": "r1"}, "b": {"name": "r2"}, "radius_a": 1, "radius_b": 2}})"},
        Case{R"({"rack_and_pinion": {"rack": {"name": "r1"}, "pinion": {"name": "r2"}, "radius": 0.5}})"},
        Case{R"({"motor": {"a": {"name": "r1"}, "b": {"name": "r2"}, "speed": 2, "max_force": 10}, "name": "m"})"},
        Case{R"({"motor": {"b": {"name": "p1"}, "kind": "MOTOR_KIND_LINEAR", "axis": {"y": 1}, "speed": -1}})"},
        Case{R"({"trajectory": {"body": {"name": "p2"}, "path": {"origin": {"y": -1}, "amplitude": {"x": 0.1},
                  "frequency": {"x": 1}, "phase": {"x": 0.2}, "velocity": {"y": 0.1}}}})"}));

TEST(Constraint, UnsetValuesAreCurrentAndDefaults) {
  Fixture f;
  const BodyResolver r = resolver(f.world, f.names);
  auto def = [&](const char* json) { return constraint_from_proto(from_json<v1::ConstraintDef>(json), r).value(); };
  EXPECT_TRUE(std::isnan(std::get<DistanceDef>(def(R"({"distance": {"b": {"name": "p1"}}})")).length));
  EXPECT_EQ(std::get<DistanceDef>(def(R"({"distance": {"b": {"name": "p1"}, "length": 2}})")).length, 2.0);
  EXPECT_TRUE(std::isnan(std::get<RopeDef>(def(R"({"rope": {"b": {"name": "p1"}}})")).max_length));
  EXPECT_TRUE(std::isnan(std::get<PointOnCircleDef>(def(R"({"point_on_circle": {"b": {"name": "p1"}}})")).radius));
  EXPECT_TRUE(std::isnan(std::get<WeldDef>(def(R"({"weld": {"b": {"name": "r1"}}})")).angle));
  EXPECT_TRUE(std::isnan(std::get<RelativeAngleDef>(def(R"({"relative_angle": {"b": {"name": "r1"}}})")).angle));
  EXPECT_TRUE(std::isnan(std::get<GearDef>(def(R"({"gear": {"b": {"name": "r1"}}})")).offset));
  EXPECT_TRUE(std::isnan(std::get<RackAndPinionDef>(def(R"({"rack_and_pinion": {"rack": {"name": "r1"}}})")).offset));
  EXPECT_EQ(std::get<RackAndPinionDef>(def(R"({"rack_and_pinion": {}})")).axis, Vec3::UnitX());
  const MotorDef m = std::get<MotorDef>(def(R"({"motor": {"b": {"name": "r1"}}})"));
  EXPECT_EQ(m.max_force, std::numeric_limits<double>::infinity());
  EXPECT_EQ(m.kind, MotorKind::angular);
  EXPECT_EQ(m.axis, Vec3::UnitX());
  EXPECT_EQ(std::get<PointOnLineDef>(def(R"({"point_on_line": {}})")).axis, Vec3::UnitX());
  EXPECT_EQ(std::get<PointOnPlaneDef>(def(R"({"point_on_plane": {}})")).normal, Vec3::UnitZ());
  const DistanceDef d = std::get<DistanceDef>(def(R"({"distance": {"a": {"name": "r1"}, "b": {"name": "p1"}}})"));
  EXPECT_EQ(d.a, f.id("r1"));
  EXPECT_EQ(d.b, f.id("p1"));
  // Softness: unset is rigid and critically damped.
  const Softness s0 = softness_from_proto(v1::ConstraintDef{});
  EXPECT_EQ(s0.frequency, 0.0);
  EXPECT_EQ(s0.damping_ratio, 1.0);
  const Softness s1 = softness_from_proto(from_json<v1::ConstraintDef>(R"({"softness": {"frequency": 4}})"));
  EXPECT_EQ(s1.frequency, 4.0);
  EXPECT_EQ(s1.damping_ratio, 1.0);
  // An unlimited motor writes no max_force (JSON has no infinity).
  v1::ConstraintDef out;
  constraint_def_to_proto(m, {}, "", ids_as_refs(), &out);
  EXPECT_FALSE(out.motor().has_max_force());
  EXPECT_FALSE(out.has_softness());
}

TEST(Constraint, Errors) {
  Fixture f;
  const BodyResolver r = resolver(f.world, f.names);
  auto convert = [&](const char* json, std::string_view path = "constraint") {
    return constraint_from_proto(from_json<v1::ConstraintDef>(json), r, path);
  };
  EXPECT_EQ(convert("{}").error().code, ErrorCode::invalid_argument);
  EXPECT_TRUE(convert("{}").error().message.starts_with("constraint: no type set")) << convert("{}").error().message;
  EXPECT_EQ(convert(R"({"pin": {"a": {"name": "x"}}})").error().message, "constraint.pin.a: no body named 'x'");
  EXPECT_EQ(convert(R"({"rack_and_pinion": {"pinion": {"name": "x"}}})", "constraints[2]").error().message,
            "constraints[2].rack_and_pinion.pinion: no body named 'x'");
  EXPECT_EQ(convert(R"({"trajectory": {"body": {"name": "x"}}})").error().code, ErrorCode::not_found);
  EXPECT_EQ(convert(R"({"motor": {"kind": 7}})").error().message, "constraint.motor.kind: unknown value 7");

  // The core's refusals, under the proto's path.
  auto add = [&](const char* json) {
    const auto proto = from_json<v1::ConstraintDef>(json);
    Result<ConstraintId> id = f.world.add_constraint(constraint_from_proto(proto, r).value(), softness_from_proto(proto));
    EXPECT_FALSE(id.ok()) << json;
    return id ? Error{} : constraint_error(id.error(), proto);
  };
  EXPECT_TRUE(add(R"({"distance": {"b": {"name": "p1"}, "length": -1}})")
                  .message.starts_with("constraint.distance.length: must be > 0"));
  EXPECT_TRUE(add(R"({"distance": {"b": {"name": "p1"}}, "softness": {"frequency": -1}})")
                  .message.starts_with("constraint.softness.frequency: "));
  EXPECT_TRUE(add(R"({"motor": {"b": {"name": "r1"}}, "softness": {"frequency": 1}})")
                  .message.starts_with("constraint.softness: a motor"));
  EXPECT_TRUE(add(R"({"point_on_plane": {"b": {"name": "p1"}}})")
                  .message.starts_with("constraint.point_on_plane: needs a 3D world"));
  EXPECT_TRUE(add(R"({"distance": {"a": {"name": "p1"}, "b": {"name": "p1"}}})")
                  .message.starts_with("constraint.distance.a, constraint.distance.b: name the same body"));
  EXPECT_TRUE(add(R"({"relative_angle": {"b": {"name": "p1"}}})")
                  .message.starts_with("constraint.relative_angle.b: must be a rigid body"));
  EXPECT_TRUE(add(R"({"gear": {"a": {"name": "r1"}, "b": {"name": "r2"}, "radius_a": -1}})")
                  .message.starts_with("constraint.gear.radius_a: must be finite and > 0"));
  EXPECT_TRUE(f.world.constraints().empty());
}

TEST(Constraint, TrajectoryReactionIsOnItsBody) {
  Fixture f;
  const auto proto = from_json<v1::ConstraintDef>(R"({"trajectory": {"body": {"name": "p2"},
      "path": {"origin": {"y": -1}}}})");
  const ConstraintId id =
      f.world.add_constraint(constraint_from_proto(proto, resolver(f.world, f.names)).value()).value();
  f.world.step();
  v1::Constraint out;
  constraint_to_proto(f.world.constraint(id).value(), f.world, f.names, &out);
  // Holding a 2 kg particle against gravity: 19.6 N up, on the body.
  EXPECT_NEAR(out.force_on_a().y(), 2 * 9.81, 1e-6);
  EXPECT_EQ(out.force_on_b().y(), 0.0);
  EXPECT_EQ(out.def().trajectory().body().id().index(), f.id("p2").index);
}

// --- forces ---

TEST(Forces, SpringAndAppliedRoundTrip) {
  for (const char* json : {
           R"({"spring": {"a": {"name": "p1"}, "b": {"name": "p2"}, "stiffness": 50, "damping": 2,
               "anchor_a": {"x": 0.1}}})",
           R"({"spring": {"a": {"name": "r1"}, "anchor_b": {"x": 3, "y": 1}, "stiffness": 5, "rest_length": 0.5}})",
           R"({"applied": {"body": {"name": "r1"}, "force": {"x": 1}, "point": {"y": 0.1}, "torque": 2,
               "ticks": 30}})",
           R"({"applied": {"body": {"name": "p1"}, "force": {"y": 10}}})"}) {
    SCOPED_TRACE(json);
    Fixture f1, f2;
    const auto proto = from_json<v1::ForceDef>(json);
    Result<ForceDefAny> def = force_from_proto(proto, resolver(f1.world, f1.names));
    ASSERT_TRUE(def) << def.error().message;
    auto add = [](World& w, const ForceDefAny& d) {
      return std::holds_alternative<SpringDef>(d) ? w.add_spring(std::get<SpringDef>(d))
                                                  : w.apply_force(std::get<ForceDef>(d));
    };
    const ForceId id = add(f1.world, def.value()).value();
    v1::Force out;
    force_to_proto(f1.world.force(id).value(), &out);
    EXPECT_EQ(out.def().type_case(), proto.type_case());
    if (proto.has_applied()) {
      EXPECT_EQ(out.ticks_left(), proto.applied().ticks());
      EXPECT_EQ(std::get<ForceDef>(def.value()).steps, static_cast<int>(proto.applied().ticks()));
    } else {
      EXPECT_TRUE(out.def().spring().has_rest_length());  // resolved
    }
    const ForceId id2 = add(f2.world, force_from_proto(out.def(), resolver(f2.world, f2.names)).value()).value();
    v1::Force again;
    force_to_proto(f2.world.force(id2).value(), &again);
    EXPECT_PROTO_EQ(out, again);
  }
}

TEST(Forces, AppliedTicksCountDown) {
  Fixture f;
  const auto proto = from_json<v1::ForceDef>(R"({"applied": {"body": {"name": "p1"}, "ticks": 3}})");
  const ForceId id =
      f.world.apply_force(std::get<ForceDef>(force_from_proto(proto, resolver(f.world, f.names)).value())).value();
  f.world.step();
  v1::Force out;
  force_to_proto(f.world.force(id).value(), &out);
  EXPECT_EQ(out.ticks_left(), 2u);
}

TEST(Forces, Errors) {
  Fixture f;
  const BodyResolver r = resolver(f.world, f.names);
  expect_error_message(force_from_proto(v1::ForceDef{}, r), "force: no type set");
  expect_error_message(force_from_proto(from_json<v1::ForceDef>(R"({"spring": {"a": {"name": "p1"},
      "rest_length": -1}})"), r, "forces[4]"), "forces[4].spring.rest_length: must be ≥ 0");
  expect_error_message(force_from_proto(from_json<v1::ForceDef>(R"({"spring": {"b": {"name": "zz"}}})"), r),
                       "force.spring.b: no body named 'zz'");
  const auto torque = from_json<v1::ForceDef>(R"({"applied": {"body": {"name": "p1"}, "torque": 1}})");
  Result<ForceId> id = f.world.apply_force(std::get<ForceDef>(force_from_proto(torque, r).value()));
  ASSERT_FALSE(id);
  EXPECT_TRUE(force_error(id.error(), torque).message.starts_with("force.applied.torque: "));
  const auto no_a = from_json<v1::ForceDef>(R"({"spring": {"b": {"name": "p1"}}})");
  id = f.world.add_spring(std::get<SpringDef>(force_from_proto(no_a, r).value()));
  ASSERT_FALSE(id);
  EXPECT_EQ(force_error(id.error(), no_a).message, "force.spring.a: must name a body");
}

TEST(Impulses, FromProto) {
  Fixture f;
  const BodyResolver r = resolver(f.world, f.names);
  const ImpulseDef d = impulse_from_proto(from_json<v1::Impulse>(R"({"body": {"name": "r1"}, "impulse": {"x": 2},
      "point": {"y": 0.5}, "angular_impulse": 3})"), r).value();
  EXPECT_EQ(d.body, f.id("r1"));
  EXPECT_EQ(d.impulse, Vec3(2, 0, 0));
  EXPECT_EQ(d.point, Vec3(0, 0.5, 0));
  EXPECT_EQ(d.angular_impulse, 3.0);
  Result<ImpulseDef> bad = impulse_from_proto(from_json<v1::Impulse>(R"({"body": {"name": "q"}})"), r);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::not_found);
  EXPECT_EQ(bad.error().message, "impulse.body: no body named 'q'");
}

}  // namespace
}  // namespace linkage::server
