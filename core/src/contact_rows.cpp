#include "contact_rows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "constraints/constraint.hpp"
#include "contacts.hpp"
#include "world_data.hpp"

namespace linkage {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A friction bound that moves by less than this share has converged.
constexpr double kBoundTolerance = 1e-10;

// A body's frame at q: its position, its turn (2D rigid bodies only) and its velocity.
struct Frame {
  Vec3 x = Vec3::Zero(), v = Vec3::Zero();
  double c = 1.0, s = 0.0, omega = 0.0;
  bool rigid = false;

  Vec3 rotate(const Vec3& l) const { return {c * l.x() - s * l.y(), s * l.x() + c * l.y(), l.z()}; }
  // The velocity of the material point at arm r from the centre.
  Vec3 velocity(const Vec3& r) const { return v + omega * Vec3(-r.y(), r.x(), 0.0); }
};

Frame frame_of(const WorldModel& m, int body, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(body)];
  Frame f;
  const int dim = m.settings.dimension;
  for (int i = 0; i < dim; ++i) {
    f.x[i] = q[r.offset + i];
    f.v[i] = v[r.offset + i];
  }
  if (r.kind == BodyKind::rigid) {
    f.rigid = true;
    f.c = std::cos(q[r.offset + 2]);
    f.s = std::sin(q[r.offset + 2]);
    f.omega = v[r.offset + 2];
  }
  return f;
}

double cross2(const Vec3& r, const Vec3& n) { return r.x() * n.y() - r.y() * n.x(); }

// J of a row whose rate is d · (velocity of b's point at arm_b − a's at arm_a).
void write_row(Rows& out, int row, const Vec3& d, const Frame& a, const Vec3& arm_a, const Frame& b, const Vec3& arm_b,
               int dim) {
  for (int i = 0; i < dim; ++i) {
    out.Ja(row, i) = -d[i];
    out.Jb(row, i) = d[i];
  }
  if (a.rigid) out.Ja(row, 2) = -cross2(arm_a, d);
  if (b.rigid) out.Jb(row, 2) = cross2(arm_b, d);
  out.Cdot[row] = d.dot(b.velocity(arm_b) - a.velocity(arm_a));
}

// A point's separation at the frames, the normal it is measured along, the
// lever arms its row acts through and where it touches.
struct Measure {
  double separation = 0.0;
  Vec3 normal, arm_a, arm_b, at;
  Vec3 mid;  // midway between the surfaces (the contact records' point)
};

Measure measure(const FoundPoint& p, const Frame& a, const Frame& b) {
  Measure out;
  const Vec3 pa = a.x + a.rotate(p.local_a), pb = b.x + b.rotate(p.local_b);
  switch (p.reference) {
    case 0: {  // along the line of the core points, each surface a radius out
      const Vec3 d = pb - pa;
      const double distance = d.norm();
      out.normal = distance > 1e-12 ? Vec3(d / distance) : p.normal;
      out.separation = d.dot(out.normal) - p.radius_a - p.radius_b;
      out.arm_a = pa - a.x;
      out.arm_b = pb - b.x;
      out.at = out.mid = 0.5 * (pa + p.radius_a * out.normal + pb - p.radius_b * out.normal);
      return out;
    }
    case 1:  // a's face, turned with a; b's surface, a radius out from its core point, touches it
      out.normal = a.rotate(p.local_normal);
      out.at = pb - p.radius_b * out.normal;
      break;
    default:  // b's face; a's surface
      out.normal = -b.rotate(p.local_normal);
      out.at = pa + p.radius_a * out.normal;
      break;
  }
  out.separation = out.normal.dot(pb - pa) - p.radius_a - p.radius_b;
  out.mid = out.at + (p.reference == 1 ? -0.5 : 0.5) * out.separation * out.normal;
  // The separation's gradient acts through the touching point on both bodies.
  out.arm_a = out.at - a.x;
  out.arm_b = out.at - b.x;
  return out;
}

// A unit direction across n: the slip if there is one, else a fixed one.
Vec3 across(const Vec3& n, const Vec3& slip) {
  Vec3 t = slip - n * n.dot(slip);
  if (t.norm() > 1e-9 * std::max(slip.norm(), 1e-300)) return t.normalized();
  const int axis = std::abs(n.x()) < 0.6 ? 0 : std::abs(n.y()) < 0.6 ? 1 : 2;
  t = n.cross(Vec3::Unit(axis));
  return t.normalized();
}

// A group's first friction direction across n: the normal turned +90° in 2D,
// the slip when found in 3D.
Vec3 first_tangent(const Vec3& n, const Vec3& slip, int dim) {
  return dim == 2 ? Vec3(-n.y(), n.x(), 0.0) : across(n, slip);
}

}  // namespace

