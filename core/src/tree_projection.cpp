#include "tree_projection.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <emmintrin.h>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>
#include <variant>

#include "body_view.hpp"
#include "constraint_system.hpp"
#include "projection.hpp"

namespace linkage {
namespace {

// step_rods' order over `rods`: a particle's step starts with the first
// Rod on it (that Rod's `first` end) and is complete after the last (its
// `last` end).
void mark_first_last(std::vector<TreeProjection::Rod>& rods, int dof) {
  std::vector<int> owner(static_cast<std::size_t>(dof), -1);  // per DOF: 2 × the last Rod on it + its end
  std::vector<int> opener(static_cast<std::size_t>(dof), -1);  // and the first
  for (std::size_t k = 0; k < rods.size(); ++k)
    for (int e = 0; e < 2; ++e) {
      const int o = rods[k].offset[e];
      if (o < 0) continue;
      owner[static_cast<std::size_t>(o)] = static_cast<int>(2 * k) + e;
      if (opener[static_cast<std::size_t>(o)] < 0) opener[static_cast<std::size_t>(o)] = static_cast<int>(2 * k) + e;
    }
  for (std::size_t k = 0; k < rods.size(); ++k)
    for (int e = 0; e < 2; ++e) {
      TreeProjection::Rod& n = rods[k];
      n.last[e] = n.offset[e] >= 0 && owner[static_cast<std::size_t>(n.offset[e])] == static_cast<int>(2 * k) + e;
      n.first[e] = n.offset[e] >= 0 && opener[static_cast<std::size_t>(n.offset[e])] == static_cast<int>(2 * k) + e;
    }
}

// The sweep's order (mark_first_last), and `idle`: the DOF no Rod moves
// (of `dof`), stepped before the sweep.
void schedule_sweep(TreeProjection& tp, int dof) {
  tp.idle.clear();
  std::vector<char> moved(static_cast<std::size_t>(dof), 0);
  for (const TreeProjection::Rod& n : tp.rods)
    for (int e = 0; e < 2; ++e)
      if (n.offset[e] >= 0) std::fill_n(moved.begin() + n.offset[e], n.dof, 1);
  for (int i = 0; i < dof; ++i)
    if (!moved[static_cast<std::size_t>(i)]) tp.idle.push_back(i);
  mark_first_last(tp.rods, dof);
}

// The constraints projection solves for, and the body tree they form.
// Soft rows are held at λ = 0 by projection, and rows on nothing movable
// have nothing to solve: neither is a node.
void analyse(const WorldModel& m, TreeProjection& tp) {
  tp.model = m.model_version;
  tp.nodes.clear();
  tp.j_layouts[0].stamp = tp.j_layouts[1].stamp = 0;  // its nodes are new
  tp.blocks_of = 0;
  tp.rigid = false;
  std::vector<int>& index = tp.moving;
  index.assign(m.bodies.size(), -1);
  tp.parts_for = 0;
  std::vector<TreeElimination::Body> bodies;
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    const BodyRecord& b = m.bodies[i];
    tp.rigid = tp.rigid || b.kind == BodyKind::rigid;
    if (b.motion != Motion::dynamic) continue;
    index[i] = static_cast<int>(bodies.size());
    bodies.push_back({b.offset, b.dof});
  }
  std::vector<TreeElimination::Node> nodes;
  int row = 0, block = 0, values = 0;
  for (std::size_t ci = 0; ci < m.constraints.size(); ++ci) {
    const ConstraintRecord& c = m.constraints[ci];
    TreeProjection::Node n;
    n.constraint = static_cast<int>(ci);
    n.row = row;
    n.rows = c.rows;
    row += c.rows;
    bool moves = false;
    for (int e = 0; e < 2; ++e) {
      TreeProjection::End& end = n.end[e];
      end.body = e == 0 ? c.body_a : c.body_b;
      if (end.body < 0) continue;
      const BodyRecord& b = m.bodies[static_cast<std::size_t>(end.body)];
      end.offset = b.offset;
      end.dof = b.dof;
      end.rigid = b.kind == BodyKind::rigid;
      end.moves = b.motion == Motion::dynamic;
      if (end.moves) end.block = block++;  // every moving end has a block in the step's forces
      moves = moves || end.moves;
    }
    if (!moves || c.softness.frequency != 0.0) continue;
    if (const auto* rod = std::get_if<DistanceDef>(&c.def)) {
      n.rod = true;
      n.anchor[0] = rod->anchor_a;
      n.anchor[1] = rod->anchor_b;
      n.length = rod->length;
    } else if (const auto* rope = std::get_if<RopeDef>(&c.def)) {
      n.rod = n.rope = true;
      n.anchor[0] = rope->anchor_a;
      n.anchor[1] = rope->anchor_b;
      n.length = rope->max_length;
    }
    TreeElimination::Node en;
    en.row = n.row;
    en.rows = n.rows;
    for (int e = 0; e < 2; ++e) {
      TreeProjection::End& end = n.end[e];
      if (end.body < 0) continue;
      end.values = values;
      values += c.rows * end.dof;
      if (!end.moves) continue;
      en.body[e] = index[static_cast<std::size_t>(end.body)];
      en.values[e] = end.values;
    }
    tp.nodes.push_back(n);
    nodes.push_back(en);
  }
  tp.rods_only = tp.nodes.size() == m.constraints.size() &&
                 std::all_of(tp.nodes.begin(), tp.nodes.end(), [](const TreeProjection::Node& n) { return n.rod; });
  tp.particle_rods = std::all_of(tp.nodes.begin(), tp.nodes.end(), [](const TreeProjection::Node& n) {
    return n.rod && !n.end[0].rigid && !n.end[1].rigid;
  });
  tp.rods.clear();
  tp.rods_move = tp.particle_rods;
  for (const TreeProjection::Node& n : tp.nodes) {
    if (!tp.particle_rods) break;
    TreeProjection::Rod r;
    r.row = n.row;
    for (int e = 0; e < 2; ++e) {
      const TreeProjection::End& end = n.end[e];
      r.anchor[e] = n.anchor[e];
      if (end.body < 0) continue;
      r.offset[e] = end.offset;
      r.values[e] = end.values;
      r.block[e] = end.block;
      r.dof = end.dof;
      tp.rods_move = tp.rods_move && end.moves;
    }
    r.length = n.length;
    r.rope = n.rope;
    tp.rods.push_back(r);
  }
  int dof = 0;
  for (const BodyRecord& b : m.bodies) dof = std::max(dof, b.offset + b.dof);
  tp.planar = tp.particle_rods && m.settings.dimension == 2 &&
              std::all_of(tp.rods.begin(), tp.rods.end(),
                          [](const TreeProjection::Rod& r) { return r.anchor[0].z() == 0.0 && r.anchor[1].z() == 0.0; });
  tp.sweep = tp.planar && tp.rods_move;
  if (tp.sweep) schedule_sweep(tp, dof);
  tp.applies = tp.elimination.analyse(bodies, nodes);
  if (!tp.applies) return;
  tp.J.assign(static_cast<std::size_t>(values), 0.0);
  for (std::vector<double>* v : {&tp.C, &tp.lo, &tp.hi, &tp.diag, &tp.y, &tp.rhs}) v->assign(static_cast<std::size_t>(row), 0.0);
  tp.held.assign(static_cast<std::size_t>(row), 1);
  tp.velocity.assign(static_cast<std::size_t>(row), 0);
  tp.slack.assign(static_cast<std::size_t>(row), 0);
  tp.in_tree.assign(static_cast<std::size_t>(row), 0);
  for (const TreeProjection::Node& n : tp.nodes) std::fill_n(tp.in_tree.begin() + n.row, n.rows, 1);
  tp.factored = false;
}

// A rod's end (distance.cpp's anchor): its point p and lever arm s (p − x).
void rod_end(const WorldModel& m, const TreeProjection& tp, const TreeProjection::End& end, const Vec3& local,
             const Eigen::VectorXd& q, Vec3& p, Vec3& s) {
  if (end.body < 0) {
    p = local;
    return;
  }
  const Vec3 x(q[end.offset], q[end.offset + 1], m.settings.dimension == 3 ? q[end.offset + 2] : 0.0);
  if (end.rigid) {
    const auto [cos, sin] = tp.rotation[static_cast<std::size_t>(end.body)];
    s = Vec3(cos * local.x() - sin * local.y(), sin * local.x() + cos * local.y(), local.z());
  } else {
    s = local;
  }
  p = x + s;
}

// One node's rows at (t, q), as the projection reads them.
struct NodeRows {
  double C[Rows::kMax], lo[Rows::kMax], hi[Rows::kMax];
  bool velocity = false, unilateral = false;
};

// A rod or a rope: C = |d| − L, J = nᵀ [−J_pa | J_pb] (distance.cpp, whose
// row rope.cpp shares), written out. They are most of what a tree's
// projection evaluates (chains, ropes), and projection reads only C and J,
// where the generic evaluation also works out Ċ, J̇q̇ and the bodies'
// velocities. The tests hold the tree path to the general path's answers
// on rods and ropes between particles, bars and the world.
void evaluate_rod(const WorldModel& m, TreeProjection& tp, const TreeProjection::Node& n, const Eigen::VectorXd& q,
                  NodeRows& out) {
  Vec3 p[2], s[2];
  for (int e = 0; e < 2; ++e) rod_end(m, tp, n.end[e], n.anchor[e], q, p[e], s[e]);
  const Vec3 d = p[1] - p[0];
  const double len = d.norm();
  // Coincident anchors have no direction; any unit vector keeps J finite.
  const Vec3 g = len > 1e-12 ? Vec3(d * (1.0 / len)) : Vec3::UnitX();  // one division, not three
  constexpr double inf = std::numeric_limits<double>::infinity();
  out.C[0] = len - n.length;
  out.lo[0] = -inf;
  out.hi[0] = n.rope ? 0.0 : inf;
  out.unilateral = n.rope;
  for (int e = 0; e < 2; ++e) {
    const TreeProjection::End& end = n.end[e];
    if (end.body < 0) continue;
    const double sign = e == 0 ? -1.0 : 1.0;
    double* to = tp.J.data() + end.values;
    if (end.rigid) {
      to[0] = sign * g.x();
      to[1] = sign * g.y();
      to[2] = sign * g.dot(Vec3(-s[e].y(), s[e].x(), 0.0));
    } else {  // a particle: 2 or 3 DOF
      to[0] = sign * g.x();
      to[1] = sign * g.y();
      if (end.dof == 3) to[2] = sign * g.z();
    }
  }
}

// Any other constraint, through its own evaluation.
void evaluate_node(const WorldModel& m, const WorldData& d, TreeProjection& tp, const TreeProjection::Node& n, double t,
                   const Eigen::VectorXd& q, NodeRows& out) {
  const ConstraintRecord& c = m.constraints[static_cast<std::size_t>(n.constraint)];
  Rows rows;
  evaluate_constraint(c.def, body_view(m, c.body_a, q, d.v, tp.rotation), body_view(m, c.body_b, q, d.v, tp.rotation), t,
                      m.settings.dimension, rows);
  for (int r = 0; r < n.rows; ++r) {
    out.C[r] = rows.C[r];
    out.lo[r] = rows.lo[r];
    out.hi[r] = rows.hi[r];
  }
  out.velocity = rows.velocity_level;
  out.unilateral = rows.unilateral;
  for (int e = 0; e < 2; ++e) {
    const TreeProjection::End& end = n.end[e];
    if (end.body < 0) continue;
    const Eigen::Matrix3d& from = e == 0 ? rows.Ja : rows.Jb;
    double* to = tp.J.data() + end.values;
    for (int r = 0; r < n.rows; ++r)
      for (int k = 0; k < end.dof; ++k) to[r * end.dof + k] = from(r, k);
  }
}

// max |C| and |C|₂ over the rows projection holds, as the general path
// measures them (a NaN passes max but not the norm).
std::pair<double, double> errors(const TreeProjection& tp) {
  double worst = 0.0, sum = 0.0;
  for (std::size_t i = 0; i < tp.C.size(); ++i) {
    if (tp.held[i] || tp.velocity[i]) continue;
    worst = std::max(worst, std::abs(tp.C[i]));
    sum += tp.C[i] * tp.C[i];
  }
  return {worst, std::sqrt(sum)};
}

// One Rod's C, J and −C, as evaluate_rod writes them, and its share of
// errors' max |C| and |C|₂ (`worst`, `sum`).
inline void evaluate_particle_rod(const TreeProjection::Rod& n, const double* x, bool three, TreeProjection& tp,
                                  double& worst, double& sum) {
  Vec3 p[2];
  for (int e = 0; e < 2; ++e) {
    p[e] = n.anchor[e];
    if (n.offset[e] >= 0) p[e] += Vec3(x[n.offset[e]], x[n.offset[e] + 1], three ? x[n.offset[e] + 2] : 0.0);
  }
  const Vec3 d = p[1] - p[0];
  const double len = d.norm();
  const Vec3 g = len > 1e-12 ? Vec3(d * (1.0 / len)) : Vec3::UnitX();  // as evaluate_rod
  const std::size_t row = static_cast<std::size_t>(n.row);
  const double c = len - n.length;
  tp.C[row] = c;
  tp.rhs[row] = tp.held[row] ? 0.0 : -c;
  if (!tp.held[row]) {  // as errors (no rod's row is a velocity row)
    worst = std::max(worst, std::abs(c));
    sum += c * c;
  }
  for (int e = 0; e < 2; ++e) {
    if (n.offset[e] < 0) continue;
    const double sign = e == 0 ? -1.0 : 1.0;
    double* to = tp.J.data() + n.values[e];
    to[0] = sign * g.x();
    to[1] = sign * g.y();
    if (three) to[2] = sign * g.z();
  }
}

// Two Rods of a 2D model (their anchors in the plane) at once, as
// evaluate_particle_rod evaluates each: each Rod's d = p_b − p_a as an SSE2
// pair, then the two Rods' lengths, square roots and divisions side by side
// (sqrtpd and divpd round as sqrtsd and divsd do, and |d|² = dx² + dy² is
// Eigen's sum with its z² = 0 left out, exactly), half the divider's
// time.
inline void evaluate_particle_rod_pair(const TreeProjection::Rod& a, const TreeProjection::Rod& b, const double* x,
                                       TreeProjection& tp, double& worst, double& sum) {
  auto d_of = [x](const TreeProjection::Rod& n) {
    __m128d p[2];
    for (int e = 0; e < 2; ++e) {
      p[e] = _mm_set_pd(n.anchor[e].y(), n.anchor[e].x());
      if (n.offset[e] >= 0) p[e] = _mm_add_pd(p[e], _mm_loadu_pd(x + n.offset[e]));
    }
    return _mm_sub_pd(p[1], p[0]);
  };
  const __m128d da = d_of(a), db = d_of(b);
  const __m128d dx = _mm_unpacklo_pd(da, db), dy = _mm_unpackhi_pd(da, db);
  const __m128d len = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)));
  const __m128d inv = _mm_div_pd(_mm_set1_pd(1.0), len);
  // Coincident anchors (or a NaN) take the unit x, as evaluate_rod.
  const __m128d far = _mm_cmpgt_pd(len, _mm_set1_pd(1e-12));
  const __m128d gx = _mm_or_pd(_mm_and_pd(far, _mm_mul_pd(dx, inv)), _mm_andnot_pd(far, _mm_set1_pd(1.0)));
  const __m128d gy = _mm_and_pd(far, _mm_mul_pd(dy, inv));
  const __m128d c = _mm_sub_pd(len, _mm_set_pd(b.length, a.length));
  const __m128d g[2] = {_mm_unpacklo_pd(gx, gy), _mm_unpackhi_pd(gx, gy)};
  double cs[2];
  _mm_storeu_pd(cs, c);
  const TreeProjection::Rod* rods[2] = {&a, &b};
  for (int k = 0; k < 2; ++k) {
    const TreeProjection::Rod& n = *rods[k];
    const std::size_t row = static_cast<std::size_t>(n.row);
    tp.C[row] = cs[k];
    tp.rhs[row] = tp.held[row] ? 0.0 : -cs[k];
    if (!tp.held[row]) {
      worst = std::max(worst, std::abs(cs[k]));
      sum += cs[k] * cs[k];
    }
    if (n.offset[0] >= 0) _mm_storeu_pd(tp.J.data() + n.values[0], _mm_mul_pd(_mm_set1_pd(-1.0), g[k]));
    if (n.offset[1] >= 0) _mm_storeu_pd(tp.J.data() + n.values[1], g[k]);
  }
}

