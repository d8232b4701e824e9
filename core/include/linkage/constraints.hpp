#pragma once
// Constraints: what a world holds exactly.
//
// Each constraint is a def struct naming its bodies by id and attaching at
// local anchor points (metres, in the body's frame). Where a def has a body
// `a` and `b`, a null `a` means "the world": its anchor is then a world point.
// A value marked "NaN: current" is measured from the bodies when the
// constraint is added, so a mechanism built in place holds the shape it has.
//
// Every constraint contributes rows C(q, t) = 0 (or, for a motor, a velocity
// row J q̇ + b = 0); the world solves for one multiplier λ per row, and the
// force it applies is Jᵀλ. The comment on each def writes out its C.

#include <limits>
#include <string_view>
#include <variant>
#include <vector>

#include "linkage/ids.hpp"
#include "linkage/math.hpp"

namespace linkage {

inline constexpr double kCurrent = std::numeric_limits<double>::quiet_NaN();

// A rod: C = |p_b − p_a| − L.  1 row; λ is the rod's tension-like force (N).
struct DistanceDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  double length = kCurrent;  // m, > 0
};

// A rope: C = |p_b − p_a| − L ≤ 0. 1 row; it only pulls (λ ≤ 0), and only
// while taut. Slack, it does nothing.
struct RopeDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  double max_length = kCurrent;  // m, > 0
};

// A revolute pin: C = p_b − p_a.  2 rows in 2D, 3 in 3D; λ is the force (N).
struct PinDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
};

// A slider: b's anchor stays on a line through a's anchor along `axis`, which
// turns with a. C = (p_b − p_a)·n_i for the normals n_i of the axis:
// 1 row in 2D, 2 in 3D (in 3D, a must be a particle or the world).
struct PointOnLineDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  Vec3 axis = Vec3::UnitX();  // direction of the line, in a's frame; any length > 0
};

// The bead on a wire (a sphere in 3D), Witkin's form:
// C = ½(|p_b − p_a|² − R²).  1 row; the force on b is λ·(p_b − p_a), so λ is in N/m.
struct PointOnCircleDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();  // the centre
  Vec3 anchor_b = Vec3::Zero();
  double radius = kCurrent;  // m, > 0
};

// 3D only: b's anchor stays on the plane through a's anchor with `normal`.
// C = (p_b − p_a)·n.  1 row.
struct PointOnPlaneDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  // any length > 0
};

// 2D rigid bodies: glues b to a. C = (p_b − p_a, θ_b − θ_a − φ).  3 rows.
struct WeldDef {
  BodyId a{}, b{};
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  double angle = kCurrent;  // φ, rad
};

// 2D rigid bodies: C = θ_b − θ_a − φ.  1 row; λ is a torque (N·m).
struct RelativeAngleDef {
  BodyId a{}, b{};
  double angle = kCurrent;  // φ, rad
};

// Two gears in mesh: C = r_a θ_a + r_b θ_b − c.  1 row.
// Equal radii turn in opposite directions at the same rate.
struct GearDef {
  BodyId a{}, b{};
  double radius_a = 1.0;    // m, > 0
  double radius_b = 1.0;    // m, > 0
  double offset = kCurrent; // c, m
};

// A rack tied to a pinion: the rack's travel along its axis (measured from the
// pinion's centre) follows the pinion's turning.
// C = (p_rack − x_pinion)·u_rack − r θ_pinion − c.  1 row; one turn moves the rack 2πr.
struct RackAndPinionDef {
  BodyId rack{}, pinion{};
  Vec3 anchor = Vec3::Zero();  // on the rack, rack's frame
  Vec3 axis = Vec3::UnitX();   // the rack's direction of travel, rack's frame
  double radius = 1.0;         // r, pinion's pitch radius, m, > 0
  double offset = kCurrent;    // c, m
};

enum class MotorKind {
  angular,  // 2D rigid bodies: ω_b − ω_a = speed (rad/s)
  linear,   // centres of mass: (v_b − v_a)·u_a = speed (m/s), u_a = axis in a's frame
};

// A velocity constraint J q̇ + b = 0 with b = −speed. 1 row. With a finite
// max_force the motor gives up rather than exceed it (an inequality on λ).
struct MotorDef {
  BodyId a{}, b{};
  MotorKind kind = MotorKind::angular;
  double speed = 0.0;  // rad/s or m/s
  Vec3 axis = Vec3::UnitX();  // linear motors: direction, a's frame (world if a is null)
  double max_force = std::numeric_limits<double>::infinity();  // N·m or N, > 0
};

// A path g(t) = origin + velocity·t + amplitude ⊙ sin(2π·frequency ⊙ t + phase),
// each operation per component (so x = cos, y = sin gives a circle).
struct Path {
  Vec3 origin = Vec3::Zero();     // m
  Vec3 velocity = Vec3::Zero();   // m/s
  Vec3 amplitude = Vec3::Zero();  // m
  Vec3 frequency = Vec3::Zero();  // Hz
  Vec3 phase = Vec3::Zero();      // rad
};

// A prescribed trajectory: the body's anchor follows a path in time.
// C = p − g(t).  2 rows in 2D, 3 in 3D; uses c_tt = −g''(t).
struct TrajectoryDef {
  BodyId body{};
  Vec3 anchor = Vec3::Zero();
  Path path;
};

using ConstraintDef =
    std::variant<DistanceDef, RopeDef, PinDef, PointOnLineDef, PointOnCircleDef, PointOnPlaneDef, WeldDef,
                 RelativeAngleDef, GearDef, RackAndPinionDef, MotorDef, TrajectoryDef>;

// "distance", "pin", ... : a stable name per type, for messages and logs.
std::string_view constraint_type_name(const ConstraintDef& def);

// Softness turns a hard constraint into a damped spring in its own
// coordinate C: stiffness m ω² and damping 2 m ζ ω, with ω = 2π·frequency and
// m the constraint's effective mass 1/(J W Jᵀ), so a frequency means the same
// whatever the masses (Box2D's convention). The force-based method applies
// that spring as a force; the impulse family integrates it implicitly (the
// spring enters the solve as compliance), stable at any frequency.
struct Softness {
  double frequency = 0.0;      // Hz; 0: rigid (the default)
  double damping_ratio = 1.0;  // ζ; 1: critically damped
};

// The force a constraint applied to one body, averaged over the last step:
// Jᵀλ restricted to that body, each of the step's shares through the
// Jacobian it was solved with, as a force at its centre of mass and a
// torque about z.
struct Reaction {
  Vec3 force = Vec3::Zero();  // N
  double torque = 0.0;        // N·m
};

struct ConstraintInfo {
  ConstraintId id;
  ConstraintDef def;           // with every "current" value resolved
  Softness softness;
  int rows = 0;
  // Per row: the constraint's force (N) or torque (N·m) averaged over the
  // last step, in every dynamics family; Jᵀλ is the force it applied (a rod
  // in tension has λ < 0).
  std::vector<double> lambda;
  std::vector<double> error;   // C per row at the current state (velocity error for a motor)
  std::vector<double> error_rate;  // Ċ per row
  // ∂C/∂q for each body, row-major rows × the body's DOF (x, y[, z | θ]);
  // empty for the world. And J̇q̇ per row. All at the current state.
  std::vector<double> jacobian_a, jacobian_b;
  std::vector<double> jdot_qdot;
  Reaction on_a, on_b;         // on_a for the first body named, on_b for the second
};

}  // namespace linkage
