// Motor: a velocity constraint J q̇ + b = 0 with b = −speed, and |λ| ≤ max_force.
//   angular (2D): J q̇ = ω_b − ω_a,                    J̇q̇ = 0.
//   linear:       J q̇ = (v_b − v_a)·u, u turning with a,  J̇q̇ = (v_b − v_a)·u̇,  u̇ = ω_a u⊥.
// It has no position C: its row reports the velocity error J q̇ + b as Ċ.
#include "parts.hpp"

namespace linkage {

void evaluate(const MotorDef& c, const BodyView& a, const BodyView& b, double, int dim, Rows& out) {
  out.count = 1;
  out.velocity_level = true;
  out.lo[0] = -c.max_force;
  out.hi[0] = c.max_force;
  out.C[0] = 0.0;
  if (c.kind == MotorKind::angular) {
    out.Cdot[0] = b.omega - a.omega - c.speed;
    out.jdot_qdot[0] = 0.0;
    if (a.rigid) out.Ja(0, 2) = -1.0;
    out.Jb(0, 2) = 1.0;
    return;
  }
  const Vec3 u = body_direction(a, c.axis);
  const Vec3 dv = b.v - a.v;
  const double w = a.rigid ? a.omega : 0.0;
  out.Cdot[0] = dv.dot(u) - c.speed;
  out.jdot_qdot[0] = dv.dot(w * perp(u));
  for (int i = 0; i < dim; ++i) {
    out.Ja(0, i) = a.exists ? -u[i] : 0.0;
    out.Jb(0, i) = u[i];
  }
}

}  // namespace linkage
