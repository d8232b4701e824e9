// The narrow phase, for two rounded convex hulls (hull.hpp).
//
// Cores apart (their boundaries apart, and neither inside the other): their closest points (every pair of core edges, exactly) give
// the normal and the separation; two parallel edges facing each other give
// two points, the incident edge clipped to the reference edge's span.
// Cores overlapping: the separating-axis test over both cores' edge normals
// finds the axis of least penetration, which is exact for convex cores, and
// the reference face it belongs to; the other hull's edge most opposed to it
// is clipped to the face's span (Sutherland–Hodgman on one segment). The
// radii then move every separation by −(r_a + r_b).
//
// Feature ids (32 bits): the top two bits say how the point was found (1:
// a's face is the reference, 2: b's, 3: closest features), then 15 bits for
// a's feature and 15 for b's: an edge's or a vertex's index, with 0x4000 set
// for a vertex (or, on the incident side of a clip, for the reference face's
// side the point was clipped to).
#include "manifold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace linkage::collision {
namespace {

constexpr std::uint32_t kVertex = 0x4000;
// Cores closer than this touch: the normal comes from the faces, not from
// the closest points (which no longer give a direction).
constexpr double kTouching = 1e-12;
// A face of b must beat a's by this much to become the reference (m, Box2D's
// 0.1 × linear slop): the choice, and with it the feature ids and the warm
// starts, holds still while a resting box rocks by round-off. The price: a
// separation up to this much deeper than the shapes' when b's face is the
// better one by less.
constexpr double kAxisTolerance = 5e-4;
// Edges this close to parallel (|sin|) facing each other touch along a span.
constexpr double kParallel = 1e-3;

double cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }

std::uint32_t feature_id(std::uint32_t how, std::uint32_t fa, std::uint32_t fb) {
  return how << 30 | (fa & 0x7fff) << 15 | (fb & 0x7fff);
}

struct Core {
  const Vec2* v;  // world frame
  int count;
  double radius = 0.0;
  int n() const { return count; }
  // Edges for the separating axes: none for a point, both sides of a segment.
  int edges() const { return n() == 1 ? 0 : n() == 2 ? 2 : n(); }
  Vec2 from(int e) const { return v[e]; }
  Vec2 to(int e) const { return v[(e + 1) % n()]; }
  Vec2 normal(int e) const {
    const Vec2 d = (to(e) - from(e)).normalized();
    return Vec2(d.y(), -d.x());  // outward for counter-clockwise vertices
  }
  const Vec2* begin() const { return v; }
  const Vec2* end() const { return v + count; }
};

// The hull's core at `pose`, in `buffer` (reused from call to call: collide
// runs once per pair and step, and allocating there shows in a profile).
Core core_at(const Hull& h, const Pose& pose, std::vector<Vec2>& buffer) {
  buffer.clear();
  for (const Vec2& v : h.vertices) buffer.push_back(pose.apply(v));
  return {buffer.data(), static_cast<int>(buffer.size()), h.radius};
}