// evaluate's rows after the first evaluation when every node is a rod or a
// rope between particles and the world (chains, ropes, the cloths): the
// same C, J and −C in one short loop over the compact Rods, without the
// rows' bounds and kinds (read at the first evaluation) and the rigid
// bodies' lever arms, and errors' max |C| and |C|₂ in the same pass, two
// Rods at a time in a planar model. A short loop body lets the processor
// overlap many rods' square roots and divisions, which a chain's
// iterations wait on (taken in the forces' sweep, step_rods, they wait:
// 0.26 ms a chain_1000 step against 0.28). evaluate_rods takes some Rods
// (max |C| and Σ C²), evaluate_particle_rods the model's.
std::pair<double, double> evaluate_rods(TreeProjection& tp, const double* x, bool three, const std::vector<TreeProjection::Rod>& rods) {
  double worst = 0.0, sum = 0.0;
  const TreeProjection::Rod* n = rods.data();
  const TreeProjection::Rod* const end = n + rods.size();
  if (tp.planar)
    for (; end - n >= 2; n += 2) evaluate_particle_rod_pair(n[0], n[1], x, tp, worst, sum);
  for (; n != end; ++n) evaluate_particle_rod(*n, x, three, tp, worst, sum);
  return {worst, sum};
}

std::pair<double, double> evaluate_particle_rods(const WorldModel& m, TreeProjection& tp, const Eigen::VectorXd& q) {
  const auto [worst, sum] = evaluate_rods(tp, q.data(), m.settings.dimension == 3, tp.rods);
  return {worst, std::sqrt(sum)};
}

