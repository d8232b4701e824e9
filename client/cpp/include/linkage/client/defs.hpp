#pragma once
// The client's def structs for ids, vectors, body references, bodies and
// world settings. They mirror the core's (linkage/body.hpp, settings.hpp):
// the same field names, units and defaults, so code moves between an
// embedded World and a server with few changes. They differ where a client
// must say more than the core: bodies are named by id or by name (BodyRef),
// a body carries its name, and a value the server measures or defaults is a
// std::optional (unset) rather than a NaN. The client does not link the core:
// the arrows go client → proto only.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace linkage::client {

// A generational id: {index, generation}. Generation 0 is the null id. A
// removed object's id is never reused, so a stale id is NOT_FOUND.
struct Id {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  bool is_null() const { return generation == 0; }
  auto operator<=>(const Id&) const = default;
  std::string to_string() const;  // "3:1"
};

struct Vec3 {
  double x = 0.0, y = 0.0, z = 0.0;
  bool operator==(const Vec3&) const = default;
};

// A body named by id, by its name, or nothing: the world (a fixed frame),
// where a constraint or spring allows it.
struct BodyRef {
  std::variant<std::monostate, Id, std::string> ref{};

  BodyRef() = default;
  BodyRef(Id id) : ref(id) {}                     // NOLINT: implicit on purpose
  BodyRef(std::string name) : ref(std::move(name)) {}  // NOLINT
  BodyRef(const char* name) : ref(std::string(name)) {}  // NOLINT
  static BodyRef world() { return {}; }
  bool is_world() const { return std::holds_alternative<std::monostate>(ref); }
  std::string to_string() const;  // "3:1", "bob" or "world"
};

enum class BodyKind { particle, rigid };
enum class Motion { dynamic, fixed, kinematic };

struct NoShape {};
struct Disk {
  double radius = 0.5;  // m
};
struct Box {
  double half_width = 0.5;   // m, along the body's x axis
  double half_height = 0.5;  // m, along the body's y axis
};
// Convex; stored re-centred on its centroid.
struct Polygon {
  std::vector<Vec3> vertices{};  // m, z = 0, at least 3
};
// A stadium along the body's x axis: a rectangle 2·half_length long capped
// by half-disks.
struct Capsule {
  double radius = 0.25;      // m
  double half_length = 0.5;  // m, from the centre to each cap's centre
};
// A line segment in the body's frame, for ground and walls: no area, so a
// fixed or kinematic body, or a given mass.
struct Segment {
  Vec3 a{-1, 0, 0};  // m, z = 0
  Vec3 b{1, 0, 0};   // m, z = 0
};
// The boundary of a half-space through the body's position (an endless
// ground or wall), solid on the side away from `normal` (body frame); a
// fixed or kinematic body only.
struct Plane {
  Vec3 normal{0, 1, 0};
};
using Shape = std::variant<NoShape, Disk, Box, Polygon, Capsule, Segment, Plane>;

// How the body's surface meets another's in a contact (WorldSettings::contacts);
// unset: the server's default (friction 0.6, restitution 0).
struct Material {
  std::optional<double> friction{};     // μ ≥ 0
  std::optional<double> restitution{};  // e in [0, 1]
};
// Which bodies touch (Box2D's rule): two of the same group ≠ 0 always if it
// is > 0 and never if < 0; otherwise each one's category must be in the
// other's mask.
struct Filter {
  std::optional<std::uint32_t> category{};  // unset: 1
  std::optional<std::uint32_t> mask{};      // unset: every category
  std::int32_t group = 0;
};

struct BodyDef {
  std::string name{};  // optional; unique in the world
  BodyKind kind = BodyKind::particle;
  Motion motion = Motion::dynamic;
  Vec3 position{};                  // m, centre of mass
  double angle = 0.0;             // rad, rigid bodies only
  Vec3 velocity{};                  // m/s
  double angular_velocity = 0.0;  // rad/s, rigid bodies only
  // A particle needs a mass; a rigid body may take it from shape × density.
  double mass = 0.0;     // kg; 0: from the shape
  double inertia = 0.0;  // kg·m²; 0: from the shape
  double density = 1.0;  // kg/m²
  Shape shape = NoShape{};
  double linear_damping = 0.0;   // 1/s
  double angular_damping = 0.0;  // 1/s
  Material material{};  // contacts only
  Filter filter{};      // contacts only
};

enum class Dynamics { force_based, velocity_projection, sequential_impulses };
enum class Integrator { explicit_euler, semi_implicit_euler, midpoint, rk4, velocity_verlet };
enum class LinearSolver { conjugate_gradient, ldlt, gauss_seidel };
enum class Projection { shake, nearest };
enum class Preset { exact };

// Every field optional: unset keeps the server's default (on create) or the
// world's current value (on update). Defaults are the core's (README table).
struct WorldSettings {
  std::optional<int> dimension{};               // 2 or 3
  std::optional<Vec3> gravity{};              // m/s²; (0, −9.81, 0)
  std::optional<double> tick_rate{};            // Hz; 60
  std::optional<int> substeps{};                // solver steps per tick; 1
  std::optional<Dynamics> dynamics{};           // force_based
  std::optional<Integrator> integrator{};       // rk4
  std::optional<LinearSolver> solver{};         // ldlt
  std::optional<double> feedback_stiffness{};   // k_s, 1/s²
  std::optional<double> feedback_damping{};     // k_d, 1/s
  std::optional<double> solver_tolerance{};
  std::optional<int> solver_max_iterations{};
  std::optional<double> regularization{};
  std::optional<bool> warm_start{};
  std::optional<double> baumgarte{};            // β in [0, 1]
  std::optional<int> velocity_iterations{};
  std::optional<int> position_iterations{};
  std::optional<int> relax_iterations{};
  std::optional<bool> project_positions{};      // SHAKE
  std::optional<bool> project_velocities{};     // RATTLE
  std::optional<double> projection_tolerance{};
  std::optional<int> projection_max_iterations{};
  std::optional<Preset> preset{};               // applied first; the fields set beside it win
  std::optional<Projection> projection{};       // shake
  std::optional<int> threads{};                 // 1
  std::optional<double> max_translation{};      // m per step, sequential impulses; 2
  std::optional<double> max_rotation{};         // rad per step; π/2
  std::optional<double> max_correction{};       // m or rad per position iteration; 0.2
  // Contacts (2D, sequential_impulses): bodies with shapes collide.
  std::optional<bool> contacts{};               // false
  std::optional<double> contact_margin{};       // m, found this far before touching; 0.02
  std::optional<double> contact_slop{};         // m of overlap left alone; 0.005
  std::optional<double> restitution_threshold{};  // m/s: slower approaches do not bounce; 1
};

// Per-world caps; unset: the server's flags.
struct WorldLimits {
  std::optional<int> max_bodies{}, max_constraints{}, max_forces{};
  // The largest constraint error (m or rad) before the server pauses the
  // world as diverged; 0: no bound.
  std::optional<double> max_error{};
};

}  // namespace linkage::client
