// Prescribed trajectory: the anchor p on body b follows g(t).
//   C = p − g(t),   Ċ = ṗ − g'(t),   J = J_p,   J̇q̇ = bias_p,   c_tt = −g''(t),
// with g = o + v t + A ⊙ sin(ω t + φ), ω = 2π f:
//   g' = v + A ⊙ ω ⊙ cos(ω t + φ),   g'' = −A ⊙ ω² ⊙ sin(ω t + φ).
#include <numbers>

#include "parts.hpp"

namespace linkage {

void evaluate(const TrajectoryDef& c, const BodyView&, const BodyView& b, double t, int dim, Rows& out) {
  const Anchor p = anchor(b, c.anchor);
  const Path& g = c.path;
  set_equality(out, dim);
  for (int r = 0; r < dim; ++r) {
    const double w = 2.0 * std::numbers::pi * g.frequency[r];
    const double arg = w * t + g.phase[r];
    const double pos = g.origin[r] + g.velocity[r] * t + g.amplitude[r] * std::sin(arg);
    const double vel = g.velocity[r] + g.amplitude[r] * w * std::cos(arg);
    const double acc = -g.amplitude[r] * w * w * std::sin(arg);
    out.C[r] = p.p[r] - pos;
    out.Cdot[r] = p.pdot[r] - vel;
    out.jdot_qdot[r] = p.bias[r];
    out.c_tt[r] = -acc;
    out.Jb.row(r) = p.jacobian_row(Vec3::Unit(r));
  }
}

}  // namespace linkage
