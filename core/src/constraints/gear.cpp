// Gear (2D): C = r_a θ_a + r_b θ_b − c,   Ċ = r_a ω_a + r_b ω_b,   J = [r_a e_θ | r_b e_θ],   J̇q̇ = 0.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const GearDef&) { return "gear"; }
BodyPair bodies_of(const GearDef& c) { return {c.a, c.b}; }
int row_count(const GearDef&, int) { return 1; }

Status validate(const GearDef& c, int dim, BodyFacts a, BodyFacts b) {
  LINKAGE_CHECK(need_2d("gear", dim));
  if (c.a.is_null()) return invalid_argument("a", "must name a body; a gear meshes two bodies");
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(need_rigid("a", a, false));
  LINKAGE_CHECK(need_rigid("b", b, false));
  LINKAGE_CHECK(check_positive("radius_a", c.radius_a));
  LINKAGE_CHECK(check_positive("radius_b", c.radius_b));
  return check_finite_or_current("offset", c.offset);
}

void resolve(GearDef& c, const BodyView& a, const BodyView& b, double t) {
  resolve_offset(c, a, b, t);
}

void evaluate(const GearDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  set_equality(out, 1);
  out.C[0] = c.radius_a * a.theta + c.radius_b * b.theta - c.offset;
  out.Cdot[0] = c.radius_a * a.omega + c.radius_b * b.omega;
  out.Ja(0, 2) = c.radius_a;
  out.Jb(0, 2) = c.radius_b;
}

}  // namespace linkage
