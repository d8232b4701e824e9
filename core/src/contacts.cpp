#include "contacts.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "ball_contacts.hpp"
#include "collision/broad_phase.hpp"
#include "collision/plane.hpp"

namespace linkage {
namespace {

double cross(const Vec2& a, const Vec2& b) { return a.x() * b.y() - a.y() * b.x(); }
Vec2 perp(const Vec2& v) { return {-v.y(), v.x()}; }  // ω × r for ω about z

collision::Pose pose_of(const BodyRecord& b, const Eigen::VectorXd& q) {
  const Vec2 p(q[b.offset], q[b.offset + 1]);
  return collision::Pose::at(p, b.kind == BodyKind::rigid ? q[b.offset + 2] : 0.0);
}

Vec2 to_local(const collision::Pose& pose, const Vec2& w) {
  const Vec2 r = w - pose.p;
  return {pose.c * r.x() + pose.s * r.y(), -pose.s * r.x() + pose.c * r.y()};
}

}  // namespace

bool may_touch(const Filter& a, const Filter& b) {
  if (a.group != 0 && a.group == b.group) return a.group > 0;
  return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

std::set<std::pair<int, int>> joined_pairs(const WorldModel& m) {
  std::set<std::pair<int, int>> out;
  for (const ConstraintRecord& c : m.constraints)
    if (c.body_a >= 0 && c.body_b >= 0) out.emplace(std::min(c.body_a, c.body_b), std::max(c.body_a, c.body_b));
  return out;
}

std::unique_ptr<Contacts> find_contacts(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h) {
  if (m.settings.dimension == 3) return std::make_unique<BallContacts>(m, d, v, h);
  return std::make_unique<ContactSolver>(m, d, v, h);
}

void ContactSolver::set_position_manifold(Point& p, const collision::Pose& pa, const collision::Pose& pb, double radius_a,
                                          double radius_b) {
  p.reference = collision::reference_of(p.feature);
  p.radius_a = radius_a;
  p.radius_b = radius_b;
  // The core points: the surfaces' points (half the separation either side
  // of the midpoint) moved in by each radius. A disk's is its centre, so the
  // point stays where it touches as the disk turns (Box2D's position
  // manifold: the radii are taken off the measure, not kept in the points).
  const Vec2 surface_a = p.point - 0.5 * p.separation * p.normal, surface_b = p.point + 0.5 * p.separation * p.normal;
  p.local_a = to_local(pa, surface_a - radius_a * p.normal);
  p.local_b = to_local(pb, surface_b + radius_b * p.normal);
  if (p.reference == 0) return;
  const collision::Pose& face = p.reference == 1 ? pa : pb;
  const Vec2 out = p.reference == 1 ? p.normal : Vec2(-p.normal);
  p.local_normal = Vec2(face.c * out.x() + face.s * out.y(), -face.s * out.x() + face.c * out.y());
}

ContactSolver::ContactSolver(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h) : m_(m) {
  const WorldSettings& s = m.settings;
  const double margin = s.contact_margin;
  std::vector<int> shaped, planes;
  std::vector<collision::Hull> hulls;
  std::vector<collision::Aabb> boxes;
  std::vector<collision::Pose> poses;
  std::vector<double> reach;  // how far each shaped body's surface may move in the step
  for (int i = 0; i < static_cast<int>(m.bodies.size()); ++i) {
    const BodyRecord& b = m.bodies[static_cast<std::size_t>(i)];
    if (std::holds_alternative<Plane>(b.shape)) planes.push_back(i);
    collision::Hull hull = collision::hull_of(b.shape);
    if (hull.vertices.empty()) continue;
    double extent = 0.0;
    for (const Vec2& x : hull.vertices) extent = std::max(extent, x.norm());
    const double spin = b.kind == BodyKind::rigid ? std::abs(v[b.offset + 2]) * (extent + hull.radius) : 0.0;
    reach.push_back(h * (Vec2(v[b.offset], v[b.offset + 1]).norm() + spin));
    poses.push_back(pose_of(b, d.q));
    boxes.push_back(collision::bounds(hull, poses.back(), margin + reach.back()));
    hulls.push_back(std::move(hull));
    shaped.push_back(i);
  }
  const std::set<std::pair<int, int>> pairs_joined = joined_pairs(m);
  const auto may_collide = [&](int a, int b) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const BodyRecord& rb = m.bodies[static_cast<std::size_t>(b)];
    if (ra.motion != Motion::dynamic && rb.motion != Motion::dynamic) return false;
    return may_touch(ra.filter, rb.filter) && !pairs_joined.count({std::min(a, b), std::max(a, b)});
  };
  const auto add = [&](int a, int b, const collision::Pose& pa, const collision::Pose& pb, double radius_a,
                       double radius_b, const collision::Manifold& manifold) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const BodyRecord& rb = m.bodies[static_cast<std::size_t>(b)];
    const std::size_t first = points_.size();
    for (int k = 0; k < manifold.count; ++k) {
      const collision::ContactPoint& cp = manifold.points[static_cast<std::size_t>(k)];
      Point p;
      p.a = a;
      p.b = b;
      p.end_a = {ra.offset, ra.kind == BodyKind::rigid, ra.inv_mass, ra.inv_inertia};
      p.end_b = {rb.offset, rb.kind == BodyKind::rigid, rb.inv_mass, rb.inv_inertia};
      p.id_a = ra.id;
      p.id_b = rb.id;
      p.feature = cp.id;
      p.normal = manifold.normal;
      p.point = cp.point;
      p.separation = cp.separation;
      p.ra = cp.point - pa.p;
      p.rb = cp.point - pb.p;
      set_position_manifold(p, pa, pb, radius_a, radius_b);
      const Vec2 t = perp(p.normal);
      const double rna = cross(p.ra, p.normal), rnb = cross(p.rb, p.normal);
      const double rta = cross(p.ra, t), rtb = cross(p.rb, t);
      const double kn = ra.inv_mass + rb.inv_mass + ra.inv_inertia * rna * rna + rb.inv_inertia * rnb * rnb;
      const double kt = ra.inv_mass + rb.inv_mass + ra.inv_inertia * rta * rta + rb.inv_inertia * rtb * rtb;
      p.normal_mass = kn > 0.0 ? 1.0 / kn : 0.0;
      p.tangent_mass = kt > 0.0 ? 1.0 / kt : 0.0;
      p.friction = std::sqrt(ra.material.friction * rb.material.friction);
      p.restitution = std::max(ra.material.restitution, rb.material.restitution);
      p.approach = p.normal.dot(relative_velocity(p, v));
      // Apart: the bodies may close the gap within the step, no more.
      p.bias = p.separation > 0.0 ? -p.separation / h : 0.0;
      points_.push_back(p);
    }
    if (manifold.count > 0) points_[first].count = manifold.count;
    if (manifold.count == 2) prepare_block(points_[first], points_[first + 1]);
  };
  const std::size_t limit = kContactPairsPerBody * shaped.size();
  const std::vector<std::pair<int, int>> pairs = collision::overlapping_pairs(boxes, limit, capped_);
  std::size_t looked = pairs.size();  // pairs looked at, planes' included
  points_.clear();
  points_.reserve(2 * pairs.size());
  for (const auto& [i, j] : pairs) {
    const int a = shaped[static_cast<std::size_t>(i)], b = shaped[static_cast<std::size_t>(j)];
    if (!may_collide(a, b)) continue;
    const collision::Pose& pa = poses[static_cast<std::size_t>(i)];
    const collision::Pose& pb = poses[static_cast<std::size_t>(j)];
    const collision::Hull& ha = hulls[static_cast<std::size_t>(i)];
    const collision::Hull& hb = hulls[static_cast<std::size_t>(j)];
    // Whatever may touch within the step is a contact (speculative): the
    // margin grows with how far the two may move.
    const double ahead = margin + reach[static_cast<std::size_t>(i)] + reach[static_cast<std::size_t>(j)];
    add(a, b, pa, pb, ha.radius, hb.radius, collision::collide(ha, pa, hb, pb, ahead));
  }
  // Planes are endless, so outside the broad phase: each meets every hull
  // (a world holds a few), and is always the pair's first body.
  for (const int a : planes) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const collision::Pose pa = pose_of(ra, d.q);
    const Vec3& local = std::get<Plane>(ra.shape).normal;
    const Vec2 normal = pa.rotate(Vec2(local.x(), local.y()));
    for (std::size_t j = 0; j < shaped.size() && !capped_; ++j) {
      const int b = shaped[j];
      if (!may_collide(a, b)) continue;
      if (looked++ == limit) {
        capped_ = true;
        break;
      }
      add(a, b, pa, poses[j], 0.0, hulls[j].radius,
          collision::collide_plane(pa.p, normal, hulls[j], poses[j], margin + reach[j]));
    }
  }
  // Warm start: the same bodies and features as a point of the last step.
  for (Point& p : points_) {
    const auto key = std::tuple(p.id_a, p.id_b, p.feature);
    const auto it = std::lower_bound(d.contacts.begin(), d.contacts.end(), key,
                                     [](const ContactRecord& c, const auto& k) { return c.key() < k; });
    if (it == d.contacts.end() || it->key() != key || !s.warm_start) continue;
    p.normal_impulse = it->normal_impulse;
    const Vec2 t = perp(p.normal);
    p.tangent_impulse = it->friction_impulse.x() * t.x() + it->friction_impulse.y() * t.y();
  }
}

