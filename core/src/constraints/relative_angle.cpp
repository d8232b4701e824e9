// Relative angle (2D): C = θ_b − θ_a − φ,   Ċ = ω_b − ω_a,   J = [−e_θ | e_θ],   J̇q̇ = 0.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const RelativeAngleDef&) { return "relative_angle"; }
BodyPair bodies_of(const RelativeAngleDef& c) { return {c.a, c.b}; }
int row_count(const RelativeAngleDef&, int) { return 1; }

Status validate(const RelativeAngleDef& c, int dim, BodyFacts a, BodyFacts b) {
  LINKAGE_CHECK(need_2d("relative_angle", dim));
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(need_rigid("a", a, true));
  LINKAGE_CHECK(need_rigid("b", b, false));
  return check_finite_or_current("angle", c.angle);
}

void resolve(RelativeAngleDef& c, const BodyView& a, const BodyView& b, double) {
  if (std::isnan(c.angle)) c.angle = b.theta - a.theta;
}

void evaluate(const RelativeAngleDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  set_equality(out, 1);
  out.C[0] = b.theta - a.theta - c.angle;
  out.Cdot[0] = b.omega - a.omega;
  if (a.rigid) out.Ja(0, 2) = -1.0;
  out.Jb(0, 2) = 1.0;
}

}  // namespace linkage