void ContactRows::clear() {
  points_.clear();
  groups_.clear();
  impulse_.clear();
  rows_ = 0;
  capped_ = false;
  model_ = topology_ = ~0ull;
  ++stamp_;
}

bool ContactRows::active_for(const WorldModel& m) const {
  return !groups_.empty() && model_ == m.model_version && topology_ == m.topology_version;
}

void ContactRows::add_group(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, int first, int end) {
  const FoundPoint& p = points_[static_cast<std::size_t>(first)];
  Group g;
  g.a = p.a;
  g.b = p.b;
  g.first_point = first;
  g.points = end - first;
  g.friction = p.friction;
  g.rows = g.points + (g.friction > 0.0 ? dim_ - 1 : 0);
  if (dim_ == 3) {
    const Frame fa = frame_of(m, p.a, d.q, v), fb = frame_of(m, p.b, d.q, v);
    g.slip = fb.v - fa.v;
  }
  rows_ += g.rows;
  impulse_.resize(static_cast<std::size_t>(rows_), 0.0);
  groups_.push_back(g);
}

void ContactRows::find(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h) {
  clear();
  if (!m.settings.contacts || m.settings.dynamics != Dynamics::velocity_projection) return;
  const std::unique_ptr<Contacts> found = find_contacts(m, d, v, h);
  found->found(points_);
  capped_ = found->capped();
  model_ = m.model_version;
  topology_ = m.topology_version;
  dim_ = m.settings.dimension;
  for (int i = 0; i < static_cast<int>(points_.size());) {
    const int end = i + std::max(points_[static_cast<std::size_t>(i)].manifold, 1);
    add_group(m, d, v, i, end);
    i = end;
  }
}

bool ContactRows::add_missed(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h, double tolerance) {
  if (!m.settings.contacts || m.settings.dynamics != Dynamics::velocity_projection) return false;
  if (model_ != m.model_version || topology_ != m.topology_version) return false;
  std::vector<FoundPoint> now;
  const std::unique_ptr<Contacts> found = find_contacts(m, d, v, h);
  found->found(now);
  capped_ = capped_ || found->capped();
  std::vector<std::tuple<BodyId, BodyId, std::uint32_t>> known;
  known.reserve(points_.size());
  for (const FoundPoint& p : points_) known.emplace_back(p.id_a, p.id_b, p.feature);
  std::sort(known.begin(), known.end());
  bool added = false;
  for (std::size_t i = 0; i < now.size();) {
    const std::size_t end = i + static_cast<std::size_t>(std::max(now[i].manifold, 1));
    const int first = static_cast<int>(points_.size());
    for (std::size_t k = i; k < end; ++k) {
      const FoundPoint& p = now[k];
      if (p.separation >= -tolerance || std::binary_search(known.begin(), known.end(), std::tuple(p.id_a, p.id_b, p.feature)))
        continue;
      points_.push_back(p);
    }
    const int count = static_cast<int>(points_.size()) - first;
    if (count > 0) {
      points_[static_cast<std::size_t>(first)].manifold = count;
      for (int k = 1; k < count; ++k) points_[static_cast<std::size_t>(first + k)].manifold = 0;
      add_group(m, d, v, first, first + count);
      added = true;
    }
    i = end;
  }
  if (added) ++stamp_;
  return added;
}

void ContactRows::evaluate(const WorldModel& m, int gi, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Rows& out) const {
  const Group& g = groups_[static_cast<std::size_t>(gi)];
  const int dim = m.settings.dimension;
  const Frame a = frame_of(m, g.a, q, v), b = frame_of(m, g.b, q, v);
  out = Rows{};
  out.count = g.rows;
  Vec3 normal = Vec3::UnitX(), centre = Vec3::Zero();
  for (int k = 0; k < g.points; ++k) {
    const Measure at = measure(points_[static_cast<std::size_t>(g.first_point + k)], a, b);
    // C = −separation: its rate is −n · (the points' relative velocity).
    write_row(out, k, -at.normal, a, at.arm_a, b, at.arm_b, dim);
    out.C[k] = -at.separation;
    out.lo[k] = -kInf;
    out.hi[k] = 0.0;
    if (k == 0) normal = at.normal;
    centre += at.at / g.points;
  }
  if (g.rows == g.points) return;
  const Vec3 arm_a = centre - a.x, arm_b = centre - b.x;
  const Vec3 t1 = first_tangent(normal, g.slip, dim);
  write_row(out, g.points, t1, a, arm_a, b, arm_b, dim);
  if (dim == 3) write_row(out, g.points + 1, normal.cross(t1), a, arm_a, b, arm_b, dim);
  for (int r = g.points; r < g.rows; ++r) {
    out.lo[r] = -kInf;
    out.hi[r] = kInf;
  }
}

