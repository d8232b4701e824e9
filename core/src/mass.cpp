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

// A capsule as its rectangle and its two half-disks. Each half-disk's
// centroid lies 4r/(3π) beyond its cap's centre, at c = half_length + 4r/(3π)
// from the body's centre; moving its inertia from its own centroid there
// (parallel axes, via the cap's centre, about which it is ½ m r² for the
// pair) gives m (½ r² + l² + 2 l · 4r/(3π)) for both.
MassProperties capsule_properties(const Capsule& c, double density) {
  const double r = c.radius, l = c.half_length;
  const double box = density * 4.0 * r * l;
  const double caps = density * std::numbers::pi * r * r;
  const double box_inertia = box * (4.0 * l * l + 4.0 * r * r) / 12.0;
  const double caps_inertia = caps * (0.5 * r * r + l * l + 2.0 * l * 4.0 * r / (3.0 * std::numbers::pi));
  return {box + caps, box_inertia + caps_inertia, c};
}

Result<Plane> unit_plane(Plane plane, int dim) {
  LINKAGE_CHECK(check_vec("shape.plane.normal", plane.normal, dim));
  // stableNorm: a normal of 1e300 would overflow norm() and normalize to 0.
  const double n = plane.normal.stableNorm();
  if (!(n > 0.0)) return invalid_argument("shape.plane.normal", "must not be zero");
  plane.normal /= n;
  return plane;
}

// Mass and inertia of a shape at this density (0, 0 for no shape). The new
// shapes' fields are named with their kind (shape.capsule.radius): a disk's
// shape.radius alone would not say which radius.
Result<MassProperties> shape_properties(const Shape& shape, double density, int dim) {
  if (const auto* d = std::get_if<Disk>(&shape)) {
    LINKAGE_CHECK(check_positive("shape.radius", d->radius));
    const double r = d->radius;
    if (dim == 3) {
      const double m = density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
      return MassProperties{m, 0.4 * m * r * r, shape};
    }
    const double m = density * std::numbers::pi * r * r;
    return MassProperties{m, 0.5 * m * r * r, shape};
  }
  if (std::holds_alternative<Capsule>(shape) || std::holds_alternative<Segment>(shape)) {
    if (dim != 2) return invalid_argument("shape", "capsules and segments are 2D shapes; a 3D world's particles take disks (balls) and planes");
  }
  if (const auto* c = std::get_if<Capsule>(&shape)) {
    LINKAGE_CHECK(check_positive("shape.capsule.radius", c->radius));
    LINKAGE_CHECK(check_positive("shape.capsule.half_length", c->half_length));
    return capsule_properties(*c, density);
  }
  if (const auto* g = std::get_if<Segment>(&shape)) {
    LINKAGE_CHECK(check_vec("shape.segment.a", Vec3(g->a.x(), g->a.y(), 0.0), 2));
    LINKAGE_CHECK(check_vec("shape.segment.b", Vec3(g->b.x(), g->b.y(), 0.0), 2));
    if (!((g->b - g->a).norm() > 0.0)) return invalid_argument("shape.segment.b", "must differ from shape.segment.a (a segment needs a length)");
    return MassProperties{0.0, 0.0, shape};
  }
  if (const auto* p = std::get_if<Plane>(&shape)) {
    Result<Plane> unit = unit_plane(*p, dim);
    if (!unit) return unit.error();
    return MassProperties{0.0, 0.0, unit.value()};
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

  if (std::holds_alternative<Plane>(def.shape) && def.motion == Motion::dynamic)
    return invalid_argument("motion", "a plane is an endless boundary: make its body fixed or kinematic");
  Result<MassProperties> from_shape = shape_properties(def.shape, def.density, dim);
  if (!from_shape) return from_shape.error();
  MassProperties mp = from_shape.value();
  // A shape of finite size can still overflow: a radius of 1e200 m.
  if (!std::isfinite(mp.mass) || !std::isfinite(mp.inertia))
    return invalid_argument("shape", "too large: its mass or inertia at this density is not a finite number");
  if (def.mass > 0.0) {
    // A given mass keeps the shape's distribution: the inertia scales with it.
    if (mp.mass > 0.0) mp.inertia *= def.mass / mp.mass;
    mp.mass = def.mass;
  }
  if (def.inertia > 0.0) mp.inertia = def.inertia;
  if (!rigid) mp.inertia = 0.0;
  // The shape's inertia scaled to a given mass can overflow (a disk of radius
  // 1e10 m given 1e300 kg).
  if (!std::isfinite(mp.inertia))
    return invalid_argument("inertia", "too large: the shape's inertia at this mass is not a finite number");
  if (def.motion == Motion::dynamic) {
    if (!(mp.mass > 0.0))
      return invalid_argument("mass", "a dynamic body needs mass > 0, or a shape to take it from (density × area)");
    if (rigid && !(mp.inertia > 0.0))
      return invalid_argument("inertia", "a dynamic rigid body needs inertia > 0, or a shape to take it from");
    // The world moves a body by its inverse mass and inertia: one that
    // overflows would make every step non-finite.
    if (!std::isfinite(1.0 / mp.mass))
      return invalid_argument("mass", "too small: 1/mass is not a finite number, got " + number_text(mp.mass) + " kg");
    if (rigid && !std::isfinite(1.0 / mp.inertia))
      return invalid_argument("inertia",
                              "too small: 1/inertia is not a finite number, got " + number_text(mp.inertia) + " kg·m²");
  }
  return mp;
}

}  // namespace linkage