// evaluate's first evaluation on a model of particle Rods: evaluate_rods'
// C and J (its right-hand side and sums read last projection's held rows:
// both are written again here), then per Rod what the first evaluation
// reads besides, as evaluate's loop over the nodes takes it from a rod's
// or a rope's rows: its bounds, diag(K) (a moving end's terms in turn) and
// whether projection holds it (no diagonal, or a slack rope). A tenth of
// the generic loop's instructions: a chain's step evaluates first once a
// projection, 6 % of its instructions before.
std::pair<double, double> evaluate_first_rods(const WorldModel& m, const Workspace& ws, TreeProjection& tp,
                                              const Eigen::VectorXd& q) {
  evaluate_rods(tp, q.data(), m.settings.dimension == 3, tp.rods);
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double* w = ws.w.data();
  const double* J = tp.J.data();
  double worst = 0.0, sum = 0.0;
  tp.bounded = tp.any_slack = tp.motors = false;
  for (const TreeProjection::Rod& n : tp.rods) {
    const auto row = static_cast<std::size_t>(n.row);
    double diag = 0.0;
    for (int e = 0; e < 2; ++e) {
      if (n.block[e] < 0) continue;  // an end that does not move
      const double* j = J + n.values[e];
      for (int k = 0; k < n.dof; ++k) diag += j[k] * j[k] * w[n.offset[e] + k];
    }
    const double c = tp.C[row];
    tp.lo[row] = -inf;
    tp.hi[row] = n.rope ? 0.0 : inf;
    tp.diag[row] = diag;
    tp.velocity[row] = 0;
    const bool slack = diag > 0.0 && n.rope && c < -m.settings.projection_tolerance;
    const bool held = !(diag > 0.0) || slack;
    tp.held[row] = held;
    tp.slack[row] = slack;
    tp.any_slack = tp.any_slack || slack;
    tp.bounded = tp.bounded || (!held && n.rope);
    tp.rhs[row] = held ? 0.0 : -c;
    if (held) continue;  // as errors
    worst = std::max(worst, std::abs(c));
    sum += c * c;
  }
  return {worst, std::sqrt(sum)};
}

