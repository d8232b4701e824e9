// Pin (revolute joint, or a point held at a world point): C = p_b − p_a.
//   Ċ = ḋ,   J = [−J_pa | J_pb],   J̇q̇ = bias_b − bias_a.   One row per axis.
#include "parts.hpp"

namespace linkage {

void evaluate(const PinDef& c, const BodyView& a, const BodyView& b, double, int dim, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  set_equality(out, dim);
  for (int r = 0; r < dim; ++r) {
    out.C[r] = s.d[r];
    out.Cdot[r] = s.ddot[r];
    out.jdot_qdot[r] = s.bias[r];
    set_separation_row(out, r, s, Vec3::Unit(r));
  }
}

}  // namespace linkage