// Closest points of segments p0p1 and q0q1: parameters s, t in [0, 1].
void closest_on_segments(const Vec2& p0, const Vec2& p1, const Vec2& q0, const Vec2& q1, double& s, double& t) {
  const Vec2 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  if (a <= 0.0 && e <= 0.0) {
    s = t = 0.0;
    return;
  }
  if (a <= 0.0) {
    s = 0.0;
    t = std::clamp(f / e, 0.0, 1.0);
    return;
  }
  const double c = d1.dot(r);
  if (e <= 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
    return;
  }
  const double b = d1.dot(d2), denom = a * e - b * b;
  s = denom > 0.0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  t = (b * s + f) / e;
  if (t < 0.0) {
    t = 0.0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1.0) {
    t = 1.0;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
}

// The segments whose union is a core's boundary: the point itself, the
// segment, or each edge.
int segments(const Core& c) { return c.n() <= 2 ? 1 : c.n(); }

struct Closest {
  double distance = std::numeric_limits<double>::infinity();
  int edge_a = 0, edge_b = 0;
  double s = 0.0, t = 0.0;
  Vec2 pa, pb;
};

Closest closest(const Core& a, const Core& b) {
  Closest best;
  for (int i = 0; i < segments(a); ++i) {
    for (int j = 0; j < segments(b); ++j) {
      double s, t;
      const Vec2 a0 = a.from(i), a1 = a.n() == 1 ? a0 : a.to(i);
      const Vec2 b0 = b.from(j), b1 = b.n() == 1 ? b0 : b.to(j);
      closest_on_segments(a0, a1, b0, b1, s, t);
      const Vec2 pa = a0 + s * (a1 - a0), pb = b0 + t * (b1 - b0);
      const double dist = (pb - pa).norm();
      if (dist < best.distance) best = {dist, i, j, s, t, pa, pb};
    }
  }
  return best;
}

// A feature of a core at a closest point: the vertex it is at, or the edge.
std::uint32_t feature_at(const Core& c, int edge, double param) {
  if (c.n() == 1) return kVertex;
  if (param <= 0.0) return kVertex | static_cast<std::uint32_t>(edge);
  if (param >= 1.0) return kVertex | static_cast<std::uint32_t>((edge + 1) % c.n());
  return static_cast<std::uint32_t>(edge);
}

// The largest separation of `other`'s core along one of `ref`'s edge normals.
struct Axis {
  double separation = -std::numeric_limits<double>::infinity();
  int edge = -1;
};

Axis best_axis(const Core& ref, const Core& other) {
  Axis best;
  for (int e = 0; e < ref.edges(); ++e) {
    const Vec2 n = ref.normal(e), v = ref.from(e);
    double s = std::numeric_limits<double>::infinity();
    for (const Vec2& w : other) s = std::min(s, n.dot(w - v));
    if (s > best.separation) best = {s, e};
  }
  return best;
}

// Whether point p lies inside (or on) a polygon core.
bool contains(const Core& c, const Vec2& p) {
  if (c.n() < 3) return false;
  for (int e = 0; e < c.n(); ++e)
    if (c.normal(e).dot(p - c.from(e)) > 0.0) return false;
  return true;
}

struct Clipped {
  Vec2 p;
  std::uint32_t feature;  // the incident vertex, or kVertex | the reference side that clipped it
};

// The incident segment w0w1 (vertices i0, i1) clipped to the reference
// edge's span [v0, v1] along its tangent.
int clip(const Vec2& v0, const Vec2& v1, int ref_edge, int ref_n, const Vec2& w0, const Vec2& w1, std::uint32_t i0,
         std::uint32_t i1, Clipped out[2]) {
  const Vec2 t = (v1 - v0).normalized();
  Clipped pts[2] = {{w0, i0}, {w1, i1}};
  int count = w0 == w1 ? 1 : 2;
  const double lo = t.dot(v0), hi = t.dot(v1);
  for (int side = 0; side < 2 && count > 0; ++side) {
    // Keep t·p ≥ lo (side 0) or t·p ≤ hi (side 1).
    auto inside = [&](const Vec2& p) { return side == 0 ? t.dot(p) - lo : hi - t.dot(p); };
    const std::uint32_t clip_feature =
        kVertex | static_cast<std::uint32_t>(side == 0 ? ref_edge : (ref_edge + 1) % ref_n);
    if (count == 1) {
      if (inside(pts[0].p) < 0.0) count = 0;
      continue;
    }
    const double d0 = inside(pts[0].p), d1 = inside(pts[1].p);
    if (d0 >= 0.0 && d1 >= 0.0) continue;
    if (d0 < 0.0 && d1 < 0.0) {
      count = 0;
      continue;
    }
    const Vec2 cut = pts[0].p + (d0 / (d0 - d1)) * (pts[1].p - pts[0].p);
    (d0 < 0.0 ? pts[0] : pts[1]) = {cut, clip_feature};
  }
  for (int k = 0; k < count; ++k) out[k] = pts[k];
  return count;
}

// Adds the clipped points of `inc` against `ref`'s face `edge` whose
// separation is within the margin.
void face_contact(const Core& ref, int edge, const Core& inc, bool ref_is_a, double margin, Manifold& m) {
  const Vec2 n = ref.normal(edge), v0 = ref.from(edge), v1 = ref.to(edge);
  // The incident feature: the edge most opposed to n, or the point.
  int ie = 0;
  if (inc.edges() > 0) {
    double most = std::numeric_limits<double>::infinity();
    for (int e = 0; e < inc.edges(); ++e) {
      const double d = inc.normal(e).dot(n);
      if (d < most) most = d, ie = e;
    }
  }
  const bool point = inc.n() == 1;
  const Vec2 w0 = inc.from(ie), w1 = point ? w0 : inc.to(ie);
  const auto i0 = static_cast<std::uint32_t>(ie), i1 = static_cast<std::uint32_t>(point ? ie : (ie + 1) % inc.n());
  Clipped pts[2];
  const int count = clip(v0, v1, edge, ref.n(), w0, w1, i0, i1, pts);
  m.normal = ref_is_a ? n : Vec2(-n);
  for (int k = 0; k < count; ++k) {
    const double separation = n.dot(pts[k].p - v0) - ref.radius - inc.radius;
    if (separation > margin) continue;
    ContactPoint& c = m.points[static_cast<std::size_t>(m.count++)];
    c.point = pts[k].p - (inc.radius + 0.5 * separation) * n;
    c.separation = separation;
    c.id = ref_is_a ? feature_id(1, static_cast<std::uint32_t>(edge), pts[k].feature)
                    : feature_id(2, pts[k].feature, static_cast<std::uint32_t>(edge));
  }
}

// The contact of two cores apart, from their closest points.
Manifold apart(const Core& a, const Core& b, const Closest& near, double margin) {
  Manifold m;
  const double radii = a.radius + b.radius;
  const Vec2 n = (near.pb - near.pa) / near.distance;
  // Two edges facing each other along n touch over a span: clip.
  if (a.n() >= 2 && b.n() >= 2) {
    const Vec2 ta = (a.to(near.edge_a) - a.from(near.edge_a)).normalized();
    const Vec2 tb = (b.to(near.edge_b) - b.from(near.edge_b)).normalized();
    if (std::abs(cross(ta, tb)) < kParallel && std::abs(ta.dot(n)) < kParallel) {
      // a's side of the segment (or edge) that faces b is the reference face.
      int face = near.edge_a;
      if (a.n() == 2 && a.normal(face).dot(n) < 0.0) face = 1;
      if (a.normal(face).dot(n) > 0.0) {
        face_contact(a, face, b, true, margin, m);
        if (m.count > 0) return m;
      }
    }
  }
  const double separation = near.distance - radii;
  m.normal = n;
  m.count = 1;
  m.points[0].point = near.pa + (a.radius + 0.5 * separation) * n;
  m.points[0].separation = separation;
  m.points[0].id = feature_id(3, feature_at(a, near.edge_a, near.s), feature_at(b, near.edge_b, near.t));
  return m;
}

}  // namespace

