#pragma once
// What the narrow phase finds between two hulls: up to two contact points
// sharing one normal, each with its separation and a feature id that stays
// the same while the same features touch (so a solver can warm-start it).

#include <array>
#include <cstdint>

#include "hull.hpp"

namespace linkage::collision {

struct ContactPoint {
  Vec2 point = Vec2::Zero();  // world frame, midway between the two surfaces
  double separation = 0.0;    // along the normal, m: < 0 overlapping
  std::uint32_t id = 0;       // the features that touch (see manifold.cpp)
};

struct Manifold {
  Vec2 normal = Vec2::UnitX();  // world frame, unit, from A to B
  std::array<ContactPoint, 2> points{};
  int count = 0;  // 0: no contact within the margin
};

// The contact of hull `a` at `pa` with hull `b` at `pb`: every point whose
// separation is at most `margin` (speculative contacts ahead of impact).
Manifold collide(const Hull& a, const Pose& pa, const Hull& b, const Pose& pb, double margin);

// How a point with feature id `id` keeps measuring its separation as the
// bodies move (Box2D's position manifold): 1 from a's face (a clipped
// reference face, or an edge of a whose inside is closest), 2 from b's, 0
// along the line between the two points (two vertices: a disk's centre, a
// corner). A disk sliding along a face is measured from the face, not from
// the face point it touched first.
int reference_of(std::uint32_t id);

}  // namespace linkage::collision
