#include "hull.hpp"

#include <algorithm>
#include <limits>
#include <variant>

namespace linkage::collision {

Hull hull_of(const Shape& shape) {
  if (const auto* d = std::get_if<Disk>(&shape)) return {{Vec2::Zero()}, d->radius};
  if (const auto* b = std::get_if<Box>(&shape)) {
    const double w = b->half_width, h = b->half_height;
    return {{Vec2(-w, -h), Vec2(w, -h), Vec2(w, h), Vec2(-w, h)}, 0.0};
  }
  // A body's polygon is convex, counter-clockwise and centred (mass.cpp).
  if (const auto* p = std::get_if<Polygon>(&shape)) return {p->vertices, 0.0};
  if (const auto* c = std::get_if<Capsule>(&shape)) return capsule(Vec2(-c->half_length, 0.0), Vec2(c->half_length, 0.0), c->radius);
  if (const auto* g = std::get_if<Segment>(&shape)) return capsule(g->a, g->b, 0.0);
  return {};
}

Hull capsule(const Vec2& a, const Vec2& b, double radius) { return {{a, b}, radius}; }

Aabb bounds(const Hull& h, const Pose& pose, double margin) {
  Aabb box{Vec2::Constant(std::numeric_limits<double>::infinity()), Vec2::Constant(-std::numeric_limits<double>::infinity())};
  for (const Vec2& v : h.vertices) {
    const Vec2 w = pose.apply(v);
    box.lo = box.lo.cwiseMin(w);
    box.hi = box.hi.cwiseMax(w);
  }
  const double grow = h.radius + margin;
  box.lo -= Vec2::Constant(grow);
  box.hi += Vec2::Constant(grow);
  return box;
}

}  // namespace linkage::collision