// Every node's rows at (t, q): C, J's blocks and the right-hand side −C
// (tp.rhs; 0 on held rows). The first evaluation
// (`first`) also reads the bounds, measures diag(K) for the dependent-row
// test of every factorization of this projection (its rows turn, their
// lengths stay), and decides which rows projection holds, as
// hold_for_positions does: rows on nothing movable (diag 0), slack ropes,
// and motors free to slip; a motor's C is its target, 0. Returns errors'
// max |C| and |C|₂.
std::pair<double, double> evaluate(const WorldModel& m, const WorldData& d, const Workspace& ws, TreeProjection& tp,
                                   double t, const Eigen::VectorXd& q, bool first) {
  if (tp.particle_rods) return first ? evaluate_first_rods(m, ws, tp, q) : evaluate_particle_rods(m, tp, q);
  if (tp.rigid) {
    tp.rotation.resize(m.bodies.size());
    for (std::size_t i = 0; i < m.bodies.size(); ++i) {
      const BodyRecord& b = m.bodies[i];
      if (b.kind == BodyKind::rigid) tp.rotation[i] = {std::cos(q[b.offset + 2]), std::sin(q[b.offset + 2])};
    }
  }
  const double* w = ws.w.data();
  if (first) tp.bounded = tp.any_slack = tp.motors = false;
  for (const TreeProjection::Node& n : tp.nodes) {
    NodeRows rows;
    if (n.rod) {
      evaluate_rod(m, tp, n, q, rows);
    } else {
      evaluate_node(m, d, tp, n, t, q, rows);
    }
    for (int r = 0; r < n.rows; ++r) {
      const std::size_t row = static_cast<std::size_t>(n.row + r);
      tp.C[row] = rows.velocity ? 0.0 : rows.C[r];
      if (!first) {
        tp.rhs[row] = tp.held[row] ? 0.0 : -tp.C[row];
        continue;
      }
      tp.lo[row] = rows.lo[r];  // bounds depend on the definition alone
      tp.hi[row] = rows.hi[r];
      double diag = 0.0;
      for (const TreeProjection::End& end : n.end) {
        if (!end.moves) continue;
        const double* j = tp.J.data() + end.values + r * end.dof;
        const double* wb = w + end.offset;
        for (int k = 0; k < end.dof; ++k) diag += j[k] * j[k] * wb[k];
      }
      tp.diag[row] = diag;
      tp.velocity[row] = rows.velocity;
      const bool slack = rows.unilateral && rows.C[r] < -m.settings.projection_tolerance;
      const bool free_motor = rows.velocity && row < ws.motor_free.size() && ws.motor_free[row];
      tp.held[row] = !(diag > 0.0) || slack || free_motor;
      tp.slack[row] = diag > 0.0 && slack;
      tp.any_slack = tp.any_slack || tp.slack[row];
      tp.motors = tp.motors || (!tp.held[row] && rows.velocity);
      tp.bounded = tp.bounded || (!tp.held[row] && (std::isfinite(rows.lo[r]) || std::isfinite(rows.hi[r])));
      tp.rhs[row] = tp.held[row] ? 0.0 : -tp.C[row];
    }
  }
  return errors(tp);
}

