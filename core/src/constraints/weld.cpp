// Weld (2D): a pin plus a fixed relative angle.
//   C = (p_b − p_a, θ_b − θ_a − φ);   the angle row: Ċ = ω_b − ω_a,
//   J = [−e_θ | e_θ],   J̇q̇ = 0.
#include "parts.hpp"

namespace linkage {

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
