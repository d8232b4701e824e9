// Point on a circle (the bead on a wire; a sphere in 3D), Witkin's form:
//   C = ½(d·d − R²),   Ċ = d·ḋ,   J = dᵀ [−J_pa | J_pb],   J̇q̇ = ḋ·ḋ + d·(bias_b − bias_a).
// With a fixed centre at the origin this gives the seeds' closed form
// λ = (−f·x − m ẋ·ẋ)/(x·x).
#include "parts.hpp"

namespace linkage {

void evaluate(const PointOnCircleDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  set_equality(out, 1);
  out.C[0] = 0.5 * (s.d.squaredNorm() - c.radius * c.radius);
  out.Cdot[0] = s.d.dot(s.ddot);
  out.jdot_qdot[0] = s.ddot.squaredNorm() + s.d.dot(s.bias);
  set_separation_row(out, 0, s, s.d);
}

}  // namespace linkage
