#pragma once
// Bodies: what a world moves.
//
//   2D world: particle (x, y)          rigid body (x, y, θ)
//   3D world: particle (x, y, z)
//
// A rigid body's position is its centre of mass; its angle θ (rad) is about z.

#include <cstdint>
#include <variant>
#include <vector>

#include "linkage/ids.hpp"
#include "linkage/math.hpp"

namespace linkage {

enum class BodyKind {
  particle,  // a point mass: 2 DOF in 2D, 3 in 3D
  rigid,     // a 2D rigid body: x, y, θ (2D worlds only)
};

enum class Motion {
  dynamic,    // moved by forces and constraints
  fixed,      // never moves (inverse mass 0); constraints may hold on to it
  kinematic,  // moves at its prescribed velocity; forces and constraints do not push it
};

// Shapes give a rigid body its mass and moment of inertia from a density, and
// the viewer something to draw. Units: metres, in the body's frame.
struct NoShape {};
struct Disk {
  double radius = 0.5;  // m
};
struct Box {
  double half_width = 0.5;   // m, along the body's x axis
  double half_height = 0.5;  // m, along the body's y axis
};
// A convex polygon, counter-clockwise or clockwise. Its vertices are stored
// re-centred on the polygon's centroid, which is where the body's position is:
// the body is placed so that its centre of mass is at BodyDef::position.
struct Polygon {
  std::vector<Vec2> vertices;  // m, at least 3, convex, non-zero area
};
// A stadium: a rectangle 2·half_length long along the body's x axis, capped
// by half-disks of `radius` at both ends.
struct Capsule {
  double radius = 0.25;      // m
  double half_length = 0.5;  // m, from the centre to each cap's centre
};
// A line segment from `a` to `b` in the body's frame, for ground and walls.
// It has no area, so no mass: a fixed or kinematic body, or a given mass
// and inertia.
struct Segment {
  Vec2 a = Vec2(-1.0, 0.0);  // m
  Vec2 b = Vec2(1.0, 0.0);   // m
};
// The boundary of a half-space through the body's position, solid on the
// side away from `normal` (in the body's frame, stored unit length): an
// endless ground or wall. No mass; a fixed or kinematic body only.
struct Plane {
  Vec3 normal = Vec3::UnitY();  // z = 0 in a 2D world
};
// In a 3D world a particle's disk is a ball of that radius (its mass
// density × 4/3 π r³); the other shapes are 2D.
using Shape = std::variant<NoShape, Disk, Box, Polygon, Capsule, Segment, Plane>;

// How a body's surface meets another's in a contact. A pair's friction is
// √(μ_a μ_b) and its restitution max(e_a, e_b), as Box2D combines them.
struct Material {
  double friction = 0.6;     // μ, Coulomb, ≥ 0
  double restitution = 0.0;  // e in [0, 1]: the share of the approach speed a bounce gives back
};

// Which bodies touch (Box2D's rule): two bodies of the same group ≠ 0 always
// touch if it is > 0 and never if it is < 0; otherwise each one's category
// must be in the other's mask.
struct Filter {
  std::uint32_t category = 1;
  std::uint32_t mask = 0xFFFFFFFF;
  std::int32_t group = 0;
};

struct BodyDef {
  BodyKind kind = BodyKind::particle;
  Motion motion = Motion::dynamic;
  Vec3 position = Vec3::Zero();  // m, centre of mass
  double angle = 0.0;            // rad, rigid bodies only
  Vec3 velocity = Vec3::Zero();  // m/s; a kinematic body keeps this velocity
  double angular_velocity = 0.0; // rad/s, rigid bodies only
  // Mass: give it directly (mass > 0), or leave 0 to take density × area of
  // the shape. A particle needs a mass; a fixed or kinematic body needs none.
  double mass = 0.0;     // kg
  double inertia = 0.0;  // kg·m² about the centre of mass; 0: from the shape
  double density = 1.0;  // kg/m², used only when mass or inertia come from the shape
  Shape shape = NoShape{};
  // Damping forces −c·m·v and −c·I·ω; a rate, so independent of the mass.
  double linear_damping = 0.0;   // 1/s
  double angular_damping = 0.0;  // 1/s
  Material material{};  // contacts: friction and restitution
  Filter filter{};      // contacts: which bodies this one touches
};

// Where a body is and how it moves: its state apart from its model (mass,
// shape, motion), as World::set_body_state sets it.
struct BodyState {
  Vec3 position = Vec3::Zero();  // m, centre of mass
  double angle = 0.0;            // rad, rigid bodies only
  Vec3 velocity = Vec3::Zero();  // m/s
  double angular_velocity = 0.0; // rad/s, rigid bodies only
};

// A body as the world holds it now.
struct BodyInfo {
  BodyId id;
  BodyKind kind = BodyKind::particle;
  Motion motion = Motion::dynamic;
  Vec3 position = Vec3::Zero();
  double angle = 0.0;
  Vec3 velocity = Vec3::Zero();
  double angular_velocity = 0.0;
  double mass = 0.0;     // kg (0 for fixed and kinematic bodies given none)
  double inertia = 0.0;  // kg·m²
  Shape shape;
  double linear_damping = 0.0;
  double angular_damping = 0.0;
  Material material{};
  Filter filter{};
};

}  // namespace linkage
