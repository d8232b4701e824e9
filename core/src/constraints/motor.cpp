// Motor: a velocity constraint J q̇ + b = 0 with b = −speed, and |λ| ≤ max_force.
//   angular (2D): J q̇ = ω_b − ω_a,                    J̇q̇ = 0.
//   linear:       J q̇ = (v_b − v_a)·u, u turning with a,  J̇q̇ = (v_b − v_a)·u̇,  u̇ = ω_a u⊥.
// It has no position C: its row reports the velocity error J q̇ + b as Ċ.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const MotorDef&) { return "motor"; }
BodyPair bodies_of(const MotorDef& c) { return {c.a, c.b}; }
int row_count(const MotorDef&, int) { return 1; }

Status validate(const MotorDef& c, int dim, BodyFacts a, BodyFacts b) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  if (!std::isfinite(c.speed)) return invalid_argument("speed", "must be finite, got " + number_text(c.speed));
  if (std::isnan(c.max_force) || c.max_force <= 0.0)
    return invalid_argument("max_force", "must be > 0 (infinity for no limit), got " + number_text(c.max_force));
  if (c.kind == MotorKind::angular) {
    LINKAGE_CHECK(need_2d("angular motor", dim));
    LINKAGE_CHECK(need_rigid("a", a, true));
    return need_rigid("b", b, false);
  }
  return check_direction("axis", c.axis, dim);
}

void resolve(MotorDef&, const BodyView&, const BodyView&, double) {}  // nothing is "current"

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