std::vector<ContactSolver::Point>& ContactSolver::buffer() {
  thread_local std::vector<Point> points;
  return points;
}

inline Vec2 ContactSolver::relative_velocity(const Point& p, const Eigen::VectorXd& v) {
  auto velocity = [&](const End& e, const Vec2& r) {
    Vec2 u(v[e.offset], v[e.offset + 1]);
    if (e.rigid) u += v[e.offset + 2] * perp(r);
    return u;
  };
  return velocity(p.end_b, p.rb) - velocity(p.end_a, p.ra);
}

inline void ContactSolver::apply(const Point& p, const Vec2& impulse, Eigen::VectorXd& v) {
  auto push = [&](const End& e, const Vec2& r, const Vec2& j) {
    v[e.offset] += e.inv_mass * j.x();
    v[e.offset + 1] += e.inv_mass * j.y();
    if (e.rigid) v[e.offset + 2] += e.inv_inertia * cross(r, j);
  };
  push(p.end_a, p.ra, -impulse);
  push(p.end_b, p.rb, impulse);
}

void ContactSolver::prepare_block(Point& p1, const Point& p2) {
  const Vec2& n = p1.normal;
  const double rn1a = cross(p1.ra, n), rn1b = cross(p1.rb, n), rn2a = cross(p2.ra, n), rn2b = cross(p2.rb, n);
  const double ma = p1.end_a.inv_mass, mb = p1.end_b.inv_mass, ia = p1.end_a.inv_inertia, ib = p1.end_b.inv_inertia;
  p1.k11 = ma + mb + ia * rn1a * rn1a + ib * rn1b * rn1b;
  p1.k22 = ma + mb + ia * rn2a * rn2a + ib * rn2b * rn2b;
  p1.k12 = ma + mb + ia * rn1a * rn2a + ib * rn1b * rn2b;
  p1.det = p1.k11 * p1.k22 - p1.k12 * p1.k12;
  // Points too close together make K near singular: solve them one by one.
  constexpr double kMaxCondition = 1000.0;
  p1.block = p1.k11 * p1.k11 < kMaxCondition * p1.det;
}

