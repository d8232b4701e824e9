// Point on a plane (3D): C = d·n with a fixed normal n (3D bodies are
// particles, so the plane does not turn).
//   Ċ = ḋ·n,   J = nᵀ [−J_pa | J_pb],   J̇q̇ = (bias_b − bias_a)·n = 0.
#include "parts.hpp"

namespace linkage {

void evaluate(const PointOnPlaneDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  const Vec3 n = c.normal.normalized();
  set_equality(out, 1);
  out.C[0] = s.d.dot(n);
  out.Cdot[0] = s.ddot.dot(n);
  out.jdot_qdot[0] = s.bias.dot(n);
  set_separation_row(out, 0, s, n);
}

}  // namespace linkage
