// A scene spec built in Box2D 2.4.
#include "box2d_scene.hpp"

#include <box2d/box2d.h>

namespace linkage::bench {
namespace {

b2Vec2 b2(Vec2 v) { return b2Vec2(static_cast<float>(v.x()), static_cast<float>(v.y())); }

}  // namespace

Box2DScene::Box2DScene() = default;
Box2DScene::Box2DScene(Box2DScene&&) noexcept = default;
Box2DScene& Box2DScene::operator=(Box2DScene&&) noexcept = default;
Box2DScene::~Box2DScene() = default;

void Box2DScene::step(float dt, int velocity_iterations, int position_iterations) {
  world->Step(dt, velocity_iterations, position_iterations);
}

Box2DScene build_box2d(const scenes::SceneSpec& spec) {
  Box2DScene out;
  out.world = std::make_unique<b2World>(b2(spec.gravity));
  out.world->SetAllowSleeping(false);
  b2BodyDef ground_def;  // static, at the origin
  out.ground = out.world->CreateBody(&ground_def);
  out.bodies.reserve(spec.bodies.size());
  for (const scenes::BodySpec& b : spec.bodies) {
    b2BodyDef def;
    def.type = b.fixed ? b2_staticBody : b2_dynamicBody;
    def.position = b2(b.position);
    def.allowSleep = false;
    b2Body* body = out.world->CreateBody(&def);
    if (!b.fixed) {
      b2MassData md;
      md.mass = static_cast<float>(b.mass);
      md.center = b2Vec2(0.0f, 0.0f);
      md.I = b.type == scenes::BodyType::rigid ? static_cast<float>(b.inertia) : 0.0f;
      body->SetMassData(&md);
    }
    out.bodies.push_back(body);
  }
  auto body = [&](int i) { return i < 0 ? out.ground : out.bodies[static_cast<std::size_t>(i)]; };
  for (const scenes::JointSpec& j : spec.joints) {
    if (scenes::is_inert(spec, j)) continue;
    if (j.kind == scenes::JointKind::rod) {
      b2DistanceJointDef def;
      def.Initialize(body(j.a), body(j.b), b2(j.anchor_a), b2(j.anchor_b));
      def.length = static_cast<float>(j.length);
      def.minLength = def.length;
      def.maxLength = def.length;
      def.stiffness = 0.0f;
      def.damping = 0.0f;
      out.world->CreateJoint(&def);
    } else {
      b2RevoluteJointDef def;
      def.Initialize(body(j.a), body(j.b), b2(j.anchor_a));
      out.world->CreateJoint(&def);
    }
  }
  return out;
}

void read_state(const Box2DScene& scene, scenes::SceneState& state) {
  state.resize(scene.bodies.size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const b2Body* b = scene.bodies[i];
    const b2Vec2 p = b->GetPosition();
    const b2Vec2 v = b->GetLinearVelocity();
    state.position[i] = Vec2(p.x, p.y);
    state.angle[i] = b->GetAngle();
    state.velocity[i] = Vec2(v.x, v.y);
    state.angular_velocity[i] = b->GetAngularVelocity();
  }
}

}  // namespace linkage::bench