void ContactSolver::warm_start(Eigen::VectorXd& v) const {
  for (const Point& p : points_) apply(p, p.normal_impulse * p.normal + p.tangent_impulse * perp(p.normal), v);
}

void ContactSolver::sweep(Eigen::VectorXd& v) {
  for (std::size_t first = 0; first < points_.size(); first += static_cast<std::size_t>(points_[first].count)) {
    const std::size_t end = first + static_cast<std::size_t>(points_[first].count);
    for (std::size_t k = first; k < end; ++k) {
      // Friction first, bounded by the normal impulse as it stands (Box2D's order).
      Point& p = points_[k];
      const Vec2 t = perp(p.normal);
      const double vt = t.dot(relative_velocity(p, v));
      const double limit = p.friction * p.normal_impulse;
      const double tangent = std::clamp(p.tangent_impulse - p.tangent_mass * vt, -limit, limit);
      apply(p, (tangent - p.tangent_impulse) * t, v);
      p.tangent_impulse = tangent;
    }
    if (!points_[first].block || !solve_normal_pair(points_[first], points_[first + 1], v))
      for (std::size_t k = first; k < end; ++k) solve_normal(points_[k], v);
  }
}

void ContactSolver::solve_normal(Point& p, Eigen::VectorXd& v) {
  const double vn = p.normal.dot(relative_velocity(p, v));
  const double normal = std::max(p.normal_impulse - p.normal_mass * (vn - p.bias), 0.0);
  apply(p, (normal - p.normal_impulse) * p.normal, v);
  p.normal_impulse = normal;
}

