#pragma once
// Measures of a scene's state that do not depend on the engine that produced
// it: every engine reports positions and velocities, and these functions turn
// them into constraint error and energy the same way for all.

#include <vector>

#include "linkage/math.hpp"
#include "linkage/scenes/spec.hpp"

namespace linkage::scenes {

// One entry per body of the spec, fixed bodies included.
struct SceneState {
  std::vector<Vec2> position;          // m, centre of mass
  std::vector<double> angle;           // rad (0 for particles)
  std::vector<Vec2> velocity;          // m/s
  std::vector<double> angular_velocity;  // rad/s

  void resize(std::size_t n);
};

// The state the spec starts in.
SceneState initial_state(const SceneSpec& spec);

// Worst relative constraint error over the spec's joints:
// rods |(|p_b − p_a| − L)| / L, pins |p_b − p_a| / scale, anchors moved with
// their bodies (p = x + R(θ) r).
double worst_relative_error(const SceneSpec& spec, const SceneState& state);

// Kinetic plus gravitational energy of the dynamic bodies (J):
// Σ ½ m |v|² + ½ I ω² − m g·x.
double total_energy(const SceneSpec& spec, const SceneState& state);

}  // namespace linkage::scenes
