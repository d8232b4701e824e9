#include "plane.hpp"

#include <limits>

namespace linkage::collision {

Manifold collide_plane(const Vec2& origin, const Vec2& normal, const Hull& b, const Pose& pb, double margin) {
  Manifold out;
  out.normal = normal;
  // The deepest two, deepest first; a tie keeps the lower index, so that a
  // box resting flat keeps its ids.
  int best[2] = {-1, -1};
  double depth[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  for (int i = 0; i < static_cast<int>(b.vertices.size()); ++i) {
    const double s = normal.dot(pb.apply(b.vertices[static_cast<std::size_t>(i)]) - origin) - b.radius;
    if (s > margin) continue;
    if (s < depth[0]) {
      best[1] = best[0], depth[1] = depth[0];
      best[0] = i, depth[0] = s;
    } else if (s < depth[1]) {
      best[1] = i, depth[1] = s;
    }
  }
  for (int k = 0; k < 2 && best[k] >= 0; ++k) {
    const Vec2 vertex = pb.apply(b.vertices[static_cast<std::size_t>(best[k])]);
    ContactPoint& p = out.points[static_cast<std::size_t>(out.count++)];
    p.separation = depth[k];
    // Midway between the hull's surface and the plane.
    p.point = vertex - (b.radius + 0.5 * depth[k]) * normal;
    p.id = 1u << 30 | static_cast<std::uint32_t>(best[k] & 0x7fff);
  }
  return out;
}

}  // namespace linkage::collision
