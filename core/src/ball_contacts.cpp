#include "ball_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace linkage {
namespace {

Vec3 position_of(const BodyRecord& b, const Eigen::VectorXd& q) { return q.segment<3>(b.offset); }

struct Ball {
  int body;
  Vec3 lo, hi;  // its box, grown by the margin and its reach
  double reach;  // how far it may move in the step
};

}  // namespace

BallContacts::BallContacts(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h) : m_(m) {
  const WorldSettings& s = m.settings;
  const double margin = s.contact_margin;
  std::vector<Ball> balls;
  std::vector<int> planes;
  for (int i = 0; i < static_cast<int>(m.bodies.size()); ++i) {
    const BodyRecord& b = m.bodies[static_cast<std::size_t>(i)];
    if (std::holds_alternative<Plane>(b.shape)) planes.push_back(i);
    const auto* disk = std::get_if<Disk>(&b.shape);
    if (!disk) continue;
    const double reach = h * v.segment<3>(b.offset).norm();
    const Vec3 c = position_of(b, d.q), grow = Vec3::Constant(disk->radius + margin + reach);
    balls.push_back({i, c - grow, c + grow, reach});
  }
  const std::set<std::pair<int, int>> pairs_joined = joined_pairs(m);
  const auto may_collide = [&](int a, int b) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const BodyRecord& rb = m.bodies[static_cast<std::size_t>(b)];
    if (ra.motion != Motion::dynamic && rb.motion != Motion::dynamic) return false;
    return may_touch(ra.filter, rb.filter) && !pairs_joined.count({std::min(a, b), std::max(a, b)});
  };
  const auto add = [&](int a, int b, bool plane, const Vec3& normal, double separation, const Vec3& point) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const BodyRecord& rb = m.bodies[static_cast<std::size_t>(b)];
    Point p;
    p.a = a;
    p.b = b;
    p.offset_a = ra.offset;
    p.offset_b = rb.offset;
    p.inv_a = ra.inv_mass;
    p.inv_b = rb.inv_mass;
    p.id_a = ra.id;
    p.id_b = rb.id;
    p.plane = plane;
    p.radius_a = plane ? 0.0 : std::get<Disk>(ra.shape).radius;
    p.radius_b = std::get<Disk>(rb.shape).radius;
    p.normal = normal;
    p.point = point;
    p.separation = separation;
    const double w = p.inv_a + p.inv_b;
    p.mass = w > 0.0 ? 1.0 / w : 0.0;
    p.friction = std::sqrt(ra.material.friction * rb.material.friction);
    p.restitution = std::max(ra.material.restitution, rb.material.restitution);
    p.approach = normal.dot(relative_velocity(p, v));
    p.bias = separation > 0.0 ? -separation / h : 0.0;
    points_.push_back(p);
  };
  // Sort and sweep along the axis the balls spread over most (a column as
  // cheap as a row); the boxes' other axes then decide. At most
  // kContactPairsPerBody pairs a ball, planes' included: the first met.
  int axis = 0;
  if (!balls.empty()) {
    Vec3 lo = balls.front().lo + balls.front().hi, hi = lo;
    for (const Ball& b : balls) {
      lo = lo.cwiseMin(b.lo + b.hi);
      hi = hi.cwiseMax(b.lo + b.hi);
    }
    (hi - lo).maxCoeff(&axis);
  }
  std::sort(balls.begin(), balls.end(),
            [axis](const Ball& x, const Ball& y) { return x.lo[axis] < y.lo[axis] || (x.lo[axis] == y.lo[axis] && x.body < y.body); });
  const std::size_t limit = kContactPairsPerBody * balls.size();
  std::size_t looked = 0;
  for (std::size_t i = 0; i < balls.size() && !capped_; ++i)
    for (std::size_t j = i + 1; j < balls.size() && balls[j].lo[axis] <= balls[i].hi[axis]; ++j) {
      if (balls[i].hi.x() < balls[j].lo.x() || balls[j].hi.x() < balls[i].lo.x() ||
          balls[i].hi.y() < balls[j].lo.y() || balls[j].hi.y() < balls[i].lo.y() ||
          balls[i].hi.z() < balls[j].lo.z() || balls[j].hi.z() < balls[i].lo.z())
        continue;
      if (looked++ == limit) {
        capped_ = true;
        break;
      }
      const int a = std::min(balls[i].body, balls[j].body), b = std::max(balls[i].body, balls[j].body);
      if (!may_collide(a, b)) continue;
      const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
      const BodyRecord& rb = m.bodies[static_cast<std::size_t>(b)];
      const double r_a = std::get<Disk>(ra.shape).radius, r_b = std::get<Disk>(rb.shape).radius;
      const Vec3 pa = position_of(ra, d.q), between = position_of(rb, d.q) - pa;
      const double distance = between.norm();
      const double separation = distance - r_a - r_b;
      // Whatever may touch within the step is a contact (speculative).
      if (separation > margin + balls[i].reach + balls[j].reach) continue;
      // Centres that coincide give no direction: push along y.
      const Vec3 normal = distance > 0.0 ? Vec3(between / distance) : Vec3(Vec3::UnitY());
      add(a, b, false, normal, separation, pa + (r_a + 0.5 * separation) * normal);
    }
  // Planes meet every ball; the plane is the pair's first body.
  for (const int a : planes) {
    const BodyRecord& ra = m.bodies[static_cast<std::size_t>(a)];
    const Vec3 origin = position_of(ra, d.q), normal = std::get<Plane>(ra.shape).normal;
    for (const Ball& ball : balls) {
      if (capped_) break;
      if (!may_collide(a, ball.body)) continue;
      if (looked++ == limit) {
        capped_ = true;
        break;
      }
      const BodyRecord& rb = m.bodies[static_cast<std::size_t>(ball.body)];
      const Vec3 centre = position_of(rb, d.q);
      const double r = std::get<Disk>(rb.shape).radius;
      const double separation = normal.dot(centre - origin) - r;
      if (separation > margin + ball.reach) continue;
      add(a, ball.body, true, normal, separation, centre - (r + 0.5 * separation) * normal);
    }
  }
  std::sort(points_.begin(), points_.end(),
            [](const Point& x, const Point& y) { return std::tie(x.id_a, x.id_b) < std::tie(y.id_a, y.id_b); });
  if (!s.warm_start) return;
  for (Point& p : points_) {
    const auto key = std::tuple(p.id_a, p.id_b, std::uint32_t{0});
    const auto it = std::lower_bound(d.contacts.begin(), d.contacts.end(), key,
                                     [](const ContactRecord& c, const auto& k) { return c.key() < k; });
    if (it == d.contacts.end() || it->key() != key) continue;
    p.normal_impulse = it->normal_impulse;
    // Only what lies across today's normal still acts as friction.
    p.friction_impulse = it->friction_impulse - p.normal * p.normal.dot(it->friction_impulse);
  }
}