bool ContactSolver::solve_normal_pair(Point& p1, Point& p2, Eigen::VectorXd& v) {
  // The 2×2 linear complementarity problem vn = K x + b ≥ 0, x ≥ 0, xᵀ vn = 0
  // for the total impulses x, solved by trying its four cases in turn.
  const Vec2& n = p1.normal;
  const double k11 = p1.k11, k12 = p1.k12, k22 = p1.k22, det = p1.det;
  const Eigen::Vector2d a(p1.normal_impulse, p2.normal_impulse);
  const Eigen::Vector2d vn(n.dot(relative_velocity(p1, v)) - p1.bias, n.dot(relative_velocity(p2, v)) - p2.bias);
  Eigen::Matrix2d k;
  k << k11, k12, k12, k22;
  const Eigen::Vector2d b = vn - k * a;
  Eigen::Vector2d x;
  auto take = [&](const Eigen::Vector2d& total) {
    const Eigen::Vector2d d = total - a;
    apply(p1, d[0] * n, v);
    apply(p2, d[1] * n, v);
    p1.normal_impulse = total[0];
    p2.normal_impulse = total[1];
    return true;
  };
  // Both push.
  x = Eigen::Vector2d((k22 * -b[0] - k12 * -b[1]) / det, (k11 * -b[1] - k12 * -b[0]) / det);
  if (x[0] >= 0.0 && x[1] >= 0.0) return take(x);
  // Only the first pushes: the second separates.
  x = Eigen::Vector2d(-b[0] / k11, 0.0);
  if (x[0] >= 0.0 && k12 * x[0] + b[1] >= 0.0) return take(x);
  // Only the second pushes.
  x = Eigen::Vector2d(0.0, -b[1] / k22);
  if (x[1] >= 0.0 && k12 * x[1] + b[0] >= 0.0) return take(x);
  // Neither: both separate.
  if (b[0] >= 0.0 && b[1] >= 0.0) return take(Eigen::Vector2d::Zero());
  return false;  // no case holds (round-off): the sequential sweep decides
}

void ContactSolver::restitute(Eigen::VectorXd& v) {
  const double threshold = m_.settings.restitution_threshold;
  for (Point& p : points_) {
    if (p.restitution == 0.0 || p.approach > -threshold || p.normal_impulse == 0.0) continue;
    const double vn = p.normal.dot(relative_velocity(p, v));
    const double normal = std::max(p.normal_impulse - p.normal_mass * (vn + p.restitution * p.approach), 0.0);
    apply(p, (normal - p.normal_impulse) * p.normal, v);
    p.normal_impulse = normal;
  }
}

