// The footprint: every object's bound is at least what it takes in every
// answer that carries it, whatever its state; the answers' other bytes fit in
// kAnswerOverhead; the world's footprint follows its objects.
#include "convert/footprint.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/reflection.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "convert/convert.hpp"
#include "convert/scene_io.hpp"
#include "linkage/v1/service.pb.h"
#include "linkage/v1/snapshot.pb.h"
#include "proto_text.hpp"

namespace linkage::server {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedOutputStream;

std::size_t field(std::size_t n) { return 1 + CodedOutputStream::VarintSize64(n) + n; }

// A world with every kind of body, shape and constraint its dimension allows,
// names from none to the longest, soft constraints, springs and an applied
// force, each remembered with the request that made it.
struct Busy {
  World world;
  Names names;
  std::vector<std::pair<BodyId, v1::BodyDef>> bodies;
  std::vector<std::pair<ConstraintId, v1::ConstraintDef>> constraints;
  std::vector<std::pair<ForceId, v1::ForceDef>> forces;

  explicit Busy(int dimension) : world(World::create({.dimension = dimension}).value()) {}

  void body(const std::string& json) {
    const auto proto = from_json<v1::BodyDef>(json);
    const BodyId id = world.add_body(body_from_proto(proto).value()).value();
    names.add_body(proto.name(), id).value();
    bodies.emplace_back(id, proto);
  }
  void constraint(const std::string& json) {
    const auto proto = from_json<v1::ConstraintDef>(json);
    Result<ConstraintDef> def = constraint_from_proto(proto, resolver(world, names));
    ASSERT_TRUE(def) << def.error().message;
    Result<ConstraintId> id = world.add_constraint(def.value(), softness_from_proto(proto));
    ASSERT_TRUE(id) << json << ": " << constraint_error(id.error(), proto).message;
    names.add_constraint(proto.name(), id.value()).value();
    constraints.emplace_back(id.value(), proto);
  }
  void force(const std::string& json) {
    const auto proto = from_json<v1::ForceDef>(json);
    Result<ForceDefAny> def = force_from_proto(proto, resolver(world, names));
    ASSERT_TRUE(def) << def.error().message;
    Result<ForceId> id = std::holds_alternative<SpringDef>(def.value())
                             ? world.add_spring(std::get<SpringDef>(def.value()))
                             : world.apply_force(std::get<ForceDef>(def.value()));
    ASSERT_TRUE(id) << json << ": " << force_error(id.error(), proto).message;
    forces.emplace_back(id.value(), proto);
  }
  // Runs until every body moves and every constraint pulls.
  void run() {
    for (int i = 0; i < 30; ++i) world.step();
  }
};

std::string circle(int n) {
  std::string out = R"({"polygon": {"vertices": [)";
  for (int i = 0; i < n; ++i) {
    const double a = 2 * std::numbers::pi * i / n;
    out += (i ? ", " : "") + std::string(R"({"x": )") + std::to_string(std::cos(a)) + R"(, "y": )" +
           std::to_string(std::sin(a)) + "}";
  }
  return out + "]}}";
}

Busy busy_2d() {
  Busy w(2);
  const std::string longest(64, 'L');
  w.body(R"({"position": {"x": 1, "y": 2}, "mass": 1})");
  w.body(R"({"name": "r1", "kind": "BODY_KIND_RIGID", "position": {"x": 2}, "shape": {"disk": {"radius": 0.5}}})");
  w.body(R"({"name": "r2", "kind": "BODY_KIND_RIGID", "position": {"x": 3, "y": 1}, "shape": {"box":
             {"half_width": 0.5, "half_height": 0.2}}, "linear_damping": 0.1, "angular_damping": 0.2})");
  w.body(R"({"name": ")" + longest + R"(", "kind": "BODY_KIND_RIGID", "position": {"y": -2}, "shape": )" + circle(64) +
         "}");
  w.body(R"({"name": "k", "motion": "MOTION_KINEMATIC", "velocity": {"x": 1}, "position": {"x": -1}})");
  w.body(R"({"name": "f", "motion": "MOTION_FIXED", "kind": "BODY_KIND_RIGID", "shape": {"polygon": {"vertices":
             [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]}}})");
  w.constraint(R"({"distance": {"a": {"name": "r1"}, "b": {"name": "r2"}, "anchor_a": {"x": 0.1}}, "name": "rod"})");
  w.constraint(R"({"rope": {"b": {"name": "r2"}, "max_length": 10}, "name": ")" + longest + R"("})");
  w.constraint(R"({"pin": {"a": {"name": "r1"}, "b": {"name": ")" + longest + R"("}, "anchor_b": {"y": 1}},
                   "softness": {"frequency": 4, "damping_ratio": 0.5}})");
  w.constraint(R"({"point_on_line": {"a": {"name": "r2"}, "b": {"name": "k"}, "axis": {"x": 1, "y": 1}}})");
  w.constraint(R"({"point_on_circle": {"b": {"name": "r1"}, "anchor_a": {"x": 1}}})");
  w.constraint(R"({"weld": {"a": {"name": "r1"}, "b": {"name": "f"}}})");
  w.constraint(R"({"relative_angle": {"a": {"name": "r2"}, "b": {"name": "r1"}}})");
  w.constraint(R"({"gear": {"a": {"name": "r1"}, "b": {"name": "r2"}, "radius_b": 2}})");
  w.constraint(R"({"rack_and_pinion": {"rack": {"name": "r2"}, "pinion": {"name": ")" + longest + R"("}}})");
  w.constraint(R"({"motor": {"b": {"name": "r1"}, "speed": 1, "max_force": 5}})");
  w.constraint(R"({"motor": {"a": {"name": "r2"}, "b": {"name": "k"}, "kind": "MOTOR_KIND_LINEAR", "speed": 1}})");
  w.constraint(R"({"trajectory": {"body": {"name": "r2"}, "path": {"velocity": {"x": 0.1}, "frequency": {"y": 1},
                   "amplitude": {"y": 0.1}}}})");
  w.force(R"({"spring": {"a": {"name": "r1"}, "b": {"name": "k"}, "stiffness": 10}})");
  w.force(R"({"spring": {"a": {"name": "r2"}, "anchor_b": {"x": 1}, "rest_length": 0, "damping": 1}})");
  w.force(R"({"applied": {"body": {"name": "r1"}, "force": {"x": 1}, "torque": 1, "ticks": 100000}})");
  w.run();
  return w;
}