Vec3 BallContacts::relative_velocity(const Point& p, const Eigen::VectorXd& v) {
  return v.segment<3>(p.offset_b) - v.segment<3>(p.offset_a);
}

void BallContacts::apply(const Point& p, const Vec3& impulse, Eigen::VectorXd& v) {
  v.segment<3>(p.offset_a) -= p.inv_a * impulse;
  v.segment<3>(p.offset_b) += p.inv_b * impulse;
}

void BallContacts::warm_start(Eigen::VectorXd& v) const {
  for (const Point& p : points_) apply(p, p.normal_impulse * p.normal + p.friction_impulse, v);
}

void BallContacts::sweep(Eigen::VectorXd& v) {
  for (Point& p : points_) {
    // Friction first, bounded by the normal impulse as it stands.
    const Vec3 rel = relative_velocity(p, v);
    const Vec3 slip = rel - p.normal * p.normal.dot(rel);
    Vec3 friction = p.friction_impulse - p.mass * slip;
    const double limit = p.friction * p.normal_impulse, size = friction.norm();
    if (size > limit) friction *= limit / size;
    apply(p, friction - p.friction_impulse, v);
    p.friction_impulse = friction;

    const double vn = p.normal.dot(relative_velocity(p, v));
    const double normal = std::max(p.normal_impulse - p.mass * (vn - p.bias), 0.0);
    apply(p, (normal - p.normal_impulse) * p.normal, v);
    p.normal_impulse = normal;
  }
}

void BallContacts::restitute(Eigen::VectorXd& v) {
  const double threshold = m_.settings.restitution_threshold;
  for (Point& p : points_) {
    if (p.restitution == 0.0 || p.approach > -threshold || p.normal_impulse == 0.0) continue;
    const double vn = p.normal.dot(relative_velocity(p, v));
    const double normal = std::max(p.normal_impulse - p.mass * (vn + p.restitution * p.approach), 0.0);
    apply(p, (normal - p.normal_impulse) * p.normal, v);
    p.normal_impulse = normal;
  }
}

double BallContacts::separation_at(const Point& p, const Eigen::VectorXd& q, Vec3& normal) {
  const Vec3 a = q.segment<3>(p.offset_a), b = q.segment<3>(p.offset_b);
  if (p.plane) {
    normal = p.normal;
    return normal.dot(b - a) - p.radius_b;
  }
  const Vec3 between = b - a;
  const double distance = between.norm();
  normal = distance > 0.0 ? Vec3(between / distance) : p.normal;
  return distance - p.radius_a - p.radius_b;
}

double BallContacts::correct_positions(Eigen::VectorXd& q) const {
  const WorldSettings& s = m_.settings;
  double worst = 0.0;
  for (const Point& p : points_) {
    Vec3 normal;
    const double separation = separation_at(p, q, normal);
    worst = std::min(worst, separation);
    const double c = std::clamp(s.baumgarte * (separation + s.contact_slop), -s.max_correction, 0.0);
    if (c == 0.0 || p.mass == 0.0) continue;
    const Vec3 impulse = (-c * p.mass) * normal;
    q.segment<3>(p.offset_a) -= p.inv_a * impulse;
    q.segment<3>(p.offset_b) += p.inv_b * impulse;
  }
  return worst;
}

void BallContacts::store(std::vector<ContactRecord>& out) const {
  out.clear();
  out.reserve(points_.size());
  for (const Point& p : points_)
    out.push_back({p.id_a, p.id_b, 0, p.point, p.normal, p.separation, p.normal_impulse, p.friction_impulse});
  // points_ is sorted by bodies, and each pair has one point: sorted by key.
}

void BallContacts::found(std::vector<FoundPoint>& out) const {
  out.clear();
  for (const Point& p : points_) {
    FoundPoint f{p.a, p.b, p.id_a, p.id_b, 0, 1, p.point, p.normal, p.separation, p.friction, p.restitution, p.approach};
    if (p.plane) {  // from the plane through a's position to b's centre, a radius out
      f.reference = 1;
      f.local_normal = p.normal;
    }
    f.radius_a = p.radius_a;  // 0 for a plane
    f.radius_b = p.radius_b;
    f.normal_impulse = p.normal_impulse;
    f.friction_impulse = p.friction_impulse;
    out.push_back(f);
  }
}

}  // namespace linkage
