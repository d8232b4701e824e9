// Weld (2D): a pin plus a fixed relative angle.
//   C = (p_b − p_a, θ_b − θ_a − φ);   the angle row: Ċ = ω_b − ω_a,
//   J = [−e_θ | e_θ],   J̇q̇ = 0.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const WeldDef&) { return "weld"; }
BodyPair bodies_of(const WeldDef& c) { return {c.a, c.b}; }
int row_count(const WeldDef&, int) { return 3; }

Status validate(const WeldDef& c, int dim, BodyFacts a, BodyFacts b) {
  LINKAGE_CHECK(need_2d("weld", dim));
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(need_rigid("a", a, true));
  LINKAGE_CHECK(need_rigid("b", b, false));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_finite_or_current("angle", c.angle);
}

void resolve(WeldDef& c, const BodyView& a, const BodyView& b, double) {
  if (std::isnan(c.angle)) c.angle = b.theta - a.theta;
}

void evaluate(const WeldDef& c, const BodyView& a, const BodyView& b, double t, int dim, Rows& out) {
  evaluate(PinDef{c.a, c.b, c.anchor_a, c.anchor_b}, a, b, t, dim, out);
  set_equality(out, 3);
  out.C[2] = b.theta - a.theta - c.angle;
  out.Cdot[2] = b.omega - a.omega;
  out.jdot_qdot[2] = 0.0;
  out.Ja.row(2) = -Eigen::RowVector3d::UnitZ() * (a.rigid ? 1.0 : 0.0);
  out.Jb.row(2) = Eigen::RowVector3d::UnitZ();
}

}  // namespace linkage
