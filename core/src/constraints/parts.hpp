#pragma once
// Reusable parts of constraints, with their kinematics written out.
//
// An anchor r (body frame) on a 2D rigid body sits at p = x + R(θ) r. With
// s = R(θ) r and s⊥ = (−s_y, s_x):
//   ṗ = v + ω s⊥,    J_p = ∂p/∂(x, y, θ) = [I₂ | s⊥],    p̈ = J_p q̈ − ω² s.
// The last term is the anchor's J̇q̇ ("bias" acceleration). A particle's anchor
// is a fixed offset: J_p = I, no bias. The world's anchor is a fixed point.

#include <cmath>
#include <limits>

#include "constraint.hpp"

namespace linkage {

inline Vec3 perp(const Vec3& s) { return Vec3(-s.y(), s.x(), 0.0); }

// R(θ) r with the body's own cos θ, sin θ (worked out once per body).
inline Vec3 rotate(const BodyView& b, const Vec3& r) {
  return Vec3(b.cos * r.x() - b.sin * r.y(), b.sin * r.x() + b.cos * r.y(), r.z());
}

// A direction fixed in a body's frame, in world coordinates (unit length).
inline Vec3 body_direction(const BodyView& b, const Vec3& local) {
  const Vec3 u = b.rigid ? rotate(b, local) : local;
  return u.normalized();
}

struct Anchor {
  Vec3 p = Vec3::Zero();     // world position
  Vec3 pdot = Vec3::Zero();  // world velocity
  Vec3 bias = Vec3::Zero();  // J̇q̇: the acceleration at zero q̈
  Vec3 s = Vec3::Zero();     // p − x, the lever arm
  bool exists = false, rigid = false;

  // gᵀ J_p, J_p = ∂p/∂(body DOF): (g_x, g_y, g·s⊥) on a rigid body, g on a
  // particle, nothing on the world.
  Eigen::RowVector3d jacobian_row(const Vec3& g) const {
    if (!exists) return Eigen::RowVector3d::Zero();
    return rigid ? Eigen::RowVector3d(g.x(), g.y(), g.dot(perp(s))) : Eigen::RowVector3d(g.transpose());
  }
};

inline Anchor anchor(const BodyView& b, const Vec3& local) {
  Anchor a;
  if (!b.exists) {
    a.p = local;
    return a;
  }
  a.exists = true;
  if (b.rigid) {
    a.rigid = true;
    a.s = rotate(b, local);
    a.p = b.x + a.s;
    a.pdot = b.v + b.omega * perp(a.s);
    a.bias = -b.omega * b.omega * a.s;
  } else {
    a.s = local;
    a.p = b.x + local;
    a.pdot = b.v;
  }
  return a;
}

// The relative vector d = p_b − p_a between two anchors and its derivatives.
struct Separation {
  Anchor a, b;
  Vec3 d, ddot, bias;  // p_b − p_a, ṗ_b − ṗ_a, its J̇q̇
};

inline Separation separation(const BodyView& ba, const Vec3& la, const BodyView& bb, const Vec3& lb) {
  Separation s{anchor(ba, la), anchor(bb, lb), {}, {}, {}};
  s.d = s.b.p - s.a.p;
  s.ddot = s.b.pdot - s.a.pdot;
  s.bias = s.b.bias - s.a.bias;
  return s;
}

// Row r of a constraint whose C depends on q only through d, with ∂C/∂d = g:
// J_a = −gᵀ J_pa, J_b = gᵀ J_pb.
inline void set_separation_row(Rows& out, int r, const Separation& s, const Vec3& g) {
  out.Ja.row(r) = -s.a.jacobian_row(g);
  out.Jb.row(r) = s.b.jacobian_row(g);
}

inline void set_equality(Rows& out, int count) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  out.count = count;
  for (int r = 0; r < count; ++r) {
    out.lo[r] = -inf;
    out.hi[r] = inf;
  }
}

}  // namespace linkage