// A projection iteration's solve as the direct solver counts it: one
// factorization and one solve, the rows found dependent.
void count_solve(Workspace& ws, const TreeProjection& tp, SolveStats& stats) {
  stats.iterations = 1;
  stats.residual = std::numeric_limits<double>::quiet_NaN();  // Newton's progress is |C|
  stats.rank_deficiency = tp.elimination.dependent_rows();
  ++ws.direct.factorizations;
  ++ws.direct.solves;
}

// μ with K μ = −C over the rows not held, into tp.y from the right-hand
// side the evaluation left in tp.rhs (the two swap: the next evaluation
// writes its right-hand side beside μ, which a cut step's forces still
// read); `strict`: nearly dependent rows kept (NewtonStall). False when a
// bounded row's μ is past its bound: the general path's active set is
// for that.
bool solve(Workspace& ws, TreeProjection& tp, bool strict, SolveStats& stats) {
  const std::size_t nr = tp.y.size();
  std::swap(tp.y, tp.rhs);
  tp.elimination.factor(tp.J.data(), ws.w.data(), tp.held.data(), tp.diag.data(), tp.y.data(),
                        MultifrontalLdlt::dependent_pivot(strict));
  tp.elimination.back_substitute(tp.y.data());
  count_solve(ws, tp, stats);
  if ((tp.bounded || tp.motors) && tp.elimination.dependent_rows() > 0) return false;  // as solve_on_tree
  if (!tp.bounded) return true;
  for (std::size_t i = 0; i < nr; ++i)
    if (!tp.held[i] && std::clamp(tp.y[i], tp.lo[i], tp.hi[i]) != tp.y[i]) return false;
  return true;
}

// Whether a correction drew a rope held slack taut (C ≥ −tolerance): it
// must join the solve, as the general path lets it (release_taut_rows).
bool drawn_taut(const TreeProjection& tp, double tolerance) {
  for (std::size_t i = 0; i < tp.slack.size(); ++i)
    if (tp.slack[i] && tp.C[i] >= -tolerance) return true;
  return false;
}

// What the tree path changes before its last iteration, kept where a bound
// may bind, to give the projection back to the general path as it found it.
struct Saved {
  ProjectionPoint point;
  int iterations = 0, step_rank_deficiency = 0, factorizations = 0, solves = 0;
  bool taken = false;

  void take(const WorldData& d, const Workspace& ws) {
    taken = true;
    point.take(0.0, d, ws, nullptr);
    iterations = ws.iterations;
    step_rank_deficiency = ws.step_rank_deficiency;
    factorizations = ws.direct.factorizations;
    solves = ws.direct.solves;
  }
  void restore(WorldData& d, Workspace& ws) const {
    assert(taken && "the tree path hands over only a projection it saved: one that may (tp.bounded, any_slack, motors)");
    point.restore(d, ws, nullptr);
    ws.iterations = iterations;
    ws.step_rank_deficiency = step_rank_deficiency;
    ws.direct.factorizations = factorizations;
    ws.direct.solves = solves;
  }
};

// add_constraint_forces for μ (tp.y) through the blocks in tp.J: factor · μ
// into the step's λ, Jᵀ(factor · μ) into each moving block's force and into
// the reaction on each end that does not move; and, given `dq`, Jᵀμ into it
// (the correction before W).
void add_forces(WorldData& d, Workspace& ws, const TreeProjection& tp, double factor, double* dq) {
  if (tp.rods_move) {  // the same through the compact Rods: no reaction to report
    for (const TreeProjection::Rod& n : tp.rods) {
      const double mu = tp.y[static_cast<std::size_t>(n.row)], l = factor * mu;
      ws.step_lambda[n.row] += l;
      for (int e = 0; e < 2; ++e) {
        if (n.offset[e] < 0) continue;
        const double* v = tp.J.data() + n.values[e];
        double* f = ws.block_forces.data() + 3 * n.block[e];
        for (int x = 0; x < n.dof; ++x) f[x] += v[x] * l;
        if (!dq) continue;
        for (int x = 0; x < n.dof; ++x) dq[n.offset[e] + x] += v[x] * mu;
      }
    }
    return;
  }
  for (const TreeProjection::Node& n : tp.nodes) {
    const double* mu = tp.y.data() + n.row;
    double l[Rows::kMax];
    for (int r = 0; r < n.rows; ++r) {
      l[r] = factor * mu[r];
      ws.step_lambda[n.row + r] += l[r];
    }
    for (int e = 0; e < 2; ++e) {
      const TreeProjection::End& end = n.end[e];
      if (end.body < 0) continue;
      const double* v = tp.J.data() + end.values;
      if (end.moves) {
        double* f = ws.block_forces.data() + 3 * end.block;
        double* to = dq ? dq + end.offset : nullptr;
        if (n.rows == 1 && end.dof == 2) {  // a rod's end on a 2D particle, the most common
          f[0] += v[0] * l[0];
          f[1] += v[1] * l[0];
          if (to) {
            to[0] += v[0] * mu[0];
            to[1] += v[1] * mu[0];
          }
          continue;
        }
        for (int r = 0; r < n.rows; ++r)
          for (int x = 0; x < end.dof; ++x) f[x] += v[r * end.dof + x] * l[r];
        if (!to) continue;
        for (int r = 0; r < n.rows; ++r)
          for (int x = 0; x < end.dof; ++x) to[x] += v[r * end.dof + x] * mu[r];
        continue;
      }
      double generalized[3] = {};
      for (int r = 0; r < n.rows; ++r)
        for (int x = 0; x < end.dof; ++x) generalized[x] += v[r * end.dof + x] * l[r];
      ConstraintState& state = d.constraints[static_cast<std::size_t>(n.constraint)];
      add_reaction(e == 0 ? state.on_a : state.on_b, generalized, end.rigid, end.dof);
    }
  }
}

