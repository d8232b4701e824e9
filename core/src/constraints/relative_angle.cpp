// Relative angle (2D): C = θ_b − θ_a − φ,   Ċ = ω_b − ω_a,   J = [−e_θ | e_θ],   J̇q̇ = 0.
#include "parts.hpp"

namespace linkage {

void evaluate(const RelativeAngleDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  set_equality(out, 1);
  out.C[0] = b.theta - a.theta - c.angle;
  out.Cdot[0] = b.omega - a.omega;
  if (a.rigid) out.Ja(0, 2) = -1.0;
  out.Jb(0, 2) = 1.0;
}

}  // namespace linkage
