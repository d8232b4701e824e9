// Builds a scene spec in a linkage::World.
#include <string>

#include "linkage/scenes/build.hpp"

namespace linkage::scenes {
namespace {

Vec3 v3(Vec2 v) { return Vec3(v.x(), v.y(), 0.0); }

Error context(const Error& e, const std::string& what) { return Error{e.code, what + ": " + e.message}; }

}  // namespace

Result<SceneWorld> build_world(const SceneSpec& spec, WorldSettings settings) {
  settings.dimension = 2;
  settings.gravity = v3(spec.gravity);
  settings.dt = spec.dt;
  Result<World> created = World::create(settings);
  if (!created) return created.error();
  SceneWorld out{std::move(created.value()), {}};
  out.bodies.reserve(spec.bodies.size());
  for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
    const BodySpec& b = spec.bodies[i];
    BodyDef def;
    def.kind = b.type == BodyType::rigid ? BodyKind::rigid : BodyKind::particle;
    def.motion = b.fixed ? Motion::fixed : Motion::dynamic;
    def.position = v3(b.position);
    if (!b.fixed) {
      def.mass = b.mass;
      if (b.type == BodyType::rigid) def.inertia = b.inertia;
    }
    if (b.radius > 0.0 && b.type == BodyType::rigid) def.shape = Disk{b.radius};
    Result<BodyId> id = out.world.add_body(def);
    if (!id) return context(id.error(), "body " + std::to_string(i));
    out.bodies.push_back(id.value());
  }
  auto body = [&](int i) { return i < 0 ? BodyId{} : out.bodies[static_cast<std::size_t>(i)]; };
  auto local = [&](int i, Vec2 world_point) {
    return i < 0 ? v3(world_point) : v3(world_point - spec.bodies[static_cast<std::size_t>(i)].position);
  };
  for (std::size_t k = 0; k < spec.joints.size(); ++k) {
    const JointSpec& j = spec.joints[k];
    if (is_inert(spec, j)) continue;
    ConstraintDef def;
    if (j.kind == JointKind::rod)
      def = DistanceDef{.a = body(j.a), .b = body(j.b), .anchor_a = local(j.a, j.anchor_a),
                        .anchor_b = local(j.b, j.anchor_b), .length = j.length};
    else
      def = PinDef{.a = body(j.a), .b = body(j.b), .anchor_a = local(j.a, j.anchor_a),
                   .anchor_b = local(j.b, j.anchor_b)};
    Result<ConstraintId> id = out.world.add_constraint(def);
    if (!id) return context(id.error(), "joint " + std::to_string(k));
  }
  return out;
}

void read_state(const SceneWorld& scene, SceneState& state) {
  state.resize(scene.bodies.size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodyInfo b = scene.world.body(scene.bodies[i]).value();
    state.position[i] = Vec2(b.position.x(), b.position.y());
    state.angle[i] = b.angle;
    state.velocity[i] = Vec2(b.velocity.x(), b.velocity.y());
    state.angular_velocity[i] = b.angular_velocity;
  }
}

}  // namespace linkage::scenes
