#include "planar_rows.hpp"

#include <cmath>
#include <limits>
#include <variant>

#include "block_shape.hpp"
#include "body_view.hpp"
#include "constraints/rows_2d.hpp"
#include "workspace.hpp"
#include "world_data.hpp"

namespace linkage {

const PlanarRows& planar_rows(const WorldModel& m, Workspace& ws) {
  const BlockJacobian& J = ws.J;
  for (const PlanarRows& known : ws.planar_rows)
    if (known.model == m.model_version && known.layout == J.layout()) return known;
  PlanarRows& p = ws.planar_rows[ws.planar_older];
  ws.planar_older = 1 - ws.planar_older;
  p.model = m.model_version;
  p.layout = J.layout();
  p.any = false;
  p.rows.assign(m.constraints.size(), PlanarRow{});
  if (m.settings.dimension != 2 || J.groups().size() < m.constraints.size()) return p;
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const ConstraintRecord& c = m.constraints[i];
    const DistanceDef* rod = std::get_if<DistanceDef>(&c.def);
    const PinDef* pin = rod ? nullptr : std::get_if<PinDef>(&c.def);
    if (!rod && !pin) continue;
    const BlockJacobian::Group& g = J.groups()[i];
    PlanarRow r;
    r.row = g.row;
    r.pin = pin != nullptr;
    r.length = rod ? rod->length : 0.0;
    int k = g.first_block;
    bool particles = true;
    for (int e = 0; e < 2; ++e) {
      const int body = e == 0 ? c.body_a : c.body_b;
      const Vec3& anchor = rod ? (e == 0 ? rod->anchor_a : rod->anchor_b) : (e == 0 ? pin->anchor_a : pin->anchor_b);
      r.anchor[e][0] = anchor.x();
      r.anchor[e][1] = anchor.y();
      if (body < 0) continue;
      const BodyRecord& b = m.bodies[static_cast<std::size_t>(body)];
      r.body[e] = body;
      r.offset[e] = b.offset;
      r.rigid[e] = b.kind == BodyKind::rigid;
      particles = particles && !r.rigid[e];
      if (b.motion == Motion::dynamic) r.values[e] = J.block(k++).values;
    }
    if (k != g.first_block + g.blocks) continue;
    r.particles = rod && particles;
    p.rows[i] = r;
    p.any = true;
  }
  return p;
}

namespace {

// copy_row_kinds of an equality's rows, their kinds in place: unbounded,
// and c_tt 0 where the dynamics reads it.
void write_equality_bounds(Workspace& ws, int row, int rows, bool second_order) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (int k = 0; k < rows; ++k) {
    if (second_order) ws.c_tt[row + k] = 0.0;
    ws.lo[row + k] = -inf;
    ws.hi[row + k] = inf;
  }
}