// What add_forces(force, dq) and the step q += W dq (`moved` kept) do on
// a planar model of particle Rods whose ends all move, in one sweep over
// the Rods: each particle's step taken right after its last
// Rod's forces (schedule_sweep). A particle's two DOF go as one SSE2 pair
// (the same IEEE operations on each, so the same bits): its step then reads
// back whole the pair its forces just stored, where two halves stored apart
// would stall the load (taken as scalars, the sweep was slower than the
// two passes). A particle's step starts from its first Rod's share, so
// tp.dq need not be cleared. sweep_rods takes some Rods (each particle's
// first and last among them marked), step_rods the model's.
void sweep_rods(Workspace& ws, TreeProjection& tp, double force, Eigen::VectorXd& q, const std::vector<TreeProjection::Rod>& rods) {
  double* x = q.data();
  double* dq = tp.dq.data();
  double* moved = tp.moved.data();
  const double* w = ws.w.data();
  const double* J = tp.J.data();
  const double* mu_of = tp.y.data();
  double* lambda = ws.step_lambda.data();
  double* forces = ws.block_forces.data();
  for (const TreeProjection::Rod& n : rods) {
    const double mu = mu_of[n.row], l = force * mu;
    lambda[n.row] += l;
    const __m128d vmu = _mm_set1_pd(mu), vl = _mm_set1_pd(l);
    for (int e = 0; e < 2; ++e) {
      const int o = n.offset[e];
      if (o < 0) continue;
      const __m128d v = _mm_loadu_pd(J + n.values[e]);
      double* f = forces + 3 * n.block[e];
      _mm_storeu_pd(f, _mm_add_pd(_mm_loadu_pd(f), _mm_mul_pd(v, vl)));
      const __m128d share = _mm_mul_pd(v, vmu);
      __m128d step = n.first[e] ? share : _mm_add_pd(_mm_loadu_pd(dq + o), share);
      if (n.last[e]) {
        step = _mm_mul_pd(step, _mm_loadu_pd(w + o));
        _mm_storeu_pd(x + o, _mm_add_pd(_mm_loadu_pd(x + o), step));
        _mm_storeu_pd(moved + o, _mm_add_pd(_mm_loadu_pd(moved + o), step));
      }
      _mm_storeu_pd(dq + o, step);
    }
  }
}

// The step of the DOF no Rod moves: zero, taken as the others take theirs.
void step_idle(TreeProjection& tp, Eigen::VectorXd& q) {
  for (int i : tp.idle) {
    const auto k = static_cast<std::size_t>(i);
    tp.dq[k] = 0.0;
    q[i] += tp.dq[k];
    tp.moved[k] += tp.dq[k];
  }
}

void step_rods(Workspace& ws, TreeProjection& tp, double force, Eigen::VectorXd& q) {
  step_idle(tp, q);
  sweep_rods(ws, tp, force, q, tp.rods);
}

// The elimination's parts as the sweep takes them (TreeProjection::parts):
// a particle is its body's part's, a Rod the part of its particles that
// is not the top's. False when a Rod joins two parts (none does on the
// elimination's tree).
bool schedule_parts(TreeProjection& tp, int dof) {
  const int parts = tp.elimination.parts();
  tp.parts.assign(static_cast<std::size_t>(parts) + 1, {});
  std::vector<int> owner(static_cast<std::size_t>(dof), -1);  // per particle's first DOF
  for (std::size_t k = 0; k < tp.rods.size(); ++k)
    for (int e = 0; e < 2; ++e) {
      const int o = tp.rods[k].offset[e];
      if (o < 0) continue;
      const int part = tp.elimination.body_part(tp.moving[static_cast<std::size_t>(tp.nodes[k].end[e].body)]);
      owner[static_cast<std::size_t>(o)] = part < 0 ? parts : part;
    }
  std::vector<int> rod_part(tp.rods.size(), parts);
  for (std::size_t k = 0; k < tp.rods.size(); ++k)
    for (int e = 0; e < 2; ++e) {
      const int o = tp.rods[k].offset[e];
      const int own = o < 0 ? parts : owner[static_cast<std::size_t>(o)];
      if (own == parts || own == rod_part[k]) continue;
      if (rod_part[k] != parts) return false;
      rod_part[k] = own;
    }
  // Each part's Rods, and as its sweep takes them: without their ends on
  // the top's particles (stepped before, step_particles).
  for (std::size_t k = 0; k < tp.rods.size(); ++k) {
    TreeProjection::Part& part = tp.parts[static_cast<std::size_t>(rod_part[k])];
    part.rods.push_back(tp.rods[k]);
    if (rod_part[k] == parts) continue;
    TreeProjection::Rod r = tp.rods[k];
    for (int& o : r.offset)
      if (o >= 0 && owner[static_cast<std::size_t>(o)] == parts) o = -1;
    part.sweep.push_back(r);
  }
  for (int p = 0; p < parts; ++p) mark_first_last(tp.parts[static_cast<std::size_t>(p)].sweep, dof);
  // The top's particles, each with its Rod ends in the Rods' order.
  TreeProjection::Part& top = tp.parts.back();
  std::vector<int> at(static_cast<std::size_t>(dof), -1);
  for (std::size_t k = 0; k < tp.rods.size(); ++k)
    for (int e = 0; e < 2; ++e) {
      const TreeProjection::Rod& n = tp.rods[k];
      const int o = n.offset[e];
      if (o < 0 || owner[static_cast<std::size_t>(o)] != parts) continue;
      if (at[static_cast<std::size_t>(o)] < 0) {
        at[static_cast<std::size_t>(o)] = static_cast<int>(top.particles.size());
        top.particles.push_back({o, {}});
      }
      // A Rod's λ goes with its first moving end, or with its part's sweep.
      const bool lambda = rod_part[k] == parts && e == (n.offset[0] >= 0 ? 0 : 1);
      top.particles[static_cast<std::size_t>(at[static_cast<std::size_t>(o)])].ends.push_back({n.row, n.values[e], n.block[e], lambda});
    }
  return true;
}

