// Pin (revolute joint, or a point held at a world point): C = p_b − p_a.
//   Ċ = ḋ,   J = [−J_pa | J_pb],   J̇q̇ = bias_b − bias_a.   One row per axis.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const PinDef&) { return "pin"; }
BodyPair bodies_of(const PinDef& c) { return {c.a, c.b}; }
int row_count(const PinDef&, int dim) { return dim; }

Status validate(const PinDef& c, int dim, BodyFacts, BodyFacts) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  return check_vec("anchor_b", c.anchor_b, dim);
}

void resolve(PinDef&, const BodyView&, const BodyView&, double) {}  // nothing is "current"

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