// A rod between particles and the world: write_rod_rows_2d's operations
// with each end's point and velocity read straight from q and v (end_2d of
// a particle: its anchor not turned, its J̇q̇ term 0). Inlined into
// write_planar_rows' loop: called once a rod, each rod's square root and
// division waited for the last one's to finish.
[[gnu::always_inline]] inline void write_particle_rod(const PlanarRow& r, const double* q, const double* v, const double* w,
                                                      bool second_order, Workspace& ws, double* const blocks[2]) {
  // Each end in scalars: as arrays, the ends' pairs went through the stack
  // (two-wide stores read back one half at a time, each load waiting).
  struct End {
    double x, y, vx, vy;
  };
  auto end = [&](int e) {
    const int o = r.offset[e];
    if (o < 0) return End{r.anchor[e][0], r.anchor[e][1], 0.0, 0.0};
    return End{q[o] + r.anchor[e][0], q[o + 1] + r.anchor[e][1], v[o], v[o + 1]};
  };
  const End a = end(0), b = end(1);
  const double d[2] = {b.x - a.x, b.y - a.y};
  const double ddot[2] = {b.vx - a.vx, b.vy - a.vy};
  const double len = std::sqrt(d[0] * d[0] + d[1] * d[1]);
  const bool apart = len > 1e-12;
  const double n[2] = {apart ? d[0] / len : 1.0, apart ? d[1] / len : 0.0};
  const double nd = n[0] * ddot[0] + n[1] * ddot[1];
  ws.C[r.row] = len - r.length;
  ws.Cdot[r.row] = nd;
  if (second_order) {
    const double bias = n[0] * (0.0 - 0.0) + n[1] * (0.0 - 0.0);
    ws.jdot_qdot[r.row] = bias + (apart ? (ddot[0] * ddot[0] + ddot[1] * ddot[1] - nd * nd) / len : 0.0);
  }
  write_equality_bounds(ws, r.row, 1, second_order);
  // J's blocks, and RowGram's sum over them from the values in registers:
  // read back from memory, a pair's load waits on its halves' stores.
  double diag = 0.0;
  for (int e = 0; e < 2; ++e) {
    double* to = blocks[e];
    if (!to) continue;
    const double sign = e == 0 ? -1.0 : 1.0;
    const double j[2] = {sign * n[0], sign * n[1]};
    to[0] = j[0];
    to[1] = j[1];
    if (w) diag += RowGram::of<2>(j, w + r.offset[e]);
  }
  if (w) ws.diag[r.row] = diag;
}

// A rod or a pin with a rigid end, through the 2D rows' own writers.
void write_rod_or_pin(const PlanarRow& r, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const double* w, bool second_order,
                      Workspace& ws, double* const blocks[2]) {
  const int row = r.row, rows = r.pin ? 2 : 1;
  auto view = [&](int e) {
    return body_view_at(r.body[e], r.offset[e], r.rigid[e] ? 3 : 2, r.rigid[e], 2, q, v, ws.rotation);
  };
  const BodyView a = view(0), b = view(1);
  const RowsOut2d out{&ws.C[row], &ws.Cdot[row], second_order ? &ws.jdot_qdot[row] : nullptr, blocks[0], blocks[1]};
  const Vec3 anchor_a(r.anchor[0][0], r.anchor[0][1], 0.0), anchor_b(r.anchor[1][0], r.anchor[1][1], 0.0);
  if (r.pin) {
    write_pin_rows_2d(PinDef{.anchor_a = anchor_a, .anchor_b = anchor_b}, a, b, out);
  } else {
    write_rod_rows_2d(DistanceDef{.anchor_a = anchor_a, .anchor_b = anchor_b, .length = r.length}, a, b, out);
  }
  write_equality_bounds(ws, row, rows, second_order);
  if (!w) return;
  // gram_diagonal's sums: each row's terms block by block, a's first.
  double sum[2] = {0.0, 0.0};
  for (int e = 0; e < 2; ++e) {
    if (!blocks[e]) continue;
    const double* wb = w + r.offset[e];
    for (int k = 0; k < rows; ++k)
      sum[k] += r.rigid[e] ? RowGram::of<3>(blocks[e] + 3 * k, wb) : RowGram::of<2>(blocks[e] + 2 * k, wb);
  }
  for (int k = 0; k < rows; ++k) ws.diag[row + k] = sum[k];
}

}  // namespace

int write_planar_rows(const PlanarRow* rows, int first, int last, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                      const double* w, bool second_order, Workspace& ws, double* values) {
  int i = first;
  for (; i < last && rows[i].row >= 0; ++i) {
    const PlanarRow& r = rows[i];
    double* blocks[2] = {r.values[0] < 0 ? nullptr : values + r.values[0], r.values[1] < 0 ? nullptr : values + r.values[1]};
    if (r.particles) {
      write_particle_rod(r, q.data(), v.data(), w, second_order, ws, blocks);
    } else {
      write_rod_or_pin(r, q, v, w, second_order, ws, blocks);
    }
  }
  return i;
}

}  // namespace linkage