Busy busy_3d() {
  Busy w(3);
  w.body(R"({"name": "a", "position": {"x": 1, "y": 2, "z": 3}, "mass": 1})");
  w.body(R"({"name": "b", "position": {"x": -1, "z": 1}, "velocity": {"z": 1}, "mass": 2})");
  w.body(R"({"position": {"z": -1}, "mass": 2})");
  w.constraint(R"({"pin": {"b": {"name": "a"}, "anchor_a": {"x": 1, "y": 2, "z": 3}}})");
  w.constraint(R"({"distance": {"a": {"name": "a"}, "b": {"name": "b"}}})");
  w.constraint(R"({"point_on_plane": {"b": {"name": "b"}, "normal": {"z": 1}, "anchor_a": {"z": 1}}})");
  w.constraint(R"({"point_on_line": {"b": {"name": "b"}, "axis": {"z": 1}, "anchor_a": {"x": -1, "z": 1}}})");
  w.constraint(R"({"trajectory": {"body": {"name": "a"}, "path": {"origin": {"x": 1, "y": 2, "z": 3},
                   "amplitude": {"z": 0.1}, "frequency": {"z": 2}}}})");
  w.force(R"({"spring": {"a": {"name": "a"}, "b": {"name": "b"}}})");
  w.run();
  return w;
}

std::size_t body_columns(int dimension) { return 2 * 5 + 2 * 8 * dimension + 2 * 8; }

class Footprints : public ::testing::TestWithParam<int> {
 protected:
  Busy w = GetParam() == 3 ? busy_3d() : busy_2d();
  int dimension() const { return GetParam(); }
};

