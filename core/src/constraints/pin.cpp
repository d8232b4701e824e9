// Pin (revolute joint, or a point held at a world point): C = p_b − p_a.
//   Ċ = ḋ,   J = [−J_pa | J_pb],   J̇q̇ = bias_b − bias_a.   One row per axis.
#include "checks.hpp"
#include "parts.hpp"
#include "rows_2d.hpp"

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

namespace {

// Rows (1, 0[, −s_y]) and (0, 1[, s_x]) of J_p, times `sign`, each value
// stored in its place: built as an array and copied, the compiler stored
// it in halves and loaded it whole, a failed store forwarding a load (a
// sixth of joint_grid's step was this function).
void write_block(double* out, const BodyView& b, const End2d& e, double sign) {
  if (b.rigid) {
    out[0] = sign;
    out[1] = 0.0;
    out[2] = sign * -e.s[1];
    out[3] = 0.0;
    out[4] = sign;
    out[5] = sign * e.s[0];
  } else {
    out[0] = sign;
    out[1] = 0.0;
    out[2] = 0.0;
    out[3] = sign;
  }
}

}  // namespace

void write_pin_rows_2d(const PinDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out) {
  const End2d ea = end_2d(a, c.anchor_a), eb = end_2d(b, c.anchor_b);
  for (int r = 0; r < 2; ++r) {
    out.C[r] = eb.p[r] - ea.p[r];
    out.Cdot[r] = eb.pdot[r] - ea.pdot[r];
    if (out.jdot_qdot) out.jdot_qdot[r] = eb.bias[r] - ea.bias[r];
  }
  if (out.Ja) write_block(out.Ja, a, ea, -1.0);
  if (out.Jb) write_block(out.Jb, b, eb, 1.0);
}

}  // namespace linkage
