// Distance (rod): C = |d| − L, d = p_b − p_a, n = d/|d|.
//   Ċ = n·ḋ,   J = nᵀ [−J_pa | J_pb],
//   J̇q̇ = n·(bias_b − bias_a) + (|ḋ|² − (n·ḋ)²) / |d|      (from ṅ = (ḋ − n(n·ḋ))/|d|).
#include "checks.hpp"
#include "parts.hpp"

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

}  // namespace linkage
