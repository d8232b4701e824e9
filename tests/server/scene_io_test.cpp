// Scenes: JSON in and out, load_scene's errors, save → load round trips.
#include "convert/scene_io.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/convert.hpp"
#include "proto_text.hpp"

namespace linkage::server {
namespace {

constexpr const char* kSmall = R"({
  "title": "t", "description": "d",
  "settings": {"tick_rate": 120, "substeps": 2},
  "bodies": [
    {"name": "pivot", "motion": "MOTION_FIXED"},
    {"name": "bob", "position": {"x": 1}, "mass": 1},
    {"name": "wheel", "kind": "BODY_KIND_RIGID", "position": {"x": 3}, "shape": {"disk": {"radius": 0.5}}}
  ],
  "constraints": [
    {"distance": {"a": {"name": "pivot"}, "b": {"name": "bob"}}, "name": "rod"},
    {"pin": {"anchor_a": {"x": 3}, "b": {"name": "wheel"}}},
    {"motor": {"b": {"name": "wheel"}, "speed": 1}, "name": "motor"}
  ],
  "forces": [{"spring": {"a": {"name": "bob"}, "b": {"name": "wheel"}, "stiffness": 10}}]
})";

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof(double) * 3) == 0; }

// Bodies in the same order with bit-identical state and mass properties.
void expect_same_bodies(const World& a, const World& b) {
  const auto ia = a.bodies(), ib = b.bodies();
  ASSERT_EQ(ia.size(), ib.size());
  for (std::size_t i = 0; i < ia.size(); ++i) {
    const BodyInfo x = a.body(ia[i]).value(), y = b.body(ib[i]).value();
    EXPECT_TRUE(same_bits(x.position, y.position)) << i;
    EXPECT_TRUE(same_bits(x.velocity, y.velocity)) << i;
    EXPECT_TRUE(same_bits(x.angle, y.angle)) << i;
    EXPECT_TRUE(same_bits(x.angular_velocity, y.angular_velocity)) << i;
    EXPECT_TRUE(same_bits(x.mass, y.mass) && same_bits(x.inertia, y.inertia)) << i;
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.motion, y.motion);
    EXPECT_EQ(x.shape.index(), y.shape.index());
  }
}

// Constraints and springs in the same order, the same defs (as protos, bodies by index).
void expect_same_topology(const World& a, const World& b) {
  auto by_index = [](const World& w) {
    return [&w](BodyId id, v1::BodyRef* out) {
      const auto all = w.bodies();
      if (!id.is_null()) out->set_name(std::to_string(std::find(all.begin(), all.end(), id) - all.begin()));
    };
  };
  const auto ca = a.constraints(), cb = b.constraints();
  ASSERT_EQ(ca.size(), cb.size());
  for (std::size_t i = 0; i < ca.size(); ++i) {
    v1::ConstraintDef x, y;
    const ConstraintInfo ix = a.constraint(ca[i]).value(), iy = b.constraint(cb[i]).value();
    constraint_def_to_proto(ix.def, ix.softness, "", by_index(a), &x);
    constraint_def_to_proto(iy.def, iy.softness, "", by_index(b), &y);
    EXPECT_PROTO_EQ(x, y);
  }
  std::vector<v1::ForceDef> sa, sb;
  for (ForceId id : a.forces()) force_def_to_proto(a.force(id).value().def, by_index(a), &sa.emplace_back());
  for (ForceId id : b.forces()) force_def_to_proto(b.force(id).value().def, by_index(b), &sb.emplace_back());
  std::erase_if(sa, [](const v1::ForceDef& f) { return !f.has_spring(); });
  ASSERT_EQ(sa.size(), sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) EXPECT_PROTO_EQ(sa[i], sb[i]);
}

TEST(SceneJson, ParsesAndPrints) {
  Result<v1::Scene> scene = parse_scene_json(kSmall);
  ASSERT_TRUE(scene) << scene.error().message;
  EXPECT_EQ(scene.value().bodies_size(), 3);
  const std::string json = scene_to_json(scene.value());
  EXPECT_NE(json.find("\"tick_rate\": 120"), std::string::npos) << json;  // proto names, pretty
  EXPECT_NE(json.find('\n'), std::string::npos);
  EXPECT_PROTO_EQ(parse_scene_json(json).value(), scene.value());
  // lowerCamelCase is accepted too: it is the proto3 JSON mapping.
  EXPECT_EQ(parse_scene_json(R"({"settings": {"tickRate": 30}})").value().settings().tick_rate(), 30.0);
}

