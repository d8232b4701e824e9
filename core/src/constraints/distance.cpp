// Distance (rod): C = |d| − L, d = p_b − p_a, n = d/|d|.
//   Ċ = n·ḋ,   J = nᵀ [−J_pa | J_pb],
//   J̇q̇ = n·(bias_b − bias_a) + (|ḋ|² − (n·ḋ)²) / |d|      (from ṅ = (ḋ − n(n·ḋ))/|d|).
#include "checks.hpp"
#include "parts.hpp"
#include "rows_2d.hpp"

namespace linkage {

std::string_view type_name(const DistanceDef&) { return "distance"; }
BodyPair bodies_of(const DistanceDef& c) { return {c.a, c.b}; }
int row_count(const DistanceDef&, int) { return 1; }

Status validate(const DistanceDef& c, int dim, BodyFacts, BodyFacts) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_length_or_current("length", c.length);
}

void resolve(DistanceDef& c, const BodyView& a, const BodyView& b, double) {
  if (std::isnan(c.length)) c.length = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
}

void evaluate(const DistanceDef& c, const BodyView& a, const BodyView& b, double, int, Rows& out) {
  const Separation s = separation(a, c.anchor_a, b, c.anchor_b);
  const double len = s.d.norm();
  // Coincident anchors have no direction; any unit vector keeps J finite.
  const Vec3 n = len > 1e-12 ? Vec3(s.d / len) : Vec3::UnitX();
  const double nd = n.dot(s.ddot);
  set_equality(out, 1);
  out.C[0] = len - c.length;
  out.Cdot[0] = nd;
  out.jdot_qdot[0] = n.dot(s.bias) + (len > 1e-12 ? (s.ddot.squaredNorm() - nd * nd) / len : 0.0);
  set_separation_row(out, 0, s, n);
}

void write_rod_rows_2d(const DistanceDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out) {
  const End2d ea = end_2d(a, c.anchor_a), eb = end_2d(b, c.anchor_b);
  const double d[2] = {eb.p[0] - ea.p[0], eb.p[1] - ea.p[1]};
  const double ddot[2] = {eb.pdot[0] - ea.pdot[0], eb.pdot[1] - ea.pdot[1]};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1]);
  const bool apart = len > 1e-12;  // as evaluate: coincident anchors take the unit x
  const double n[2] = {apart ? d[0] / len : 1.0, apart ? d[1] / len : 0.0};
  const double nd = n[0] * ddot[0] + n[1] * ddot[1];
  out.C[0] = len - c.length;
  out.Cdot[0] = nd;
  if (out.jdot_qdot) {
    const double bias = n[0] * (eb.bias[0] - ea.bias[0]) + n[1] * (eb.bias[1] - ea.bias[1]);
    out.jdot_qdot[0] = bias + (apart ? (ddot[0] * ddot[0] + ddot[1] * ddot[1] - nd * nd) / len : 0.0);
  }
  // nᵀ J_p at each end, a's negated: (n_x, n_y[, n·s⊥]).
  const BodyView* ends[2] = {&a, &b};
  const End2d* e[2] = {&ea, &eb};
  double* blocks[2] = {out.Ja, out.Jb};
  for (int k = 0; k < 2; ++k) {
    double* to = blocks[k];
    if (!to) continue;
    const double sign = k == 0 ? -1.0 : 1.0;
    to[0] = sign * n[0];
    to[1] = sign * n[1];
    if (ends[k]->rigid) to[2] = sign * (n[0] * -e[k]->s[1] + n[1] * e[k]->s[0]);
  }
}

}  // namespace linkage
