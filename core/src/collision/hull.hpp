#pragma once
// The geometry the narrow phase works on: every 2D shape is a rounded convex
// hull, a core of 1 to N vertices (counter-clockwise) grown by a radius. A
// disk is one vertex and its radius; a capsule two vertices and its radius, a
// segment the same with radius 0; a box or a convex polygon its vertices and
// radius 0. One algorithm then serves every pair.

#include <cmath>
#include <cstdint>
#include <vector>

#include "linkage/body.hpp"
#include "linkage/math.hpp"

namespace linkage::collision {

// Where a body is: its position and rotation.
struct Pose {
  Vec2 p = Vec2::Zero();
  double c = 1.0, s = 0.0;  // cos θ, sin θ

  static Pose at(const Vec2& p, double angle) { return {p, std::cos(angle), std::sin(angle)}; }
  Vec2 rotate(const Vec2& v) const { return {c * v.x() - s * v.y(), s * v.x() + c * v.y()}; }
  Vec2 apply(const Vec2& v) const { return p + rotate(v); }
};

struct Hull {
  std::vector<Vec2> vertices;  // the core, in the body's frame, counter-clockwise
  double radius = 0.0;
};

// A disk, box, polygon, capsule or segment as a hull; no hull (empty) for a
// shape-less body or a plane, which is endless (see plane.hpp).
Hull hull_of(const Shape& shape);
Hull capsule(const Vec2& a, const Vec2& b, double radius);  // radius 0: a segment

struct Aabb {
  Vec2 lo, hi;
  bool overlaps(const Aabb& o) const {
    return lo.x() <= o.hi.x() && o.lo.x() <= hi.x() && lo.y() <= o.hi.y() && o.lo.y() <= hi.y();
  }
};

// The hull's bounds at `pose`, grown by `margin` on every side.
Aabb bounds(const Hull& h, const Pose& pose, double margin = 0.0);

}  // namespace linkage::collision
