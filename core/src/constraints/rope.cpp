// Rope: C = |d| − L ≤ 0 with λ ≤ 0. Its row is the distance row
// (C, Ċ = n·ḋ, J = nᵀ [−J_pa | J_pb], J̇q̇ as for a rod), marked one-sided.
#include "parts.hpp"

namespace linkage {

void evaluate(const RopeDef& c, const BodyView& a, const BodyView& b, double t, int dim, Rows& out) {
  evaluate(DistanceDef{c.a, c.b, c.anchor_a, c.anchor_b, c.max_length}, a, b, t, dim, out);
  out.unilateral = true;
  out.hi[0] = 0.0;
}

}  // namespace linkage
