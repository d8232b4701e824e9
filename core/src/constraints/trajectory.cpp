// Prescribed trajectory: the anchor p on body b follows g(t).
//   C = p − g(t),   Ċ = ṗ − g'(t),   J = J_p,   J̇q̇ = bias_p,   c_tt = −g''(t),
// with g = o + v t + A ⊙ sin(ω t + φ), ω = 2π f:
//   g' = v + A ⊙ ω ⊙ cos(ω t + φ),   g'' = −A ⊙ ω² ⊙ sin(ω t + φ).
#include <numbers>

#include "checks.hpp"
#include "parts.hpp"

namespace linkage {

std::string_view type_name(const TrajectoryDef&) { return "trajectory"; }
BodyPair bodies_of(const TrajectoryDef& c) { return {BodyId{}, c.body}; }
int row_count(const TrajectoryDef&, int dim) { return dim; }

Status validate(const TrajectoryDef& c, int dim, BodyFacts, BodyFacts) {
  if (c.body.is_null()) return invalid_argument("body", "must name a body");
  LINKAGE_CHECK(check_vec("anchor", c.anchor, dim));
  LINKAGE_CHECK(check_vec("path.origin", c.path.origin, dim));
  LINKAGE_CHECK(check_vec("path.velocity", c.path.velocity, dim));
  LINKAGE_CHECK(check_vec("path.amplitude", c.path.amplitude, dim));
  LINKAGE_CHECK(check_vec("path.frequency", c.path.frequency, dim));
  return check_vec("path.phase", c.path.phase, dim);
}

void resolve(TrajectoryDef&, const BodyView&, const BodyView&, double) {}  // nothing is "current"

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
