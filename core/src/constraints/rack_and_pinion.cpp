// Rack and pinion (2D). The rack a carries an anchor p_a and an axis u (turning
// with a); the pinion b turns about its centre x_b. With e = p_a − x_b:
//   C = e·u − r θ_b − c,
//   Ċ = ė·u + e·u̇ − r ω_b,   u̇ = ω_a u⊥ (0 for a particle rack),
//   J_a = uᵀ J_pa + (e·u⊥) e_θ,   J_b = [−uᵀ, −r],
//   J̇q̇ = bias_a·u + 2 ė·u̇ − ω_a² e·u.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const RackAndPinionDef&) { return "rack_and_pinion"; }
BodyPair bodies_of(const RackAndPinionDef& c) { return {c.rack, c.pinion}; }
int row_count(const RackAndPinionDef&, int) { return 1; }

Status validate(const RackAndPinionDef& c, int dim, BodyFacts, BodyFacts b) {
  LINKAGE_CHECK(need_2d("rack_and_pinion", dim));
  if (c.rack.is_null()) return invalid_argument("rack", "must name a body");
  LINKAGE_CHECK(check_pair(c.rack, c.pinion, "rack", "pinion"));
  LINKAGE_CHECK(need_rigid("pinion", b, false));
  LINKAGE_CHECK(check_vec("anchor", c.anchor, dim));
  LINKAGE_CHECK(check_direction("axis", c.axis, dim));
  LINKAGE_CHECK(check_positive("radius", c.radius));
  return check_finite_or_current("offset", c.offset);
}

void resolve(RackAndPinionDef& c, const BodyView& a, const BodyView& b, double t) {
  resolve_offset(c, a, b, t);
}

void evaluate(const RackAndPinionDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  const Anchor pa = anchor(a, c.anchor);
  const Vec3 u = body_direction(a, c.axis);
  const double w = a.rigid ? a.omega : 0.0;
  const Vec3 udot = w * perp(u);
  const Vec3 e = pa.p - b.x;
  const Vec3 edot = pa.pdot - b.v;
  set_equality(out, 1);
  out.C[0] = e.dot(u) - c.radius * b.theta - c.offset;
  out.Cdot[0] = edot.dot(u) + e.dot(udot) - c.radius * b.omega;
  out.jdot_qdot[0] = pa.bias.dot(u) + 2.0 * edot.dot(udot) - w * w * e.dot(u);
  out.Ja.row(0) = pa.jacobian_row(u);
  if (a.rigid) out.Ja(0, 2) += e.dot(perp(u));
  out.Jb(0, 0) = -u.x();
  out.Jb(0, 1) = -u.y();
  out.Jb(0, 2) = -c.radius;
}

}  // namespace linkage