TEST_P(Footprints, BoundEveryObjectInEveryAnswer) {
  const Footprint world = Footprint::of(w.world, w.names);
  const v1::Scene scene = save_scene(w.world, w.names, /*include_applied_forces=*/true);
  for (std::size_t i = 0; i < w.bodies.size(); ++i) {
    const auto& [id, proto] = w.bodies[i];
    SCOPED_TRACE("body " + proto.name());
    v1::Body listed;
    body_to_proto(w.world.body(id).value(), w.names.body_name(id), &listed);
    const std::size_t frame = field(listed.ByteSizeLong()) + body_columns(dimension());
    const std::size_t saved = field(scene.bodies(static_cast<int>(i)).ByteSizeLong());
    const std::uint32_t before = Footprint::body(body_from_proto(proto).value(), proto.name().size(), dimension());
    for (const std::uint32_t bound : {before, world.of(id)}) {
      EXPECT_GE(bound, frame);
      EXPECT_GE(bound, saved);
    }
  }
  for (std::size_t i = 0; i < w.constraints.size(); ++i) {
    const auto& [id, proto] = w.constraints[i];
    SCOPED_TRACE("constraint " + to_json(proto));
    const ConstraintInfo info = w.world.constraint(id).value();
    EXPECT_EQ(Footprint::rows(info.def, dimension()), info.rows);
    v1::Constraint listed;
    constraint_to_proto(info, w.world, w.names, &listed);
    const std::size_t frame = field(listed.ByteSizeLong()) + 2 * 5 + 1 + 2 * 8 * info.rows;
    const std::size_t saved = field(scene.constraints(static_cast<int>(i)).ByteSizeLong());
    const std::uint32_t before =
        Footprint::constraint(constraint_from_proto(proto, resolver(w.world, w.names)).value(),
                              softness_from_proto(proto), proto.name().size(), dimension());
    for (const std::uint32_t bound : {before, world.of(id)}) {
      EXPECT_GE(bound, frame);
      EXPECT_GE(bound, saved);
    }
  }
  for (std::size_t i = 0; i < w.forces.size(); ++i) {
    const auto& [id, proto] = w.forces[i];
    SCOPED_TRACE("force " + to_json(proto));
    v1::Force listed;
    force_to_proto(w.world.force(id).value(), &listed);
    const std::size_t saved = field(scene.forces(static_cast<int>(i)).ByteSizeLong());
    const std::uint32_t before = Footprint::force(force_from_proto(proto, resolver(w.world, w.names)).value());
    for (const std::uint32_t bound : {before, world.of(id)}) {
      EXPECT_GE(bound, field(listed.ByteSizeLong()));
      EXPECT_GE(bound, saved);
    }
  }
}

TEST_P(Footprints, FollowTheWorldsObjects) {
  Footprint f = Footprint::of(w.world, w.names);
  std::uint64_t sum = 0;
  for (const auto& [id, proto] : w.bodies) sum += f.of(id);
  for (const auto& [id, proto] : w.constraints) sum += f.of(id);
  for (const auto& [id, proto] : w.forces) sum += f.of(id);
  EXPECT_EQ(f.bytes(), sum);
  // Removing a body gives back what it took and what went with it.
  const BodyId body = w.bodies.front().first;
  const Removed removed = w.world.remove_body(body).value();
  f.erase(body, removed);
  w.names.remove(body, removed);
  EXPECT_EQ(f.bytes(), Footprint::of(w.world, w.names).bytes());
  EXPECT_EQ(f.of(body), 0u);
}

TEST_P(Footprints, AWorldLoadedFromItsSceneTakesNoMore) {
  // Unnamed bodies get generated names in the scene, which the loaded world keeps.
  std::uint64_t before_added = 0;
  for (const auto& [id, proto] : w.bodies)
    before_added += Footprint::body(body_from_proto(proto).value(), proto.name().size(), dimension());
  for (const auto& [id, proto] : w.constraints)
    before_added += Footprint::constraint(constraint_from_proto(proto, resolver(w.world, w.names)).value(),
                                          softness_from_proto(proto), proto.name().size(), dimension());
  for (const auto& [id, proto] : w.forces)
    before_added += Footprint::force(force_from_proto(proto, resolver(w.world, w.names)).value());
  const std::uint64_t now = Footprint::of(w.world, w.names).bytes();
  EXPECT_LE(now, before_added);
  const v1::Scene scene = save_scene(w.world, w.names);
  Result<LoadedScene> loaded = load_scene(scene, {}, {.bytes = now});
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_LE(loaded.value().footprint.bytes(), now);
}

