#include "mass.hpp"

#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace linkage {
namespace {

double cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

// Area, centroid and second moment (per unit density, about the centroid) of
// a convex polygon; re-orders it counter-clockwise and re-centres it.
Result<MassProperties> polygon_properties(Polygon poly, double density) {
  auto& v = poly.vertices;
  if (v.size() < 3) return invalid_argument("shape.vertices", "a polygon needs at least 3 vertices, got " + std::to_string(v.size()));
  for (const Vec2& p : v)
    if (!p.allFinite()) return invalid_argument("shape.vertices", "must be finite");
  const std::size_t n = v.size();
  double area2 = 0.0;
  for (std::size_t i = 0; i < n; ++i) area2 += cross(v[i], v[(i + 1) % n]);
  if (area2 < 0.0) {
    std::reverse(v.begin(), v.end());
    area2 = -area2;
  }
  double scale = 0.0;
  for (const Vec2& p : v) scale = std::max(scale, p.norm());
  if (area2 <= 1e-12 * std::max(scale * scale, 1e-300)) return invalid_argument("shape.vertices", "the polygon has no area");
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 e1 = v[(i + 1) % n] - v[i];
    const Vec2 e2 = v[(i + 2) % n] - v[(i + 1) % n];
    if (cross(e1, e2) <= 0.0)
      return invalid_argument("shape.vertices", "the polygon must be convex (it turns the other way at vertex " +
                     std::to_string((i + 1) % n) + ")");
  }
  Vec2 c = Vec2::Zero();
  double second = 0.0;  // ∫ |p|² dA about the origin
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2& a = v[i];
    const Vec2& b = v[(i + 1) % n];
    const double k = cross(a, b);
    c += (a + b) * k;
    second += k * (a.dot(a) + a.dot(b) + b.dot(b));
  }
  const double area = 0.5 * area2;
  c /= 3.0 * area2;
  second /= 12.0;
  MassProperties mp;
  mp.mass = density * area;
  mp.inertia = density * (second - area * c.squaredNorm());
  // Shifting an already centred polygon by its centroid's round-off would
  // move its vertices by an ulp on every save and load.
  if (c.norm() > 1e-12 * scale) {
    for (Vec2& p : v) p -= c;
  }
  mp.shape = std::move(poly);
  return mp;
}

// Mass and inertia of a shape at this density (0, 0 for no shape).
Result<MassProperties> shape_properties(const Shape& shape, double density) {
  if (const auto* d = std::get_if<Disk>(&shape)) {
    if (!(std::isfinite(d->radius) && d->radius > 0.0)) return invalid_argument("shape.radius", "must be > 0, got " + number_text(d->radius));
    const double m = density * std::numbers::pi * d->radius * d->radius;
    return MassProperties{m, 0.5 * m * d->radius * d->radius, shape};
  }
  if (const auto* b = std::get_if<Box>(&shape)) {
    if (!(std::isfinite(b->half_width) && b->half_width > 0.0))
      return invalid_argument("shape.half_width", "must be > 0, got " + number_text(b->half_width));
    if (!(std::isfinite(b->half_height) && b->half_height > 0.0))
      return invalid_argument("shape.half_height", "must be > 0, got " + number_text(b->half_height));
    const double m = density * 4.0 * b->half_width * b->half_height;
    return MassProperties{m, m * (b->half_width * b->half_width + b->half_height * b->half_height) / 3.0, shape};
  }
  if (const auto* p = std::get_if<Polygon>(&shape)) return polygon_properties(*p, density);
  return MassProperties{0.0, 0.0, shape};
}

}  // namespace

Status validate_body_state(const BodyState& state, BodyKind kind, Motion motion, int dim) {
  LINKAGE_CHECK(check_vec("position", state.position, dim));
  LINKAGE_CHECK(check_vec("velocity", state.velocity, dim));
  if (!std::isfinite(state.angle)) return invalid_argument("angle", "must be finite");
  if (!std::isfinite(state.angular_velocity)) return invalid_argument("angular_velocity", "must be finite");
  if (kind != BodyKind::rigid && (state.angle != 0.0 || state.angular_velocity != 0.0))
    return invalid_argument("angle, angular_velocity", "a particle has no angle; use kind = rigid");
  if (motion == Motion::fixed && (state.velocity != Vec3::Zero() || state.angular_velocity != 0.0))
    return invalid_argument("velocity", "a fixed body cannot move; make it kinematic to give it a velocity");
  return ok_status();
}

Result<MassProperties> body_mass_properties(const BodyDef& def, int dim) {
  const bool rigid = def.kind == BodyKind::rigid;
  if (rigid && dim != 2) return invalid_argument("kind", "rigid bodies need a 2D world; a 3D world holds particles");
  LINKAGE_CHECK(validate_body_state({def.position, def.angle, def.velocity, def.angular_velocity}, def.kind, def.motion, dim));
  LINKAGE_CHECK(check_nonnegative("mass", def.mass));
  LINKAGE_CHECK(check_nonnegative("inertia", def.inertia));
  LINKAGE_CHECK(check_nonnegative("linear_damping", def.linear_damping));
  LINKAGE_CHECK(check_nonnegative("angular_damping", def.angular_damping));
  if (!(std::isfinite(def.density) && def.density > 0.0)) return invalid_argument("density", "must be > 0, got " + number_text(def.density));
  LINKAGE_CHECK(check_nonnegative("material.friction", def.material.friction));
  if (!(def.material.restitution >= 0.0 && def.material.restitution <= 1.0))
    return invalid_argument("material.restitution", "must be in [0, 1], got " + number_text(def.material.restitution));

  Result<MassProperties> from_shape = shape_properties(def.shape, def.density);
  if (!from_shape) return from_shape.error();
  MassProperties mp = from_shape.value();
  if (def.mass > 0.0) {
    // A given mass keeps the shape's distribution: the inertia scales with it.
    if (mp.mass > 0.0) mp.inertia *= def.mass / mp.mass;
    mp.mass = def.mass;
  }
  if (def.inertia > 0.0) mp.inertia = def.inertia;
  if (!rigid) mp.inertia = 0.0;
  if (def.motion == Motion::dynamic) {
    if (!(mp.mass > 0.0))
      return invalid_argument("mass", "a dynamic body needs mass > 0, or a shape to take it from (density × area)");
    if (rigid && !(mp.inertia > 0.0))
      return invalid_argument("inertia", "a dynamic rigid body needs inertia > 0, or a shape to take it from");
  }
  return mp;
}

}  // namespace linkage
