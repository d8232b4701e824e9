#include "planar_rows.hpp"

#include <cmath>
#include <limits>
#include <variant>

#include "block_shape.hpp"
#include "workspace.hpp"
#include "world_data.hpp"

namespace linkage {

const PlanarRods& planar_rods(const WorldModel& m, Workspace& ws) {
  const BlockJacobian& J = ws.J;
  for (const PlanarRods& known : ws.planar_rods)
    if (known.model == m.model_version && known.layout == J.layout()) return known;
  PlanarRods& p = ws.planar_rods[ws.planar_older];
  ws.planar_older = 1 - ws.planar_older;
  p.model = m.model_version;
  p.layout = J.layout();
  p.any = false;
  p.rods.assign(m.constraints.size(), PlanarRod{});
  if (m.settings.dimension != 2 || J.groups().size() < m.constraints.size()) return p;
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const ConstraintRecord& c = m.constraints[i];
    const DistanceDef* rod = std::get_if<DistanceDef>(&c.def);
    if (!rod) continue;
    const BlockJacobian::Group& g = J.groups()[i];
    PlanarRod r;
    r.row = g.row;
    r.length = rod->length;
    int k = g.first_block;
    bool particles = true;
    for (int e = 0; e < 2; ++e) {
      const int body = e == 0 ? c.body_a : c.body_b;
      const Vec3& anchor = e == 0 ? rod->anchor_a : rod->anchor_b;
      r.anchor[e][0] = anchor.x();
      r.anchor[e][1] = anchor.y();
      if (body < 0) continue;
      const BodyRecord& b = m.bodies[static_cast<std::size_t>(body)];
      particles = particles && b.kind == BodyKind::particle;
      r.offset[e] = b.offset;
      if (b.motion == Motion::dynamic) r.values[e] = J.block(k++).values;
    }
    if (!particles || k != g.first_block + g.blocks) continue;
    p.rods[i] = r;
    p.any = true;
  }
  return p;
}

void write_planar_rod(const PlanarRod& r, const double* q, const double* v, const double* w, bool second_order,
                      Workspace& ws, double* values) {
  // end_2d of a particle (its anchor not turned) or of the world.
  double p[2][2], pdot[2][2];
  for (int e = 0; e < 2; ++e) {
    const int o = r.offset[e];
    if (o < 0) {
      p[e][0] = r.anchor[e][0];
      p[e][1] = r.anchor[e][1];
      pdot[e][0] = pdot[e][1] = 0.0;
      continue;
    }
    p[e][0] = q[o] + r.anchor[e][0];
    p[e][1] = q[o + 1] + r.anchor[e][1];
    pdot[e][0] = v[o];
    pdot[e][1] = v[o + 1];
  }
  // write_rod_rows_2d's sums, a particle's J̇q̇ term (bias) 0.
  const double d[2] = {p[1][0] - p[0][0], p[1][1] - p[0][1]};
  const double ddot[2] = {pdot[1][0] - pdot[0][0], pdot[1][1] - pdot[0][1]};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1]);
  const bool apart = len > 1e-12;
  const double n[2] = {apart ? d[0] / len : 1.0, apart ? d[1] / len : 0.0};
  const double nd = n[0] * ddot[0] + n[1] * ddot[1];
  const int row = r.row;
  ws.C[row] = len - r.length;
  ws.Cdot[row] = nd;
  if (second_order) {
    const double bias = n[0] * (0.0 - 0.0) + n[1] * (0.0 - 0.0);
    ws.jdot_qdot[row] = bias + (apart ? (ddot[0] * ddot[0] + ddot[1] * ddot[1] - nd * nd) / len : 0.0);
    ws.c_tt[row] = 0.0;
  }
  constexpr double inf = std::numeric_limits<double>::infinity();
  ws.lo[row] = -inf;
  ws.hi[row] = inf;
  // J's blocks, a's first, and gram_diagonal's sum over them in that order.
  double diag = 0.0;
  for (int e = 0; e < 2; ++e) {
    if (r.values[e] < 0) continue;
    const double sign = e == 0 ? -1.0 : 1.0;
    double* to = values + r.values[e];
    to[0] = sign * n[0];
    to[1] = sign * n[1];
    if (w) diag += RowGram::of<2>(to, w + r.offset[e]);
  }
  if (w) ws.diag[row] = diag;
}

}  // namespace linkage