TEST(SceneJson, ParseErrors) {
  for (const char* bad : {"", "{", "[]", R"({"bodies": [{"mass": "heavy"}]})", R"({"bodys": []})",
                          R"({"settings": {"integrator": "INTEGRATOR_RK5"}})"}) {
    Result<v1::Scene> r = parse_scene_json(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
    EXPECT_TRUE(r.error().message.starts_with("scene: not a valid scene in JSON: ")) << r.error().message;
    EXPECT_GT(r.error().message.size(), std::strlen("scene: not a valid scene in JSON: ")) << bad;
  }
}

TEST(LoadScene, BuildsTheWorld) {
  Result<LoadedScene> loaded = load_scene(parse_scene_json(kSmall).value());
  ASSERT_TRUE(loaded) << loaded.error().message;
  const World& w = loaded.value().world;
  const Names& n = loaded.value().names;
  EXPECT_EQ(w.settings().dt, 1.0 / 120.0);
  EXPECT_EQ(w.settings().substeps, 2);
  EXPECT_EQ(w.bodies().size(), 3u);
  EXPECT_EQ(w.constraints().size(), 3u);
  EXPECT_EQ(w.forces().size(), 1u);
  EXPECT_EQ(n.body_name(w.bodies()[1]), "bob");
  EXPECT_EQ(n.find_constraint("rod"), w.constraints()[0]);
  EXPECT_EQ(n.constraint_name(w.constraints()[1]), "");
  EXPECT_EQ(std::get<DistanceDef>(w.constraint(w.constraints()[0]).value().def).length, 1.0);  // current
}

TEST(LoadScene, SettingsOverTheBase) {
  WorldSettings base;
  base.integrator = Integrator::midpoint;
  base.substeps = 9;
  const World w = load_scene(from_json<v1::Scene>(R"({"settings": {"substeps": 2}})"), base).value().world;
  EXPECT_EQ(w.settings().integrator, Integrator::midpoint);
  EXPECT_EQ(w.settings().substeps, 2);
}

TEST(LoadScene, ErrorsNameTheElement) {
  struct Case {
    const char* json;
    ErrorCode code;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"settings": {"tick_rate": -1}})", ErrorCode::invalid_argument, "settings.tick_rate: "},
           Case{R"({"settings": {"dimension": 4}})", ErrorCode::invalid_argument, "settings.dimension: "},
           Case{R"({"bodies": [{"mass": 1}, {"mass": 1}, {"mass": 1}, {"name": "x"}]})", ErrorCode::invalid_argument,
                "bodies[3].mass: "},
           Case{R"({"bodies": [{"name": "x", "mass": 1}, {"name": "x", "mass": 1}]})",
                ErrorCode::failed_precondition, "bodies[1].name: 'x' is already"},
           Case{R"({"bodies": [{"name": "a b", "mass": 1}]})", ErrorCode::invalid_argument, "bodies[0].name: "},
           Case{R"({"bodies": [{"kind": "BODY_KIND_RIGID", "shape": {"disk": {"radius": 0}}}]})",
                ErrorCode::invalid_argument, "bodies[0].shape.disk.radius: "},
           Case{R"({"bodies": [{"name": "a", "mass": 1}], "constraints": [{"pin": {"b": {"name": "a"}}},
                {"pin": {"b": {"name": "a"}}}, {"distance": {"a": {"name": "a"}, "b": {"name": "x"}}}]})",
                ErrorCode::not_found, "constraints[2].distance.b: no body named 'x'"},
           Case{R"({"bodies": [{"name": "a", "mass": 1}], "constraints": [{"distance": {"b": {"name": "a"}}}]})",
                ErrorCode::invalid_argument, "constraints[0].distance.length: the anchors coincide"},
           Case{R"({"bodies": [{"name": "a", "mass": 1}], "constraints": [{"pin": {"b": {"name": "a"}},
                "name": "p"}, {"pin": {"b": {"name": "a"}}, "name": "p"}]})",
                ErrorCode::failed_precondition, "constraints[1].name: 'p' is already"},
           Case{R"({"constraints": [{}]})", ErrorCode::invalid_argument, "constraints[0]: no type set"},
           Case{R"({"bodies": [{"name": "a", "mass": 1}], "forces": [{"spring": {"a": {"name": "a"},
                "stiffness": -1}}]})", ErrorCode::invalid_argument, "forces[0].spring.stiffness: "},
           Case{R"({"forces": [{"applied": {"body": {"name": "q"}}}]})", ErrorCode::not_found,
                "forces[0].applied.body: no body named 'q'"},
       }) {
    Result<LoadedScene> r = load_scene(from_json<v1::Scene>(c.json));
    ASSERT_FALSE(r) << c.json;
    EXPECT_EQ(r.error().code, c.code) << r.error().message;
    EXPECT_TRUE(r.error().message.starts_with(c.message)) << r.error().message << "\nexpected: " << c.message;
  }
}

