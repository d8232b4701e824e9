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

}  // namespace linkage::collision