bool ContactRows::bound_friction(Eigen::VectorXd& lo, Eigen::VectorXd& hi, const Eigen::VectorXd& lambda, int first) const {
  thread_local std::vector<double> bounds;
  bounds.clear();
  double largest = 0.0;
  int row = first;
  for (const Group& g : groups_) {
    double pushed = 0.0;
    for (int k = 0; k < g.points; ++k)
      pushed += lambda.size() ? std::max(-lambda[row + k], 0.0)
                              : points_[static_cast<std::size_t>(g.first_point + k)].normal_impulse;
    bounds.push_back(g.friction * pushed);
    largest = std::max(largest, bounds.back());
    row += g.rows;
  }
  // Round-off of the largest bound: a bound near 0 (a point that barely
  // pushes) moves by that much from solve to solve.
  const double slack = kBoundTolerance * largest;
  bool moved = false;
  row = first;
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const Group& g = groups_[gi];
    const double bound = bounds[gi];
    for (int r = row + g.points; r < row + g.rows; ++r) {
      // Only a row at its bound, or past the new one, needs another solve:
      // one that sticks does not feel where its bound lies.
      if (lambda.size()) {
        const double size = std::abs(lambda[r]);
        moved = moved || size > bound + slack || (size >= hi[r] - slack && std::abs(hi[r] - bound) > slack);
      }
      lo[r] = -bound;
      hi[r] = bound;
    }
    row += g.rows;
  }
  return moved;
}

void ContactRows::warm_start(Eigen::VectorXd& lambda, int first) const {
  int row = first;
  for (const Group& g : groups_) {
    for (int k = 0; k < g.rows; ++k)
      lambda[row + k] = k < g.points ? -points_[static_cast<std::size_t>(g.first_point + k)].normal_impulse : 0.0;
    row += g.rows;
  }
}

void ContactRows::bounce_targets(const Eigen::VectorXd& lambda, int first, double threshold, Eigen::VectorXd& target) const {
  int row = first;
  for (const Group& g : groups_) {
    for (int k = 0; k < g.rows; ++k) {
      target[row + k] = std::numeric_limits<double>::quiet_NaN();
      if (k >= g.points) continue;
      const FoundPoint& p = points_[static_cast<std::size_t>(g.first_point + k)];
      if (p.restitution > 0.0 && p.approach < -threshold && lambda[row + k] < 0.0)
        target[row + k] = p.restitution * p.approach;
    }
    row += g.rows;
  }
}

void ContactRows::add_impulses(const Eigen::VectorXd& lambda, int first, double scale) {
  for (int r = 0; r < rows_; ++r) impulse_[static_cast<std::size_t>(r)] += scale * lambda[first + r];
}

void ContactRows::store(const WorldModel& m, const WorldData& d, std::vector<ContactRecord>& out) const {
  out.clear();
  out.reserve(points_.size());
  int row = 0;
  for (const Group& g : groups_) {
    const FoundPoint& first = points_[static_cast<std::size_t>(g.first_point)];
    double pushed = 0.0;
    for (int k = 0; k < g.points; ++k) pushed += std::max(0.0, -impulse_[static_cast<std::size_t>(row + k)]);
    // The directions when found (the friction rows turn with the bodies, by little within a substep).
    const Vec3& n = first.normal;
    Vec3 friction = Vec3::Zero();
    if (g.rows > g.points) {
      const Vec3 t1 = first_tangent(n, g.slip, dim_);
      friction = impulse_[static_cast<std::size_t>(row + g.points)] * t1;
      if (g.rows == g.points + 2) friction += impulse_[static_cast<std::size_t>(row + g.points + 1)] * n.cross(t1);
    }
    // Where the step left the points: the projection held them there (a
    // point added after a projection was found deeper than it ends).
    const Frame fa = frame_of(m, g.a, d.q, d.v), fb = frame_of(m, g.b, d.q, d.v);
    for (int k = 0; k < g.points; ++k) {
      const FoundPoint& p = points_[static_cast<std::size_t>(g.first_point + k)];
      const double normal = std::max(0.0, -impulse_[static_cast<std::size_t>(row + k)]);
      // A manifold's friction is shared as its normal impulse is.
      const double share = pushed > 0.0 ? normal / pushed : 1.0 / g.points;
      const Measure now = measure(p, fa, fb);
      out.push_back({p.id_a, p.id_b, p.feature, now.mid, now.normal, now.separation, normal, share * friction});
    }
    row += g.rows;
  }
  std::sort(out.begin(), out.end(), [](const ContactRecord& x, const ContactRecord& y) { return x.key() < y.key(); });
}

}  // namespace linkage
