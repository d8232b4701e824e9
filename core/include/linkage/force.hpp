#pragma once
// Forces that are not constraints: springs and dampers (the penalty method)
// and forces a user applies. Gravity and damping are settings of the world
// and of each body.

#include "linkage/ids.hpp"
#include "linkage/math.hpp"

namespace linkage {

// A spring-damper between an anchor on body a and an anchor on body b, or a
// fixed world point when b is null:
//   F_b = −(k (|d| − L) + c (ḋ·n)) n,   d = p_b − p_a, n = d/|d|,   F_a = −F_b.
struct SpringDef {
  BodyId a{};
  BodyId b{};                        // null: anchor_b is a world point
  Vec3 anchor_a = Vec3::Zero();    // m, in a's frame
  Vec3 anchor_b = Vec3::Zero();    // m, in b's frame, or world when b is null
  double stiffness = 100.0;        // k, N/m; 0 makes a pure damper
  double damping = 0.0;            // c, N·s/m, along the spring
  double rest_length = -1.0;       // L, m; negative: the distance when added
};

// A force (and in 2D a torque) a user applies to one body.
struct ForceDef {
  BodyId body{};
  Vec3 force = Vec3::Zero();   // N, world frame
  Vec3 point = Vec3::Zero();   // m, where it acts, in the body's frame (0: centre of mass)
  double torque = 0.0;         // N·m about z, rigid bodies only
  // Steps it acts for, then it is removed by itself; 0: until removed.
  int steps = 1;
};

// A change of momentum at once: Δv = W J_pᵀ P, applied before the next step.
struct ImpulseDef {
  BodyId body{};
  Vec3 impulse = Vec3::Zero();  // N·s, world frame
  Vec3 point = Vec3::Zero();    // m, body frame (0: centre of mass)
  double angular_impulse = 0.0; // N·m·s about z, rigid bodies only
};

}  // namespace linkage
