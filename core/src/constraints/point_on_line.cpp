// Point on a line (slider): b's anchor stays on the line through a's anchor
// along u, which turns with a. For each normal n of u:
//   C = d·n,   Ċ = ḋ·n + d·ṅ,   ṅ = ω_a n⊥ (2D rigid a; 0 otherwise),
//   J_b = nᵀ J_pb,   J_a = −nᵀ J_pa + (d·n⊥) e_θ,
//   J̇q̇ = (bias_b − bias_a)·n + 2 ḋ·ṅ − ω_a² d·n.
// 2D: one normal, u⊥. 3D: two normals (a is a particle or the world).
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const PointOnLineDef&) { return "point_on_line"; }
BodyPair bodies_of(const PointOnLineDef& c) { return {c.a, c.b}; }
int row_count(const PointOnLineDef&, int dim) { return dim == 2 ? 1 : 2; }

Status validate(const PointOnLineDef& c, int dim, BodyFacts, BodyFacts) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_direction("axis", c.axis, dim);
}

void resolve(PointOnLineDef&, const BodyView&, const BodyView&, double) {}  // nothing is "current"

void evaluate(const PointOnLineDef& c, const BodyView& a, const BodyView& b, double, int dim, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  const Vec3 u = body_direction(a, c.axis);
  Vec3 normals[2];
  if (dim == 2) {
    normals[0] = perp(u);
  } else {
    // Any orthonormal pair across u; fixed, since u cannot turn in 3D.
    normals[0] = u.unitOrthogonal();
    normals[1] = u.cross(normals[0]);
  }
  const int rows = dim == 2 ? 1 : 2;
  const double w = a.rigid ? a.omega : 0.0;
  set_equality(out, rows);
  for (int r = 0; r < rows; ++r) {
    const Vec3& n = normals[r];
    const Vec3 ndot = w * perp(n);
    out.C[r] = s.d.dot(n);
    out.Cdot[r] = s.ddot.dot(n) + s.d.dot(ndot);
    out.jdot_qdot[r] = s.bias.dot(n) + 2.0 * s.ddot.dot(ndot) - w * w * s.d.dot(n);
    set_separation_row(out, r, s, n);
    if (a.rigid) out.Ja(r, 2) += s.d.dot(perp(n));
  }
}

}  // namespace linkage