int reference_of(std::uint32_t id) {
  const auto how = static_cast<int>(id >> 30);
  if (how != 3) return how;
  const std::uint32_t fa = id >> 15 & 0x7fff, fb = id & 0x7fff;
  return !(fa & kVertex) ? 1 : !(fb & kVertex) ? 2 : 0;
}

Manifold collide(const Hull& ha, const Pose& pa, const Hull& hb, const Pose& pb, double margin) {
  Manifold m;
  if (ha.vertices.empty() || hb.vertices.empty()) return m;
  thread_local std::vector<Vec2> buffer_a, buffer_b;
  const Core a = core_at(ha, pa, buffer_a), b = core_at(hb, pb, buffer_b);
  const double radii = a.radius + b.radius;
  const Axis axis_a = best_axis(a, b), axis_b = best_axis(b, a);
  // Two polygons (3 or more vertices each) are apart exactly when one of
  // their edge normals separates them, and the largest such separation is
  // at most their distance: the common cases (far apart, overlapping)
  // need no closest points.
  const bool polygons = a.n() >= 3 && b.n() >= 3;
  const double sat = std::max(axis_a.separation, axis_b.separation);
  if (polygons && sat - radii > margin) return m;
  if (!polygons || sat > 0.0) {
    const Closest near = closest(a, b);
    const bool nested = contains(a, b.v[0]) || contains(b, a.v[0]);
    if (!nested && near.distance - radii > margin) return m;
    // Boundaries apart and neither core inside the other: the cores are apart.
    if (near.distance > kTouching && !nested) return apart(a, b, near, margin);
    if (axis_a.edge < 0 && axis_b.edge < 0) {
      // Two points on each other: any direction is as good as another.
      m.normal = Vec2::UnitX();
      m.count = 1;
      m.points[0] = {near.pa + (a.radius - 0.5 * radii) * m.normal, -radii, feature_id(3, kVertex, kVertex)};
      return m;
    }
  }

  // The cores overlap (or touch): the axis of least penetration.
  if (axis_a.edge >= 0 && (axis_b.edge < 0 || axis_b.separation <= axis_a.separation + kAxisTolerance))
    face_contact(a, axis_a.edge, b, true, margin, m);
  else
    face_contact(b, axis_b.edge, a, false, margin, m);
  return m;
}

}  // namespace linkage::collision
