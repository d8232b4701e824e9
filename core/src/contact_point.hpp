#pragma once
// A contact point as the narrow phase found it, in a form both families
// read: which bodies and features, the material, the warm start, and how to
// measure its separation at other positions (Box2D's position manifold, in
// each body's frame).

#include <cstddef>
#include <cstdint>

#include "linkage/body.hpp"
#include "linkage/ids.hpp"

namespace linkage {

// The most pairs of bodies a step looks at for contacts (a pair's manifold
// has one or two points), per body with a shape: a body in a physical scene
// touches a few neighbours (disks of one size six at most, a box two points
// on each), while bodies pushed into one place all overlap, their pairs
// growing with the square of their count (10,000 disks at one point: 50
// million pairs, tens of gigabytes of contact points). Past this many times
// the shaped bodies the step keeps the pairs it found first, in the broad
// phase's order, and says so (StepDiagnostics::contacts_capped).
inline constexpr std::size_t kContactPairsPerBody = 32;

struct FoundPoint {
  int a = -1, b = -1;  // dense body indices
  BodyId id_a, id_b;
  std::uint32_t feature = 0;
  int manifold = 1;  // on a manifold's first point: its points (they follow it); 0 on the others
  Vec3 point = Vec3::Zero(), normal = Vec3::UnitX();  // world, when found; the normal from a to b
  double separation = 0.0;
  double friction = 0.0, restitution = 0.0;
  double approach = 0.0;  // normal relative speed when found (< 0: closing)
  // The separation at other positions, between the core points (local_a,
  // local_b: a disk's centre, a capsule's segment), each surface a radius
  // out: 0 along the line between them; 1 along a's face's outward normal
  // (local_normal); 2 along b's.
  int reference = 0;
  Vec3 local_normal = Vec3::UnitX(), local_a = Vec3::Zero(), local_b = Vec3::Zero();
  double radius_a = 0.0, radius_b = 0.0;
  double normal_impulse = 0.0;  // N·s, the warm start (≥ 0)
  Vec3 friction_impulse = Vec3::Zero();
};

}  // namespace linkage