double ContactSolver::correct_positions(Eigen::VectorXd& q) const {
  const WorldSettings& s = m_.settings;
  double worst = 0.0;
  // Each body's pose, worked out when first needed and again after a point
  // moves it: a resting pile moves few bodies, and sin and cos are most of
  // the sweep's cost.
  thread_local std::vector<collision::Pose> poses;
  thread_local std::vector<char> known;
  poses.resize(m_.bodies.size());
  known.assign(m_.bodies.size(), 0);
  auto pose = [&](int i) -> const collision::Pose& {
    if (!known[static_cast<std::size_t>(i)]) {
      poses[static_cast<std::size_t>(i)] = pose_of(m_.bodies[static_cast<std::size_t>(i)], q);
      known[static_cast<std::size_t>(i)] = 1;
    }
    return poses[static_cast<std::size_t>(i)];
  };
  for (const Point& p : points_) {
    const BodyRecord& ra = m_.bodies[static_cast<std::size_t>(p.a)];
    const BodyRecord& rb = m_.bodies[static_cast<std::size_t>(p.b)];
    const collision::Pose pa = pose(p.a), pb = pose(p.b);
    const Vec2 a_point = pa.apply(p.local_a), b_point = pb.apply(p.local_b);
    Vec2 normal = p.normal;
    if (p.reference == 0) {
      // Along the line of the core points.
      const Vec2 d = b_point - a_point;
      if (d.norm() > 1e-12) normal = d.normalized();
    } else {
      // From the face's plane, turned with its body.
      const collision::Pose& face = p.reference == 1 ? pa : pb;
      const Vec2 out = face.rotate(p.local_normal);
      normal = p.reference == 1 ? out : Vec2(-out);
    }
    // Each surface a radius out from its core point.
    const Vec2 sa = a_point + p.radius_a * normal, sb = b_point - p.radius_b * normal;
    const double separation = normal.dot(b_point - a_point) - p.radius_a - p.radius_b;
    worst = std::min(worst, separation);
    const double c = std::clamp(s.baumgarte * (separation + s.contact_slop), -s.max_correction, 0.0);
    if (c == 0.0) continue;
    // The lever arms reach the touching point: the incident one for a face.
    const Vec2 at = p.reference == 1 ? sb : p.reference == 2 ? sa : Vec2(0.5 * (sa + sb));
    const Vec2 ra_now = at - pa.p, rb_now = at - pb.p;
    const double rna = cross(ra_now, normal), rnb = cross(rb_now, normal);
    const double k = ra.inv_mass + rb.inv_mass + ra.inv_inertia * rna * rna + rb.inv_inertia * rnb * rnb;
    if (k <= 0.0) continue;
    const Vec2 impulse = (-c / k) * normal;
    auto move = [&](const BodyRecord& b, const Vec2& r, const Vec2& j) {
      q[b.offset] += b.inv_mass * j.x();
      q[b.offset + 1] += b.inv_mass * j.y();
      if (b.kind == BodyKind::rigid) q[b.offset + 2] += b.inv_inertia * cross(r, j);
    };
    move(ra, ra_now, -impulse);
    move(rb, rb_now, impulse);
    known[static_cast<std::size_t>(p.a)] = known[static_cast<std::size_t>(p.b)] = 0;
  }
  return worst;
}

void ContactSolver::store(std::vector<ContactRecord>& out) const {
  out.clear();
  out.reserve(points_.size());
  for (const Point& p : points_) {
    const Vec2 friction = p.tangent_impulse * perp(p.normal);
    out.push_back({p.id_a, p.id_b, p.feature, Vec3(p.point.x(), p.point.y(), 0.0), Vec3(p.normal.x(), p.normal.y(), 0.0),
                   p.separation, p.normal_impulse, Vec3(friction.x(), friction.y(), 0.0)});
  }
  std::sort(out.begin(), out.end(), [](const ContactRecord& x, const ContactRecord& y) { return x.key() < y.key(); });
}

void ContactSolver::found(std::vector<FoundPoint>& out) const {
  out.clear();
  const auto v3 = [](const Vec2& x) { return Vec3(x.x(), x.y(), 0.0); };
  for (std::size_t first = 0; first < points_.size(); first += static_cast<std::size_t>(points_[first].count)) {
    for (int k = 0; k < points_[first].count; ++k) {
      const Point& p = points_[first + static_cast<std::size_t>(k)];
      FoundPoint f{p.a, p.b, p.id_a, p.id_b, p.feature, k == 0 ? p.count : 0, v3(p.point), v3(p.normal), p.separation,
                   p.friction, p.restitution, p.approach};
      f.reference = p.reference;
      f.local_normal = v3(p.local_normal);
      f.local_a = v3(p.local_a);
      f.local_b = v3(p.local_b);
      f.radius_a = p.radius_a;
      f.radius_b = p.radius_b;
      f.normal_impulse = p.normal_impulse;
      f.friction_impulse = v3(p.tangent_impulse * perp(p.normal));
      out.push_back(f);
    }
  }
}

}  // namespace linkage
