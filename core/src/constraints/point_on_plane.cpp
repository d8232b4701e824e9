// Point on a plane (3D): C = d·n with a fixed normal n (3D bodies are
// particles, so the plane does not turn).
//   Ċ = ḋ·n,   J = nᵀ [−J_pa | J_pb],   J̇q̇ = (bias_b − bias_a)·n = 0.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const PointOnPlaneDef&) { return "point_on_plane"; }
BodyPair bodies_of(const PointOnPlaneDef& c) { return {c.a, c.b}; }
int row_count(const PointOnPlaneDef&, int) { return 1; }

Status validate(const PointOnPlaneDef& c, int dim, BodyFacts, BodyFacts) {
  if (dim != 3) return invalid_argument("point_on_plane", "needs a 3D world; in 2D use point_on_line");
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_direction("normal", c.normal, dim);
}

void resolve(PointOnPlaneDef&, const BodyView&, const BodyView&, double) {}  // nothing is "current"

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
