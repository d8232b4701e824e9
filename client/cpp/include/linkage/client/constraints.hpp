#pragma once
// Constraint and force defs, mirroring the core's (linkage/constraints.hpp,
// force.hpp) field for field. Where the core writes NaN for "measure it when
// the constraint is added" (kCurrent), these leave a std::optional unset; the
// server fills it in and GetConstraint answers with the resolved value.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "linkage/client/defs.hpp"

namespace linkage::client {

// A rod: C = |p_b − p_a| − L.
struct DistanceDef {
  BodyRef a{}, b{};  // a empty: the world, anchor_a a world point
  Vec3 anchor_a{}, anchor_b{};
  std::optional<double> length{};  // m, > 0; unset: current
};
// A rope: |p_b − p_a| ≤ L; pulls only when taut.
struct RopeDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};
  std::optional<double> max_length{};  // m, > 0; unset: current
};
// A revolute pin: C = p_b − p_a.
struct PinDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};
};
// A slider along `axis` (a's frame).
struct PointOnLineDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};
  Vec3 axis{1, 0, 0};
};
// Bead on a wire: C = ½(|p_b − p_a|² − R²).
struct PointOnCircleDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};  // anchor_a: the centre
  std::optional<double> radius{};  // m, > 0; unset: current
};
// 3D: b's anchor on the plane through a's anchor with `normal`.
struct PointOnPlaneDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};
  Vec3 normal{0, 0, 1};
};
// 2D rigid bodies glued: C = (p_b − p_a, θ_b − θ_a − φ).
struct WeldDef {
  BodyRef a{}, b{};
  Vec3 anchor_a{}, anchor_b{};
  std::optional<double> angle{};  // φ, rad; unset: current
};
// C = θ_b − θ_a − φ.
struct RelativeAngleDef {
  BodyRef a{}, b{};
  std::optional<double> angle{};  // φ, rad; unset: current
};
// C = r_a θ_a + r_b θ_b − c.
struct GearDef {
  BodyRef a{}, b{};
  double radius_a = 1.0;          // m, > 0
  double radius_b = 1.0;          // m, > 0
  std::optional<double> offset{};   // c, m; unset: current
};
// C = (p_rack − x_pinion)·u − r θ_pinion − c.
struct RackAndPinionDef {
  BodyRef rack{}, pinion{};
  Vec3 anchor{};          // on the rack, rack's frame
  Vec3 axis{1, 0, 0};   // the rack's travel, rack's frame
  double radius = 1.0;  // m, > 0
  std::optional<double> offset{};  // c, m; unset: current
};
enum class MotorKind { angular, linear };
// A velocity row: ω_b − ω_a = speed, or (v_b − v_a)·u = speed.
struct MotorDef {
  BodyRef a{}, b{};
  MotorKind kind = MotorKind::angular;
  double speed = 0.0;    // rad/s or m/s
  Vec3 axis{1, 0, 0};    // linear motors, a's frame
  double max_force = std::numeric_limits<double>::infinity();  // N·m or N, > 0; ∞: unlimited
};
// g(t) = origin + velocity·t + amplitude ⊙ sin(2π·frequency ⊙ t + phase).
struct Path {
  Vec3 origin{}, velocity{}, amplitude{}, frequency{}, phase{};
};
// The body's anchor follows `path`.
struct TrajectoryDef {
  BodyRef body{};
  Vec3 anchor{};
  Path path{};
};

using ConstraintDef = std::variant<DistanceDef, RopeDef, PinDef, PointOnLineDef, PointOnCircleDef, PointOnPlaneDef,
                                   WeldDef, RelativeAngleDef, GearDef, RackAndPinionDef, MotorDef, TrajectoryDef>;

// A damped spring in the constraint's own C instead of a rigid row.
struct Softness {
  double frequency = 0.0;      // Hz; 0: rigid
  double damping_ratio = 1.0;  // ζ
};
// What the core passes beside a def (softness) and what only the server
// knows (a name to refer to the constraint by).
struct ConstraintOptions {
  std::string name{};
  Softness softness{};
};

// A spring-damper between anchors (the penalty method).
struct SpringDef {
  BodyRef a{}, b{};  // b empty: anchor_b is a world point
  Vec3 anchor_a{}, anchor_b{};
  double stiffness = 100.0;  // k, N/m; 0: a pure damper
  double damping = 0.0;      // c, N·s/m
  std::optional<double> rest_length{};  // m; unset: the distance when added
};
// A force (and torque) on one body for some ticks.
struct ForceDef {
  BodyRef body{};
  Vec3 force{};           // N, world frame
  Vec3 point{};         // m, body frame (0: centre of mass)
  double torque = 0.0;  // N·m, rigid bodies
  // Ticks it acts for, as the core's `steps`; 0: until removed.
  std::uint32_t ticks = 1;
};
// A change of momentum before the next tick.
struct ImpulseDef {
  BodyRef body{};
  Vec3 impulse{};                   // N·s, world frame
  Vec3 point{};                     // m, body frame
  double angular_impulse = 0.0;   // N·m·s
};

}  // namespace linkage::client