// A world with a bit of everything, run for a while so its state is not the
// one it was built with.
LoadedScene busy_world() {
  LoadedScene s = load_scene(parse_scene_json(kSmall).value()).value();
  World& w = s.world;
  // Unnamed bodies, one whose generated name is taken by a named body.
  const BodyId box = w.add_body({.kind = BodyKind::rigid, .position = Vec3(-2, 0, 0), .angle = -0.0,
                                 .shape = Box{0.4, 0.2}}).value();
  const BodyId tri = w.add_body({.kind = BodyKind::rigid, .position = Vec3(-3, 1, 0),
                                 .shape = Polygon{{Vec2(0, 0), Vec2(1, 0), Vec2(0.2, 0.7)}}}).value();
  const BodyId dot = w.add_body({.position = Vec3(-2, -1, 0), .velocity = Vec3(0.3, 0, 0), .mass = 0.5}).value();
  s.names.add_body("body-" + std::to_string(box.index), dot).value();
  w.add_constraint(PinDef{.b = box, .anchor_a = Vec3(-2.4, 0, 0), .anchor_b = Vec3(-0.4, 0, 0)}).value();
  w.add_constraint(DistanceDef{.a = box, .b = tri, .anchor_a = Vec3(0.4, 0, 0)}, {.frequency = 4}).value();
  w.add_constraint(RopeDef{.a = box, .b = dot, .max_length = 1.5}).value();
  w.add_constraint(GearDef{.a = box, .b = s.names.find_body("wheel").value(), .radius_b = 2.0}).value();
  w.add_spring({.a = dot, .b = {}, .anchor_b = Vec3(-2, 0, 0), .stiffness = 30, .damping = 0.5}).value();
  w.apply_force({.body = dot, .force = Vec3(1, 0, 0), .steps = 0}).value();
  for (int i = 0; i < 50; ++i) w.step();
  return s;
}

TEST(SaveScene, RoundTripIsBitIdentical) {
  const LoadedScene original = busy_world();
  const v1::Scene saved = save_scene(original.world, original.names);
  // Through the file format, as a user would keep it.
  Result<LoadedScene> loaded = load_scene(parse_scene_json(scene_to_json(saved)).value());
  ASSERT_TRUE(loaded) << loaded.error().message;
  World& w = loaded.value().world;
  expect_same_bodies(original.world, w);
  expect_same_topology(original.world, w);
  EXPECT_EQ(w.forces().size(), 2u);  // the spring of the scene and the one added; not the applied force
  // Names: kept where given, generated and unique where not.
  std::set<std::string> names;
  for (BodyId id : w.bodies()) names.insert(std::string(loaded.value().names.body_name(id)));
  EXPECT_EQ(names.size(), w.bodies().size());
  EXPECT_FALSE(names.contains(""));
  EXPECT_TRUE(names.contains("bob"));
  EXPECT_EQ(loaded.value().names.find_constraint("motor"), w.constraints()[2]);
  // And it runs on the same: same settings, same state, no applied force on either.
  World a = original.world;
  a.remove_force(a.forces().back()).value();
  for (int i = 0; i < 30; ++i) a.step(), w.step();
  expect_same_bodies(a, w);
  // Saving the loaded world gives the same scene back.
  EXPECT_PROTO_EQ(save_scene(loaded.value().world, loaded.value().names).settings(), saved.settings());
}

TEST(SaveScene, AppliedForcesOnRequest) {
  const LoadedScene original = busy_world();
  const v1::Scene saved = save_scene(original.world, original.names, true);
  ASSERT_EQ(saved.forces_size(), 3);
  EXPECT_TRUE(saved.forces(2).has_applied());
  EXPECT_EQ(saved.forces(2).applied().ticks(), 0u);  // until removed
  EXPECT_TRUE(load_scene(saved));
}

TEST(SaveScene, TrajectoriesContinueFromTheirTime) {
  World w = World::create().value();
  Names n;
  const BodyId p = w.add_body({.position = Vec3(0, 0, 0), .mass = 1}).value();
  const Path path{.velocity = Vec3(0.2, 0, 0), .amplitude = Vec3(0, 0.5, 0), .frequency = Vec3(0, 0.7, 0),
                  .phase = Vec3(0, 0.0, 0)};
  w.add_constraint(TrajectoryDef{.body = p, .path = path}).value();
  for (int i = 0; i < 100; ++i) w.step();
  LoadedScene l = load_scene(save_scene(w, n)).value();
  for (int i = 0; i < 60; ++i) w.step(), l.world.step();
  const Vec3 x = w.body(p).value().position, y = l.world.body(l.world.bodies()[0]).value().position;
  EXPECT_NEAR((x - y).norm(), 0.0, 1e-9);
}

// Every shipped scene survives save → load unchanged.
TEST(SaveScene, EverySceneFileRoundTrips) {
  for (const auto& entry : std::filesystem::directory_iterator(LINKAGE_SCENES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    LoadedScene a = load_scene(parse_scene_json(text.str()).value()).value();
    for (int i = 0; i < 10; ++i) a.world.step();
    Result<LoadedScene> b = load_scene(parse_scene_json(scene_to_json(save_scene(a.world, a.names))).value());
    ASSERT_TRUE(b) << b.error().message;
    expect_same_bodies(a.world, b.value().world);
    expect_same_topology(a.world, b.value().world);
  }
}

}  // namespace
}  // namespace linkage::server
