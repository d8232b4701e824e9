// Engine-neutral measures: constraint error and energy from positions and velocities.
#include <algorithm>
#include <cmath>

#include "linkage/scenes/measure.hpp"

namespace linkage::scenes {

void SceneState::resize(std::size_t n) {
  position.resize(n);
  angle.resize(n);
  velocity.resize(n);
  angular_velocity.resize(n);
}

SceneState initial_state(const SceneSpec& spec) {
  SceneState s;
  s.resize(spec.bodies.size());
  for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
    s.position[i] = spec.bodies[i].position;
    s.angle[i] = 0.0;
    s.velocity[i] = Vec2::Zero();
    s.angular_velocity[i] = 0.0;
  }
  return s;
}

namespace {

// Where the anchor given at the start as `world_point` on body `index` is now.
Vec2 anchor_now(const SceneSpec& spec, const SceneState& state, int index, Vec2 world_point) {
  if (index < 0) return world_point;
  const auto i = static_cast<std::size_t>(index);
  const Vec2 local = world_point - spec.bodies[i].position;  // every body starts at angle 0
  const double c = std::cos(state.angle[i]), s = std::sin(state.angle[i]);
  return state.position[i] + Vec2(c * local.x() - s * local.y(), s * local.x() + c * local.y());
}

}  // namespace

double worst_relative_error(const SceneSpec& spec, const SceneState& state) {
  double worst = 0.0;
  for (const JointSpec& j : spec.joints) {
    const Vec2 pa = anchor_now(spec, state, j.a, j.anchor_a);
    const Vec2 pb = anchor_now(spec, state, j.b, j.anchor_b);
    const double e = j.kind == JointKind::rod ? std::abs((pb - pa).norm() - j.length) / j.length
                                              : (pb - pa).norm() / j.scale;
    if (!(e <= worst)) worst = e;  // a NaN sticks
  }
  return worst;
}

double total_energy(const SceneSpec& spec, const SceneState& state) {
  double e = 0.0;
  for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
    const BodySpec& b = spec.bodies[i];
    if (b.fixed) continue;
    e += 0.5 * b.mass * state.velocity[i].squaredNorm() - b.mass * spec.gravity.dot(state.position[i]);
    if (b.type == BodyType::rigid) e += 0.5 * b.inertia * state.angular_velocity[i] * state.angular_velocity[i];
  }
  return e;
}

}  // namespace linkage::scenes
