// Gear (2D): C = r_a θ_a + r_b θ_b − c,   Ċ = r_a ω_a + r_b ω_b,   J = [r_a e_θ | r_b e_θ],   J̇q̇ = 0.
#include "parts.hpp"

namespace linkage {

void evaluate(const GearDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  set_equality(out, 1);
  out.C[0] = c.radius_a * a.theta + c.radius_b * b.theta - c.offset;
  out.Cdot[0] = c.radius_a * a.omega + c.radius_b * b.omega;
  out.Ja(0, 2) = c.radius_a;
  out.Jb(0, 2) = c.radius_b;
}

}  // namespace linkage
