// Rope: C = |d| − L ≤ 0 with λ ≤ 0. Its row is the distance row
// (C, Ċ = n·ḋ, J = nᵀ [−J_pa | J_pb], J̇q̇ as for a rod), marked one-sided.
#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const RopeDef&) { return "rope"; }
BodyPair bodies_of(const RopeDef& c) { return {c.a, c.b}; }
int row_count(const RopeDef&, int) { return 1; }

Status validate(const RopeDef& c, int dim, BodyFacts, BodyFacts) {
  LINKAGE_CHECK(check_pair(c.a, c.b));
  LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
  return check_length_or_current("max_length", c.max_length);
}

void resolve(RopeDef& c, const BodyView& a, const BodyView& b, double) {
  if (std::isnan(c.max_length)) c.max_length = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
}

void evaluate(const RopeDef& c, const BodyView& a, const BodyView& b, double t, int dim, Rows& out) {
  evaluate(DistanceDef{c.a, c.b, c.anchor_a, c.anchor_b, c.max_length}, a, b, t, dim, out);
  out.unilateral = true;
  out.hi[0] = 0.0;
}

}  // namespace linkage