// sweep_rods for some particles, particle by particle: the shares of its
// Rod ends in the Rods' order, then its step; each end's force, and its
// Rod's λ where the end says so. The same operations on each value as
// sweep_rods over all the Rods, in the same order: the same bits.
void step_particles(Workspace& ws, TreeProjection& tp, double force, Eigen::VectorXd& q,
                    const std::vector<TreeProjection::Particle>& particles) {
  double* x = q.data();
  const double* w = ws.w.data();
  const double* J = tp.J.data();
  const double* mu_of = tp.y.data();
  double* lambda = ws.step_lambda.data();
  double* forces = ws.block_forces.data();
  for (const TreeProjection::Particle& p : particles) {
    __m128d step = _mm_setzero_pd();
    for (std::size_t at = 0; at < p.ends.size(); ++at) {
      const TreeProjection::RodEnd& n = p.ends[at];
      const double mu = mu_of[n.row], l = force * mu;
      if (n.lambda) lambda[n.row] += l;
      const __m128d v = _mm_loadu_pd(J + n.values);
      double* f = forces + 3 * n.block;
      _mm_storeu_pd(f, _mm_add_pd(_mm_loadu_pd(f), _mm_mul_pd(v, _mm_set1_pd(l))));
      const __m128d share = _mm_mul_pd(v, _mm_set1_pd(mu));
      step = at == 0 ? share : _mm_add_pd(step, share);
    }
    const int o = p.offset;
    step = _mm_mul_pd(step, _mm_loadu_pd(w + o));
    _mm_storeu_pd(x + o, _mm_add_pd(_mm_loadu_pd(x + o), step));
    _mm_storeu_pd(tp.moved.data() + o, _mm_add_pd(_mm_loadu_pd(tp.moved.data() + o), step));
    _mm_storeu_pd(tp.dq.data() + o, step);
  }
}

// The pass each part of iterate_in_parts makes, and what it reads: made
// once a projection, so that a worker starting its part finds all of it in
// its cache. (Made afresh each iteration, the pass's function and its
// captures were lines the stepping thread had just written, which the
// worker fetched one after another before its part began: chain_1000 on
// two threads, 0.209 -> 0.199 ms a step.) Each part's sums on a line of
// their own, the top's last.
struct PartsPass {
  struct alignas(64) Sums {
    std::pair<double, double> errors;  // max |C| and Σ C² of its Rods
  };
  Workspace& ws;
  TreeProjection& tp;
  Eigen::VectorXd& q;
  const double force;
  double pivot = 0.0;
  std::vector<Sums> sums;
  std::function<void(int, int)> run;

  PartsPass(const PartsPass&) = delete;  // `run` holds this one's address
  PartsPass& operator=(const PartsPass&) = delete;
  PartsPass(Workspace& w, TreeProjection& t, Eigen::VectorXd& x, double f)
      : ws(w), tp(t), q(x), force(f), sums(static_cast<std::size_t>(t.elimination.parts()) + 1) {
    // Each part back-substitutes its fronts, sweeps its Rods, evaluates them
    // and factors its fronts for the next iteration.
    run = [this](int p, int) {
      TreeElimination& e = tp.elimination;
      const TreeProjection::Part& part = tp.parts[static_cast<std::size_t>(p)];
      e.back_part(p, tp.y.data());
      sweep_rods(ws, tp, force, q, part.sweep);
      sums[static_cast<std::size_t>(p)].errors = evaluate_rods(tp, q.data(), false, part.rods);
      e.factor_part(p, tp.J.data(), ws.w.data(), tp.held.data(), tp.diag.data(), tp.rhs.data(), pivot);
    };
  }
};

// solve, the full step (step_rods) and the next evaluation of a sweep
// model in the elimination's parts, on as many threads, in two passes an
// iteration. First the top: its fronts factored and back-substituted, its
// particles stepped, its own Rods evaluated. Then at once, each part's
// pass (PartsPass), which factors its fronts ahead for the next iteration
// (`ahead`; false: first here, in a pass of its own). Each part's data
// stays in the core that last wrote it (taken pass by pass, four passes an
// iteration, two threads were slower than one). Returns errors' max |C|
// and |C|₂ (the parts' sums added in part order). The numbers are the
// one-thread path's, but for the order of |C|₂'s sum.
std::pair<double, double> iterate_in_parts(PartsPass& pass, double pivot, bool ahead, const Parallel& threads,
                                           SolveStats& stats) {
  Workspace& ws = pass.ws;
  TreeProjection& tp = pass.tp;
  TreeElimination& e = tp.elimination;
  const int parts = e.parts();
  std::swap(tp.y, tp.rhs);
  if (!ahead)
    threads.for_parts(parts, [&](int p, int) {
      e.factor_part(p, tp.J.data(), ws.w.data(), tp.held.data(), tp.diag.data(), tp.y.data(), pivot);
    });
  e.factor_top(tp.J.data(), ws.w.data(), tp.held.data(), tp.diag.data(), tp.y.data(), pivot);
  e.back_top(tp.y.data());
  count_solve(ws, tp, stats);
  step_idle(tp, pass.q);
  step_particles(ws, tp, pass.force, pass.q, tp.parts.back().particles);
  pass.sums.back().errors = evaluate_rods(tp, pass.q.data(), false, tp.parts.back().rods);
  if (pass.pivot != pivot) pass.pivot = pivot;  // written only when it changes: the workers keep the line
  threads.for_parts(parts, pass.run);
  double worst = 0.0, sum = 0.0;
  for (const PartsPass::Sums& s : pass.sums) {
    worst = std::max(worst, s.errors.first);
    sum += s.errors.second;
  }
  return {worst, std::sqrt(sum)};
}

}  // namespace

bool tree_applies(const WorldModel& m, Workspace& ws) {
  const WorldSettings& s = m.settings;
  TreeProjection& tp = ws.tree;
  if (!tp.enabled || s.solver != LinearSolver::ldlt || regularization(s) != 0.0) return false;
  if (tp.model != m.model_version) analyse(m, tp);
  // Contact rows (after the model's) join the system: the general path's.
  return tp.applies && !(ws.contacts.active_for(m) && ws.contacts.rows() > 0);
}