TEST(SceneNames, GeneratedNamesAreShortAndUnique) {
  World w = World::create().value();
  Names n;
  std::vector<BodyId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(w.add_body({.position = Vec3(i, 0, 0), .mass = 1}).value());
  // Named bodies hold the names the others would get.
  n.add_body("body-" + std::to_string(ids[0].index), ids[1]).value();
  n.add_body("body-" + std::to_string(ids[0].index) + "-2", ids[2]).value();
  const v1::Scene scene = save_scene(w, n);
  std::set<std::string> names;
  for (const v1::BodyDef& b : scene.bodies()) {
    EXPECT_LE(b.name().size(), kGeneratedNameLength);
    names.insert(b.name());
  }
  EXPECT_EQ(names.size(), 5u);
  EXPECT_TRUE(names.contains("body-" + std::to_string(ids[0].index) + "-3"));
  // The longest possible: index and k of 10 digits each.
  EXPECT_EQ(std::string("body-4294967295-4294967295").size(), kGeneratedNameLength);
}

INSTANTIATE_TEST_SUITE_P(Dimensions, Footprints, ::testing::Values(2, 3));

// Every field of `m` set to the value that takes the most bytes: numbers
// non-zero and varints at their longest, strings `string_length` long,
// messages present; repeated fields (the packed columns, and the lists of
// objects that the objects' bounds account for) left empty.
void worst_fill(google::protobuf::Message* m, std::size_t string_length) {
  const google::protobuf::Reflection* r = m->GetReflection();
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated()) continue;
    if (f->real_containing_oneof() && f->index_in_oneof() != 0) continue;  // one member of a oneof
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_DOUBLE: r->SetDouble(m, f, 1.0); break;
      case FieldDescriptor::CPPTYPE_FLOAT: r->SetFloat(m, f, 1.0f); break;
      case FieldDescriptor::CPPTYPE_INT32: r->SetInt32(m, f, -1); break;
      case FieldDescriptor::CPPTYPE_INT64: r->SetInt64(m, f, -1); break;
      case FieldDescriptor::CPPTYPE_UINT32: r->SetUInt32(m, f, 0xffffffffu); break;
      case FieldDescriptor::CPPTYPE_UINT64: r->SetUInt64(m, f, ~0ull); break;
      case FieldDescriptor::CPPTYPE_BOOL: r->SetBool(m, f, true); break;
      case FieldDescriptor::CPPTYPE_ENUM: r->SetEnumValue(m, f, -1); break;
      case FieldDescriptor::CPPTYPE_STRING: r->SetString(m, f, std::string(string_length, 'x')); break;
      case FieldDescriptor::CPPTYPE_MESSAGE: worst_fill(r->MutableMessage(m, f), string_length); break;
    }
  }
}

// Packed columns and lists of objects: a tag and a length of up to 5 bytes each.
std::size_t repeated_headers(const google::protobuf::Descriptor* d) {
  std::size_t n = 0;
  for (int i = 0; i < d->field_count(); ++i) n += d->field(i)->is_repeated() ? 6 : 0;
  return n;
}

TEST(AnswerOverhead, HoldsWhatAnswersCarryBesidesTheirObjects) {
  // A frame: world name (64 characters at most; any other text a frame may
  // carry is taken as 256), counters, diagnostics, and the settings in its changes.
  v1::Snapshot frame;
  worst_fill(&frame, 256);
  const std::size_t frame_bytes = frame.ByteSizeLong() + repeated_headers(v1::Snapshot::descriptor()) +
                                  repeated_headers(v1::TopologyChanges::descriptor()) + 5;
  EXPECT_LE(frame_bytes, kAnswerOverhead);
  // A scene as SaveScene writes it: settings (no title or description).
  v1::Scene scene;
  worst_fill(scene.mutable_settings(), 0);
  EXPECT_LE(scene.ByteSizeLong() + repeated_headers(v1::Scene::descriptor()), kAnswerOverhead);
  std::printf("answer overhead: frame %zu bytes, scene %zu, allowed %llu\n", frame_bytes, scene.ByteSizeLong(),
              static_cast<unsigned long long>(kAnswerOverhead));
}

TEST(FootprintLimit, IsTheMessageLessTheOverhead) {
  EXPECT_EQ(footprint_limit(16u << 20), (16u << 20) - kAnswerOverhead);
  EXPECT_EQ(footprint_limit(100), 0u);
}

}  // namespace
}  // namespace linkage::server
