// Point on a circle (the bead on a wire; a sphere in 3D), Witkin's form:
//   C = ½(d·d − R²),   Ċ = d·ḋ,   J = dᵀ [−J_pa | J_pb],   J̇q̇ = ḋ·ḋ + d·(bias_b − bias_a).
// With a fixed centre at the origin this gives the seeds' closed form
// λ = (−f·x − m ẋ·ẋ)/(x·x).
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const PointOnCircleDef&) { return "point_on_circle"; }
BodyPair bodies_of(const PointOnCircleDef& c) { return {c.a, c.b}; }
int row_count(const PointOnCircleDef&, int) { return 1; }

Status validate(const PointOnCircleDef& c, int dim, BodyFacts, BodyFacts) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_length_or_current("radius", c.radius);
}

void resolve(PointOnCircleDef& c, const BodyView& a, const BodyView& b, double) {
  if (std::isnan(c.radius)) c.radius = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
}

void evaluate(const PointOnCircleDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  set_equality(out, 1);
  out.C[0] = 0.5 * (s.d.squaredNorm() - c.radius * c.radius);
  out.Cdot[0] = s.d.dot(s.ddot);
  out.jdot_qdot[0] = s.ddot.squaredNorm() + s.d.dot(s.bias);
  set_separation_row(out, 0, s, s.d);
}

}  // namespace linkage