bool project_positions_on_tree(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h,
                               const LineSearch& search, ProjectionOutcome& out) {
  const WorldSettings& s = m.settings;
  TreeProjection& tp = ws.tree;
  tp.rows_q.clear();  // RATTLE reads only the rows of this projection
  if (s.projection != Projection::nearest || !tree_applies(m, ws)) return false;
  tp.factored = false;  // its evaluations rewrite tp.J, its factorizations the elimination
  tp.blocks_of = 0;

  out = ProjectionOutcome{};
  ws.rows_valid = false;  // the workspace's rows are not this path's: evaluate_rows starts afresh
  auto [worst, norm] = evaluate(m, d, ws, tp, t, d.q, true);
  out.error = out.start = worst;
  if (out.error < s.projection_tolerance) {
    tp.rows_q.assign(d.q.data(), d.q.data() + d.q.size());
    return true;
  }
  const double initial = norm;
  Saved saved;
  if (tp.bounded || tp.any_slack || tp.motors) saved.take(d, ws);
  const int dof = d.dof();
  tp.dq.assign(static_cast<std::size_t>(dof), 0.0);
  tp.moved.assign(static_cast<std::size_t>(dof), 0.0);
  tp.start.resize(static_cast<std::size_t>(dof));
  // As the general path: full Newton steps, halved only where they would
  // diverge, each one's share of the constraint forces taken whole before
  // and a cut step's untaken part given back through J where it ended.
  const double force = 1.0 / (h * s.dt);
  // On more than one thread a sweep model whose fronts split goes in parts
  // (iterate_in_parts); no bound binds there.
  const Parallel threads = parallel(m, ws);
  bool in_parts = tp.sweep && !tp.bounded && !tp.any_slack && tp.elimination.plan_parts(threads.count);
  const int parts = tp.elimination.parts();
  if (in_parts && std::abs(tp.parts_for) != parts) tp.parts_for = schedule_parts(tp, dof) ? parts : -parts;
  in_parts = in_parts && tp.parts_for == parts;
  double ahead = 0.0;  // the pivot test the parts' fronts are factored ahead with (0: they are not)
  std::optional<PartsPass> pass;
  if (in_parts) pass.emplace(ws, tp, d.q, force);
  NewtonStall stall;
  const int cap = projection_cap(s, ws);
  BestPoint best(cap);
  while (out.error >= s.projection_tolerance) {
    if (out.iterations == cap) {
      out.capped = true;
      // The rows RATTLE reads (tp.rows_q) are then the best point's.
      if (best.restore_if_better(out.error, d, ws, tp.moved.data())) out.error = evaluate(m, d, ws, tp, t, d.q, false).first;
      if (went_nowhere(out)) {
        for (int i = 0; i < dof; ++i) {
          d.q[i] -= tp.moved[static_cast<std::size_t>(i)];
          tp.moved[static_cast<std::size_t>(i)] = 0.0;
        }
        out.error = evaluate(m, d, ws, tp, t, d.q, false).first;
      }
      break;
    }
    ++out.iterations;
    SolveStats stats;
    double alpha = 1.0, trial = norm;
    const double pivot = MultifrontalLdlt::dependent_pivot(stall.strict);
    if (in_parts) {
      std::tie(worst, trial) = iterate_in_parts(*pass, pivot, ahead == pivot, threads, stats);
      ahead = pivot;
      record_solve(m, ws, stats, 0);
    } else {
      if (!solve(ws, tp, stall.strict, stats)) {
        saved.restore(d, ws);
        return false;
      }
      record_solve(m, ws, stats, 0);
      // The full step first (the line search's usual answer): dq = W Jᵀ μ.
      if (tp.sweep) {
        step_rods(ws, tp, force, d.q);
      } else {
        std::fill(tp.dq.begin(), tp.dq.end(), 0.0);
        add_forces(d, ws, tp, force, tp.dq.data());
        for (int i = 0; i < dof; ++i) {
          const auto k = static_cast<std::size_t>(i);
          tp.dq[k] *= ws.w[i];
          d.q[i] += tp.dq[k];
          tp.moved[k] += tp.dq[k];
        }
      }
      std::tie(worst, trial) = evaluate(m, d, ws, tp, t, d.q, false);
    }
    for (int cut = 1; cut <= search.max_cuts && !(std::isfinite(trial) && trial <= search.max_growth * initial); ++cut) {
      // Where the step began, q − dq: the steps keep no copy of q for a cut
      // this rare (storing one, a chain's sweep took 2 % longer).
      if (cut == 1)
        for (int i = 0; i < dof; ++i) tp.start[static_cast<std::size_t>(i)] = d.q[i] - tp.dq[static_cast<std::size_t>(i)];
      alpha *= 0.5;
      for (int i = 0; i < dof; ++i) d.q[i] = tp.start[static_cast<std::size_t>(i)] + alpha * tp.dq[static_cast<std::size_t>(i)];
      std::tie(worst, trial) = evaluate(m, d, ws, tp, t, d.q, false);
    }
    if (alpha < 1.0) {
      ahead = 0.0;  // the parts factored ahead at the full step
      for (int i = 0; i < dof; ++i) tp.moved[static_cast<std::size_t>(i)] += (alpha - 1.0) * tp.dq[static_cast<std::size_t>(i)];
      add_forces(d, ws, tp, (alpha - 1.0) * force, nullptr);
    }
    if (tp.any_slack && drawn_taut(tp, s.projection_tolerance)) {
      saved.restore(d, ws);
      return false;
    }
    stall.record(norm, trial, ws.step_rank_deficiency);
    norm = trial;
    out.error = worst;
    best.see(out.iterations, out.error, d, ws, tp.moved.data());
  }
  for (int i = 0; i < dof; ++i) d.v[i] += tp.moved[static_cast<std::size_t>(i)] / h;
  tp.rows_q.assign(d.q.data(), d.q.data() + d.q.size());  // the last evaluation's
  return true;
}

}  // namespace linkage
