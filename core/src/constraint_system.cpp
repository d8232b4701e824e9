#include "constraint_system.hpp"

#include <algorithm>
#include <cassert>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <variant>

#include "block_shape.hpp"
#include "body_view.hpp"
#include "constraints/parts.hpp"
#include "constraints/rows_2d.hpp"
#include "dynamics.hpp"
#include "planar_rows.hpp"
#include "tree_solve.hpp"

namespace linkage {

namespace {

// Below this many constraints (or bodies) an evaluation is not worth waking
// threads for. A pass that only moves each constraint's λ and forces costs
// a row's worth: it waits for kParallelRows (chain_1000 on two threads
// took 0.37 ms a step with those passes split at 500, 0.33 ms with them
// whole, its one-thread time).
constexpr int kParallelConstraints = 500;

// Where constraint `c`'s blocks go in J: per body end, its first DOF and
// DOF count (−1, 0: no block, the end cannot move).
std::array<int, 4> layout_of(const WorldModel& m, int body_a, int body_b) {
  std::array<int, 4> out{-1, 0, -1, 0};
  for (int end = 0; end < 2; ++end) {
    const int body = end == 0 ? body_a : body_b;
    if (body < 0) continue;
    const BodyRecord& b = m.bodies[static_cast<std::size_t>(body)];
    if (b.motion != Motion::dynamic) continue;
    out[static_cast<std::size_t>(2 * end)] = b.offset;
    out[static_cast<std::size_t>(2 * end + 1)] = b.dof;
  }
  return out;
}
std::array<int, 4> layout_of(const WorldModel& m, const ConstraintRecord& c) { return layout_of(m, c.body_a, c.body_b); }

// Does J's group `group` have the blocks layout `l` asks for?
bool same_blocks(const BlockJacobian& J, int group, const std::array<int, 4>& l) {
  const BlockJacobian::Group& g = J.groups()[static_cast<std::size_t>(group)];
  int k = g.first_block;
  for (int end = 0; end < 2; ++end) {
    if (l[static_cast<std::size_t>(2 * end + 1)] == 0) continue;
    if (k >= g.first_block + g.blocks || J.block(k).col != l[static_cast<std::size_t>(2 * end)] ||
        J.block(k).cols != l[static_cast<std::size_t>(2 * end + 1)])
      return false;
    ++k;
  }
  return k == g.first_block + g.blocks;
}

bool moves(const WorldModel& m, int body) {
  return body >= 0 && m.bodies[static_cast<std::size_t>(body)].motion == Motion::dynamic;
}

// What the evaluation writes besides C, Ċ and J: J̇q̇ and c_tt where the
// dynamics reads them (the force-based family's right-hand side); the
// bounds (which the solves scale); the rows' kinds and softness (the
// model's alone: written once per model version).
struct Writes {
  bool second_order, kinds;
};

// What a constraint's rows are besides their values: c_tt, bounds and kinds, as `w` says.
void copy_row_kinds(Workspace& ws, const ConstraintRecord& c, const Rows& rows, int row, Writes w) {
  for (int r = 0; r < c.rows; ++r) {
    if (w.second_order) ws.c_tt[row + r] = rows.c_tt[r];
    ws.lo[row + r] = rows.lo[r];
    ws.hi[row + r] = rows.hi[r];
    if (!w.kinds) continue;
    ws.velocity_row[static_cast<std::size_t>(row + r)] = rows.velocity_level;
    ws.unilateral_row[static_cast<std::size_t>(row + r)] = rows.unilateral;
    ws.soft_omega[row + r] = 2.0 * std::numbers::pi * c.softness.frequency;
    ws.soft_zeta[row + r] = c.softness.damping_ratio;
    ws.contact_row[static_cast<std::size_t>(row + r)] = ContactRows::none;
  }
}

void copy_rows(Workspace& ws, const ConstraintRecord& c, const Rows& rows, int row, Writes w) {
  for (int r = 0; r < c.rows; ++r) {
    ws.C[row + r] = rows.C[r];
    ws.Cdot[row + r] = rows.Cdot[r];
    if (w.second_order) ws.jdot_qdot[row + r] = rows.jdot_qdot[r];
  }
  copy_row_kinds(ws, c, rows, row, w);
}

// An equality's rows (a pin's, a rod's): unbounded, position-level, time-independent.
const Rows& equality_rows() {
  static const Rows rows = [] {
    Rows r;
    set_equality(r, Rows::kMax);
    return r;
  }();
  return rows;
}

void copy_contact_rows(Workspace& ws, int group, const Rows& rows, int row) {
  for (int r = 0; r < rows.count; ++r) {
    const ContactRows::Kind kind = ws.contacts.kind(group, r);
    ws.C[row + r] = rows.C[r];
    ws.Cdot[row + r] = rows.Cdot[r];
    ws.jdot_qdot[row + r] = 0.0;  // for the force-based family, which takes no contacts
    ws.c_tt[row + r] = 0.0;
    ws.lo[row + r] = rows.lo[r];
    ws.hi[row + r] = rows.hi[r];
    ws.velocity_row[static_cast<std::size_t>(row + r)] = kind == ContactRows::friction;
    ws.unilateral_row[static_cast<std::size_t>(row + r)] = kind == ContactRows::normal;
    ws.soft_omega[row + r] = 0.0;
    ws.soft_zeta[row + r] = 0.0;
    ws.contact_row[static_cast<std::size_t>(row + r)] = kind;
  }
}

// The substep's contacts, if they belong to this model (else none).
const ContactRows* contacts_of(const WorldModel& m, const Workspace& ws) {
  return ws.contacts.active_for(m) ? &ws.contacts : nullptr;
}

// Each rigid body's (cos θ, sin θ) at q, for body_view.
void rotations(const WorldModel& m, Workspace& ws, const Eigen::VectorXd& q) {
  std::vector<std::pair<double, double>>& out = ws.rotation;
  out.resize(m.bodies.size());
  // The rigid bodies, listed once per model version (a model of particles
  // has none, and its bodies' records are not read again).
  Workspace::Turning& t = ws.turning;
  if (t.model != m.model_version) {
    t.model = m.model_version;
    t.bodies.clear();
    for (std::size_t i = 0; i < m.bodies.size(); ++i)
      if (m.bodies[i].kind == BodyKind::rigid) t.bodies.push_back({static_cast<int>(i), m.bodies[i].offset + 2});
  }
  // A sine and a cosine a rigid body: on a large model, split between the threads.
  const int n = static_cast<int>(t.bodies.size());
  parallel(m, ws).for_parts(n < kParallelConstraints ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    for (int i = first; i < last; ++i) {
      const auto [body, angle] = t.bodies[static_cast<std::size_t>(i)];
      out[static_cast<std::size_t>(body)] = {std::cos(q[angle]), std::sin(q[angle])};
    }
  });
}

// Whether any model row has a finite bound, with the kinds (once per model version).
void remember_bounded(Workspace& ws) {
  ws.kinds_bounded = false;
  for (int i = 0; i < ws.kinds_rows && !ws.kinds_bounded; ++i)
    ws.kinds_bounded = std::isfinite(ws.lo[i]) || std::isfinite(ws.hi[i]);
}

void copy_block(double* out, const Eigen::Matrix3d& block, int rows, int dof) {
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < dof; ++k) out[r * dof + k] = block(r, k);
}

}  // namespace

void remember_rows(const WorldModel& m, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  ws.rows_valid = true;
  ws.rows_t = t;
  ws.rows_model = m.model_version;
  ws.rows_q = q;
  ws.rows_v = v;
  ws.rows_contacts = ws.contacts.active_for(m) ? ws.contacts.stamp() : 0;
}

int model_rows(const WorldModel& m, const Workspace& ws) {
  if (ws.force_layout.model == m.model_version) return ws.force_layout.row.back();  // a step's
  int nr = 0;
  for (const ConstraintRecord& c : m.constraints) nr += c.rows;
  return nr;
}

int system_rows(const WorldModel& m, const Workspace& ws) {
  const ContactRows* contacts = contacts_of(m, ws);
  return model_rows(m, ws) + (contacts ? contacts->rows() : 0);
}

void evaluate_constraints(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const ContactRows* contacts = contacts_of(m, ws);
  const int first_contact_row = model_rows(m, ws);
  const int nr = first_contact_row + (contacts ? contacts->rows() : 0);
  const std::size_t groups = m.constraints.size() + static_cast<std::size_t>(contacts ? contacts->groups() : 0);
  const std::uint64_t contact_stamp = contacts ? contacts->stamp() : 0;
  ws.C.resize(nr);
  ws.Cdot.resize(nr);
  ws.jdot_qdot.resize(nr);
  ws.c_tt.resize(nr);
  ws.lo.resize(nr);
  ws.hi.resize(nr);
  ws.velocity_row.resize(static_cast<std::size_t>(nr));
  ws.unilateral_row.resize(static_cast<std::size_t>(nr));
  ws.contact_row.resize(static_cast<std::size_t>(nr));
  ws.soft_omega.resize(nr);
  ws.soft_zeta.resize(nr);
  const int dim = m.settings.dimension;
  // The model rows' kinds and softness stay in place while the model does.
  const bool kinds = ws.kinds_model != m.model_version;
  const Writes writes{m.settings.dynamics == Dynamics::force_based, kinds};
  if (kinds && !writes.second_order) {  // zeros, not stale values, where nothing writes them
    ws.jdot_qdot.setZero();
    ws.c_tt.setZero();
  }
  ws.kinds_model = m.model_version;
  ws.kinds_rows = first_contact_row;

  rotations(m, ws, q);
  const auto& rot = ws.rotation;
  // J keeps its layout while the constraints and the bodies' motions do:
  // then the blocks are written where they are (the common case: every
  // evaluation of a step, and every step until the topology changes).
  const Workspace::CheckedLayout now{ws.J.layout(), m.model_version, contact_stamp};
  auto is_now = [&](const Workspace::CheckedLayout& c) {
    return c.layout == now.layout && c.model == now.model && c.contacts == now.contacts;
  };
  const bool checked = is_now(ws.layouts_checked[0]) || is_now(ws.layouts_checked[1]);
  auto remember_layout = [&] {
    if (is_now(ws.layouts_checked[0])) return;
    ws.layouts_checked[1] = ws.layouts_checked[0];
    ws.layouts_checked[0] = {ws.J.layout(), m.model_version, contact_stamp};
  };
  bool same = checked || (ws.J.rows() == nr && ws.J.cols() == d.dof() && ws.J.groups().size() == groups);
  for (std::size_t i = 0; same && !checked && i < m.constraints.size(); ++i)
    same = same_blocks(ws.J, static_cast<int>(i), layout_of(m, m.constraints[i]));
  for (int g = 0; same && !checked && contacts && g < contacts->groups(); ++g) {
    const int group = static_cast<int>(m.constraints.size()) + g;
    same = ws.J.groups()[static_cast<std::size_t>(group)].rows == contacts->group_rows(g) &&
           same_blocks(ws.J, group, layout_of(m, contacts->body_a(g), contacts->body_b(g)));
  }
  // A contact group's rows and blocks, at J's group `group` from row `row`.
  auto write_contact = [&](int g, int group, int row, bool append) {
    Rows rows;
    contacts->evaluate(m, g, q, v, rows);
    copy_contact_rows(ws, g, rows, row);
    if (append) ws.J.begin_group(row, rows.count);
    const std::array<int, 4> l = layout_of(m, contacts->body_a(g), contacts->body_b(g));
    int k = append ? 0 : ws.J.groups()[static_cast<std::size_t>(group)].first_block;
    for (int end = 0; end < 2; ++end) {
      const int dof = l[static_cast<std::size_t>(2 * end + 1)];
      if (dof == 0) continue;
      double* out = append ? ws.J.add_block(l[static_cast<std::size_t>(2 * end)], dof)
                           : ws.J.mutable_values() + ws.J.block(k++).values;
      copy_block(out, end == 0 ? rows.Ja : rows.Jb, rows.count, dof);
    }
  };
  if (same) {
    remember_layout();
    double* values = ws.J.mutable_values();
    // diag(J W Jᵀ) of each constraint's rows as they are written, while
    // they are in cache: the step's solve would make a pass over J for it
    // (prepare_system). Contacts' rows come after: then it waits for it.
    const bool with_diag = !contacts && inverse_masses_current(m, d, ws);
    if (with_diag) ws.diag.resize(nr);
    const int n = static_cast<int>(m.constraints.size());
    // A rod or a pin goes through its compact record (once the rows' kinds
    // are in place): the same rows.
    const PlanarRows* planar = kinds || !ws.planar_enabled ? nullptr : &planar_rows(m, ws);
    if (planar && !planar->any) planar = nullptr;
    const double* w = with_diag ? ws.w.data() : nullptr;
    parallel(m, ws).for_parts(n < kParallelConstraints ? 1 : n, [&](int p, int parts) {
      const auto [first, last] = split(n, parts, p);
      for (int i = first; i < last; ++i) {
        if (planar) {
          i = write_planar_rows(planar->rows.data(), i, last, q, v, w, writes.second_order, ws, values);
          if (i == last) break;
        }
        const ConstraintRecord& c = m.constraints[static_cast<std::size_t>(i)];
        const BlockJacobian::Group& g = ws.J.groups()[static_cast<std::size_t>(i)];
        const PinDef* pin = dim == 2 ? std::get_if<PinDef>(&c.def) : nullptr;
        const DistanceDef* rod = dim == 2 && !pin ? std::get_if<DistanceDef>(&c.def) : nullptr;
        if (pin || rod) {
          // J's blocks follow the ends that move, a's first (layout_of).
          double* block[2] = {nullptr, nullptr};
          int k = g.first_block;
          if (moves(m, c.body_a)) block[0] = values + ws.J.block(k++).values;
          if (moves(m, c.body_b)) block[1] = values + ws.J.block(k).values;
          const BodyView a = body_view(m, c.body_a, q, v, rot), b = body_view(m, c.body_b, q, v, rot);
          const RowsOut2d out{&ws.C[g.row], &ws.Cdot[g.row], writes.second_order ? &ws.jdot_qdot[g.row] : nullptr, block[0], block[1]};
          if (pin) {
            write_pin_rows_2d(*pin, a, b, out);
          } else {
            write_rod_rows_2d(*rod, a, b, out);
          }
          copy_row_kinds(ws, c, equality_rows(), g.row, writes);
        } else {
          Rows rows;
          evaluate_constraint(c.def, body_view(m, c.body_a, q, v, rot), body_view(m, c.body_b, q, v, rot), t, dim, rows);
          copy_rows(ws, c, rows, g.row, writes);
          int k = g.first_block;
          for (int end = 0; end < 2; ++end) {
            const int body = end == 0 ? c.body_a : c.body_b;
            if (body < 0 || m.bodies[static_cast<std::size_t>(body)].motion != Motion::dynamic) continue;
            const BlockJacobian::Block& b = ws.J.block(k++);
            copy_block(values + b.values, end == 0 ? rows.Ja : rows.Jb, c.rows, b.cols);
          }
        }
        if (with_diag) ws.J.gram_diagonal(g, ws.w, &ws.diag[g.row]);
      }
    });
    for (int g = 0; contacts && g < contacts->groups(); ++g) {
      const int group = static_cast<int>(m.constraints.size()) + g;
      write_contact(g, group, ws.J.groups()[static_cast<std::size_t>(group)].row, false);
    }
    ws.diag_of = with_diag ? Workspace::DiagOf{ws.J.values_stamp(), ws.w_model} : Workspace::DiagOf{};
    if (kinds) remember_bounded(ws);
    remember_rows(m, ws, t, q, v);
    return;
  }

  ws.J.reset(nr, d.dof());
  int row = 0;
  for (const ConstraintRecord& c : m.constraints) {
    Rows rows;
    evaluate_constraint(c.def, body_view(m, c.body_a, q, v, rot), body_view(m, c.body_b, q, v, rot), t, dim, rows);
    copy_rows(ws, c, rows, row, {writes.second_order, true});
    ws.J.begin_group(row, c.rows);
    const std::array<int, 4> l = layout_of(m, c);
    for (int end = 0; end < 2; ++end) {
      const int dof = l[static_cast<std::size_t>(2 * end + 1)];
      if (dof == 0) continue;
      copy_block(ws.J.add_block(l[static_cast<std::size_t>(2 * end)], dof), end == 0 ? rows.Ja : rows.Jb, c.rows, dof);
    }
    row += c.rows;
  }
  for (int g = 0; contacts && g < contacts->groups(); ++g) {
    write_contact(g, -1, row, true);
    row += contacts->group_rows(g);
  }
  remember_layout();
  if (kinds) remember_bounded(ws);
  remember_rows(m, ws, t, q, v);
}

void evaluate_rows(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const bool current = ws.rows_valid && ws.rows_model == m.model_version && ws.rows_t == t &&
                       ws.rows_contacts == (ws.contacts.active_for(m) ? ws.contacts.stamp() : 0) &&
                       ws.rows_q.size() == q.size() &&
                       (q.size() == 0 ||  // memcmp wants valid pointers, and an empty vector has none
                        std::memcmp(ws.rows_q.data(), q.data(), sizeof(double) * static_cast<std::size_t>(q.size())) == 0);
  if (!current) {
    evaluate_constraints(m, d, ws, t, q, v);
    return;
  }
  if (ws.rows_v.size() == v.size() && ws.rows_v == v) return;
  if (!move_rates_on_tree(m, ws, v)) {
    Eigen::VectorXd dv = v - ws.rows_v, jdv;
    ws.J.multiply(dv, jdv, parallel(m, ws));
    ws.Cdot += jdv;
  }
  ws.rows_v = v;
}

double regularization(const WorldSettings& s) {
  // The direct solver takes dependent rows out instead, and would not see
  // them through a regularized diagonal (their pivots would not vanish).
  const bool direct = s.solver == LinearSolver::ldlt && s.dynamics != Dynamics::sequential_impulses;
  return direct ? 0.0 : s.regularization;
}

void evaluate_errors(const WorldModel& m, WorldData& d, Workspace& ws, double t, const Eigen::VectorXd& q) {
  ws.rows_valid = false;  // C no longer matches the rest of the rows
  const int n = static_cast<int>(m.constraints.size());
  ws.first_row.resize(static_cast<std::size_t>(n) + 1);
  ws.first_row[0] = 0;
  for (int i = 0; i < n; ++i) ws.first_row[static_cast<std::size_t>(i) + 1] = ws.first_row[static_cast<std::size_t>(i)] + m.constraints[static_cast<std::size_t>(i)].rows;
  const ContactRows* contacts = contacts_of(m, ws);
  ws.C.resize(ws.first_row.back() + (contacts ? contacts->rows() : 0));
  rotations(m, ws, q);
  const auto& rot = ws.rotation;
  parallel(m, ws).for_parts(n < kParallelConstraints ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    Rows rows;
    for (int i = first; i < last; ++i) {
      const ConstraintRecord& c = m.constraints[static_cast<std::size_t>(i)];
      evaluate_constraint(c.def, body_view(m, c.body_a, q, d.v, rot), body_view(m, c.body_b, q, d.v, rot), t,
                          m.settings.dimension, rows);
      for (int r = 0; r < c.rows; ++r) ws.C[ws.first_row[static_cast<std::size_t>(i)] + r] = rows.C[r];
    }
  });
  if (!contacts) return;
  Rows rows;
  for (int g = 0, row = ws.first_row.back(); g < contacts->groups(); row += contacts->group_rows(g), ++g) {
    contacts->evaluate(m, g, q, d.v, rows);
    for (int r = 0; r < rows.count; ++r) ws.C[row + r] = rows.C[r];
  }
}

namespace {

// Contact rows are regularized (contact_rows.hpp), whatever the solver.
void comply_contact_rows(Workspace& ws) {
  for (std::size_t i = 0; i < ws.contact_row.size() && i < ws.held.size(); ++i)
    if (ws.contact_row[i] != ContactRows::none && !ws.held[i])
      ws.reg[static_cast<int>(i)] = std::max(ws.reg[static_cast<int>(i)], ContactRows::kContactCompliance * ws.diag[static_cast<int>(i)]);
}

bool has_contact_rows(const Workspace& ws) {
  return std::any_of(ws.contact_row.begin(), ws.contact_row.end(), [](char k) { return k != ContactRows::none; });
}

}  // namespace

namespace {

// ws.diag for J: kept where it is already J's with these inverse masses.
void gram_diagonal(const WorldModel& m, Workspace& ws, const BlockJacobian& J) {
  const Workspace::DiagOf of{J.values_stamp(), ws.w_model};
  if (ws.diag_of.values == of.values && ws.diag_of.w_model == of.w_model && ws.diag.size() == J.rows()) return;
  ws.diag = J.gram_diagonal(ws.w, parallel(m, ws));
  ws.diag_of = of;
}

}  // namespace

void hold_rows(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const std::vector<char>& held) {
  ws.held = held;
  const double relative = regularization(m.settings);
  const bool contacts = has_contact_rows(ws);
  if (relative > 0.0 || contacts) gram_diagonal(m, ws, J);
  ws.reg.resize(J.rows());
  for (std::size_t i = 0; i < held.size(); ++i)
    ws.reg[static_cast<int>(i)] = held[i] ? 1.0 : relative > 0.0 ? relative * ws.diag[static_cast<int>(i)] : 0.0;
  if (contacts) comply_contact_rows(ws);
}

int prepare_system(const WorldModel& m, Workspace& ws) { return prepare_system(m, ws, ws.J); }

int prepare_system(const WorldModel& m, Workspace& ws, const BlockJacobian& J) {
  const int nr = J.rows();
  gram_diagonal(m, ws, J);
  const double relative = regularization(m.settings);
  ws.reg.resize(nr);
  ws.held.resize(static_cast<std::size_t>(nr));
  ws.fixed.resize(nr);
  std::vector<int> held(static_cast<std::size_t>(std::max(m.settings.threads, 1)), 0);  // per part
  parallel(m, ws).for_parts(nr < kParallelRows ? 1 : nr, [&](int p, int parts) {
    const auto [first, last] = split(nr, parts, p);
    int count = 0;  // in a register: a count in the shared vector made each row wait on the last's store
    for (int i = first; i < last; ++i) {
      const bool none = !(ws.diag[i] > 0.0);  // the row moves nothing
      ws.held[static_cast<std::size_t>(i)] = none;
      ws.reg[i] = none ? 1.0 : relative * ws.diag[i];
      ws.fixed[i] = 0.0;
      count += none;
    }
    held[static_cast<std::size_t>(p)] = count;
  });
  comply_contact_rows(ws);
  return std::accumulate(held.begin(), held.end(), 0);
}

std::vector<int> hold_slack_rows(Workspace& ws, double tolerance, bool contacts_apart) {
  std::vector<int> held;
  for (std::size_t i = 0; i < ws.held.size(); ++i) {
    if (!ws.unilateral_row[i] || ws.held[i] || ws.C[static_cast<int>(i)] >= -tolerance) continue;
    if (contacts_apart && ws.contact_row[i] == ContactRows::normal) continue;
    ws.held[i] = 1;
    ws.reg[static_cast<int>(i)] = 1.0;
    held.push_back(static_cast<int>(i));
  }
  return held;
}

void apply_soft_forces(Workspace& ws) {
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    const double w = ws.soft_omega[i];
    if (w == 0.0 || ws.held[static_cast<std::size_t>(i)]) continue;
    ws.held[static_cast<std::size_t>(i)] = 1;
    ws.reg[i] = 1.0;
    ws.fixed[i] = -(w * w * ws.C[i] + 2.0 * ws.soft_zeta[i] * w * ws.Cdot[i]) / ws.diag[i];
  }
}

void soften_rows(Workspace& ws, double h) {
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    const double w = ws.soft_omega[i];
    if (w == 0.0 || ws.held[static_cast<std::size_t>(i)]) continue;
    ws.reg[i] += ws.diag[i] / (h * w * (2.0 * ws.soft_zeta[i] + h * w));
  }
}

double soft_bias(const Workspace& ws, int row, double h) {
  const double w = ws.soft_omega[row];
  return w / (2.0 * ws.soft_zeta[row] + h * w) * ws.C[row];
}

void hold_soft_rows(Workspace& ws) {
  for (int i = 0; i < ws.soft_omega.size(); ++i) {
    if (ws.soft_omega[i] == 0.0) continue;
    ws.held[static_cast<std::size_t>(i)] = 1;
    ws.reg[i] = 1.0;
  }
}

void gather_warm(const WorldModel& m, WorldData& d, Workspace& ws, double scale) {
  ws.lambda.resize(ws.J.rows());
  if (!m.settings.warm_start) scale = 0.0;
  const std::vector<int>& first_row = ws.force_layout.row;  // made this step by begin_constraint_forces
  assert(ws.force_layout.model == m.model_version);
  const int nr = first_row.back();
  const Workspace::Warm& warm = ws.warm;
  if (warm.model == m.model_version && (warm.pending || warm.steps == d.steps) && warm.rows.size() == nr) {
    parallel(m, ws).for_parts(nr < kParallelRows ? 1 : nr, [&](int p, int parts) {
      const auto [first, last] = split(nr, parts, p);
      for (int i = first; i < last; ++i) ws.lambda[i] = ws.held[static_cast<std::size_t>(i)] ? 0.0 : scale * warm.rows[i];
    });
  } else {
    const int n = static_cast<int>(m.constraints.size());
    parallel(m, ws).for_parts(n < kParallelRows ? 1 : n, [&](int p, int parts) {
      const auto [first, last] = split(n, parts, p);
      for (int i = first; i < last; ++i) {
        const int row = first_row[static_cast<std::size_t>(i)], rows = m.constraints[static_cast<std::size_t>(i)].rows;
        const ConstraintState& state = d.constraints[static_cast<std::size_t>(i)];
        for (int r = 0; r < rows; ++r)
          ws.lambda[row + r] = ws.held[static_cast<std::size_t>(row + r)] ? 0.0 : scale * state.warm[static_cast<std::size_t>(r)];
      }
    });
  }
  if (nr == ws.lambda.size()) return;
  // Contacts keep their impulses (N·s) from the last substep.
  ws.contacts.warm_start(ws.lambda, nr);
  for (int i = nr; i < ws.lambda.size(); ++i)
    if (ws.held[static_cast<std::size_t>(i)] || !m.settings.warm_start) ws.lambda[i] = 0.0;
}

void scatter_warm(const WorldModel& m, Workspace& ws, double scale) {
  assert(ws.force_layout.model == m.model_version);
  const int nr = ws.force_layout.row.back();
  Workspace::Warm& warm = ws.warm;
  warm.rows.resize(nr);
  parallel(m, ws).for_parts(nr < kParallelRows ? 1 : nr, [&](int p, int parts) {
    const auto [first, last] = split(nr, parts, p);
    for (int i = first; i < last; ++i) warm.rows[i] = ws.lambda[i] / scale;
  });
  warm.model = m.model_version;
  warm.pending = true;
}

void add_reaction(Reaction& out, const double* generalized, bool rigid, int dof) {
  if (rigid) {
    out.force.x() += generalized[0];
    out.force.y() += generalized[1];
    out.torque += generalized[2];
  } else {
    for (int i = 0; i < dof; ++i) out.force[i] += generalized[i];
  }
}

void begin_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws) {
  Workspace::ForceLayout& l = ws.force_layout;
  if (l.model != m.model_version) {
    const std::size_t n = m.constraints.size();
    l.row.assign(n + 1, 0);
    l.block.assign(n + 1, 0);
    l.fixed_end.clear();
    l.ends.assign(n, {});
    l.ropes = false;
    for (std::size_t i = 0; i < n; ++i) {
      const ConstraintRecord& c = m.constraints[i];
      l.row[i + 1] = l.row[i] + c.rows;
      l.ropes = l.ropes || std::holds_alternative<RopeDef>(c.def);
      l.block[i + 1] = l.block[i] + moves(m, c.body_a) + moves(m, c.body_b);
      if ((c.body_a >= 0 && !moves(m, c.body_a)) || (c.body_b >= 0 && !moves(m, c.body_b)))
        l.fixed_end.push_back(static_cast<int>(i));
      for (int e = 0; e < 2; ++e) {
        const int body = e == 0 ? c.body_a : c.body_b;
        if (body < 0) continue;
        const BodyRecord& b = m.bodies[static_cast<std::size_t>(body)];
        l.ends[i][static_cast<std::size_t>(e)] = {moves(m, body) ? Workspace::ForceLayout::End::moving : Workspace::ForceLayout::End::fixed,
                                                  b.kind == BodyKind::rigid, static_cast<signed char>(b.dof)};
      }
    }
    l.model = m.model_version;
  }
  ws.warm.pending = false;  // a step cut short left none to write
  // Only a fixed end's reaction is added to where it lies; the rest are
  // written whole by finish_constraint_forces.
  for (const int i : l.fixed_end) {
    ConstraintState& state = d.constraints[static_cast<std::size_t>(i)];
    state.on_a = state.on_b = Reaction{};
  }
  // finish_constraint_forces leaves them zero as it reads them.
  const auto values = static_cast<std::size_t>(3 * l.block.back());
  if (!ws.forces_clear || ws.step_lambda.size() != l.row.back() || ws.block_forces.size() != values) {
    ws.step_lambda.setZero(l.row.back());
    ws.block_forces.assign(values, 0.0);
  }
  ws.forces_clear = false;
}

void remember_substep_lambda(Workspace& ws) { ws.substep_lambda = ws.step_lambda; }

void add_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws, const BlockJacobian& J, const Eigen::VectorXd& lambda, double factor,
                           double t, const Eigen::VectorXd& q) {
  const int model = static_cast<int>(ws.step_lambda.size());
  assert(lambda.size() == J.rows() && model <= J.rows() &&
         J.groups().size() == m.constraints.size() + static_cast<std::size_t>(model < J.rows() ? ws.contacts.groups() : 0));
  ws.step_lambda += factor * lambda.head(model);
  if (model < J.rows()) ws.contacts.add_impulses(lambda, model, factor * m.settings.dt);
  double* forces = ws.block_forces.data();
  const int n = static_cast<int>(m.constraints.size());
  // Each constraint writes its own blocks' forces: split between the threads.
  parallel(m, ws).for_parts(n < kParallelRows ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    for (int gi = first; gi < last; ++gi) {
      const BlockJacobian::Group& g = J.groups()[static_cast<std::size_t>(gi)];
      double l[3];
      for (int r = 0; r < g.rows; ++r) l[r] = factor * lambda[g.row + r];
      for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
        const BlockJacobian::Block& b = J.block(k);
        assert(static_cast<std::size_t>(3 * k + b.cols) <= ws.block_forces.size());
        const double* v = J.values(b);
        double* f = forces + 3 * k;
        if (b.cols == 3) block_transpose_add<3>(v, g.rows, l, f);  // a rigid body's (x, y, θ) or a 3D particle's
        else block_transpose_add<2>(v, g.rows, l, f);              // a 2D particle's
      }
    }
  });
  Rows rows;
  for (const int i : ws.force_layout.fixed_end) {
    const ConstraintRecord& c = m.constraints[static_cast<std::size_t>(i)];
    ConstraintState& state = d.constraints[static_cast<std::size_t>(i)];
    const int row = J.groups()[static_cast<std::size_t>(i)].row;
    rows = Rows{};
    evaluate_constraint(c.def, body_view(m, c.body_a, q, d.v), body_view(m, c.body_b, q, d.v), t,
                        m.settings.dimension, rows);
    for (int end = 0; end < 2; ++end) {
      const int body = end == 0 ? c.body_a : c.body_b;
      if (body < 0 || moves(m, body)) continue;
      const BodyRecord& b = m.bodies[static_cast<std::size_t>(body)];
      const Eigen::Matrix3d& block = end == 0 ? rows.Ja : rows.Jb;
      double generalized[3] = {};
      for (int r = 0; r < c.rows; ++r)
        for (int x = 0; x < b.dof; ++x) generalized[x] += block(r, x) * factor * lambda[row + r];
      add_reaction(end == 0 ? state.on_a : state.on_b, generalized, b.kind == BodyKind::rigid, b.dof);
    }
  }
}

void finish_constraint_forces(const WorldModel& m, WorldData& d, Workspace& ws) {
  const Workspace::ForceLayout& l = ws.force_layout;
  Workspace::Warm& warm = ws.warm;
  const bool write_warm = warm.pending && warm.model == m.model_version;
  const int n = static_cast<int>(m.constraints.size());
  parallel(m, ws).for_parts(n < kParallelRows ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    for (int i = first; i < last; ++i) {
      const auto ci = static_cast<std::size_t>(i);
      ConstraintState& state = d.constraints[ci];
      const int row = l.row[ci], rows = l.row[ci + 1] - row;
      for (std::size_t r = 0; r < state.lambda.size(); ++r) state.lambda[r] = static_cast<int>(r) < rows ? ws.step_lambda[row + static_cast<int>(r)] : 0.0;
      for (int r = 0; r < rows; ++r) ws.step_lambda[row + r] = 0.0;  // the next step's start
      for (int r = 0; write_warm && r < rows; ++r) state.warm[static_cast<std::size_t>(r)] = warm.rows[row + r];
      int k = l.block[ci];
      for (int e = 0; e < 2; ++e) {
        const Workspace::ForceLayout::End& end = l.ends[ci][static_cast<std::size_t>(e)];
        Reaction& reaction = e == 0 ? state.on_a : state.on_b;
        if (end.kind == Workspace::ForceLayout::End::world) reaction = Reaction{};  // not reported
        if (end.kind != Workspace::ForceLayout::End::moving) continue;  // a fixed end's: added as each share came
        reaction = Reaction{};
        double* f = ws.block_forces.data() + 3 * k++;
        add_reaction(reaction, f, end.rigid, end.dof);
        f[0] = f[1] = f[2] = 0.0;  // the next step's start
      }
    }
  });
  ws.forces_clear = true;
  // The states now hold the flat warm starts, which stay valid for the next step's data.
  warm.pending = false;
  if (warm.model == m.model_version) warm.steps = d.steps + 1;
}

namespace {

// The active set's rounds before projected Gauss–Seidel finishes; the
// gradient that lets a held row go, relative to the row's own sides
// (|r_i| + |(K λ)_i|) and above a floor of round-off relative to the
// largest right side; and the rounds of whole exchanges that may fail to
// lower the count of wrong rows. A row is judged by its own scale because
// rows differ by orders of magnitude: a contact found 5 cm ahead asks for
// 5 cm beside an overlap of 3e-10 m, which a threshold relative to the
// largest row read as round-off, so that the overlap's row stayed held and
// the projection ran to its cap.
constexpr int kActiveSetRounds = 16;
constexpr double kReleaseTolerance = 1e-8;
constexpr double kRoundOff = 1e-13;
constexpr int kFullExchanges = 3;

bool has_bounds(const WorldModel& m, const Workspace& ws) {
  // The model rows' bounds are finite where the model's are (kept with
  // their kinds); only the rows after them (contacts') need looking at.
  const bool known = ws.kinds_model == m.model_version && ws.kinds_rows <= ws.lo.size();
  if (known && ws.kinds_bounded) return true;
  for (int i = known ? ws.kinds_rows : 0; i < ws.lo.size(); ++i)
    if (std::isfinite(ws.lo[i]) || std::isfinite(ws.hi[i])) return true;
  return false;
}

// The model's motors (its velocity rows; friction rows are velocity rows
// too, but a contact's), for the direct solver to take out first where
// rows depend on one another; null where there are none. Made once a model
// version; contact rows never yield.
const std::vector<char>* yielding_rows(const WorldModel& m, Workspace& ws) {
  if (ws.yielding_model != m.model_version) {
    ws.yielding_model = m.model_version;
    const int model = model_rows(m, ws);
    ws.yielding.assign(ws.velocity_row.begin(), ws.velocity_row.begin() + model);
    ws.any_yielding = std::find(ws.yielding.begin(), ws.yielding.end(), 1) != ws.yielding.end();
  }
  if (!ws.any_yielding) return nullptr;
  ws.yielding.resize(ws.velocity_row.size(), 0);
  return &ws.yielding;
}

// The free rows' solve, with bounded rows met by projection (Gauss–Seidel)
// or an active set (CG, LDLᵀ).
SolveStats solve_free_rows(const WorldModel& m, Workspace& ws, const SystemView& k, const SolveRequest& how) {
  const double tolerance = how.tolerance;
  const BlockJacobian& J = k.J;
  const WorldSettings& s = m.settings;
  auto swept = [&](const SolveStats& stats) {
    ws.direct.work += stats.iterations * sweep_cost(J);
    return stats;
  };
  if (s.solver == LinearSolver::gauss_seidel)
    return swept(solve_gauss_seidel(k, ws.rhs, ws.lambda, ws.lo, ws.hi, tolerance, s.solver_max_iterations));

  // An active set decides by the signs of λ and of its gradient: its solves
  // must be as tight as the world's, whatever looser one a Newton step asked.
  const bool bounded = has_bounds(m, ws);
  SolveRequest inner = how;
  if (bounded) {
    inner.tolerance = std::min(how.tolerance, s.solver_tolerance);
    inner.w_jt_lambda = nullptr;  // λ gathers several solves' and the clamped rows'
  }
  inner.yielding = yielding_rows(m, ws);
  auto solve_free = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& lambda) {
    if (s.solver == LinearSolver::ldlt)
      return ws.direct.solve(k, rhs, lambda, inner);
    return swept(solve_cg(k, rhs, lambda, inner.tolerance, s.solver_max_iterations));
  };
  const int nr = static_cast<int>(ws.rhs.size());
  const bool warm = ws.active_start.size() == static_cast<std::size_t>(nr);
  ws.active.assign(static_cast<std::size_t>(nr), 0);
  if (!bounded) return solve_free(ws.rhs, ws.lambda);

  // Active set (block principal pivoting, Júdice and Pires): a row past its
  // bound is held there, its coupling moved to the right-hand side, and the
  // rest solved again; a held row whose gradient g = K λ − r would take it
  // back inside (at its lower bound g < 0, at its upper g > 0: the
  // box-bounded problem's optimality) is let go. All such rows change at
  // once while that lowers their count; when it stops doing so for a few
  // rounds, only the last one does until it falls again, which cannot cycle
  // (K is positive definite). The set may start from another solve's
  // (ws.active_start).
  Eigen::VectorXd held_lambda = Eigen::VectorXd::Zero(nr);
  const std::vector<char> held_before = ws.held;
  const std::vector<char> none;
  const Eigen::VectorXd start = ws.lambda;
  std::vector<signed char>& clamped = ws.active;
  for (int i = 0; warm && i < nr; ++i) {
    const signed char side = ws.active_start[static_cast<std::size_t>(i)];
    if (side == 0 || held_before[static_cast<std::size_t>(i)]) continue;
    clamped[static_cast<std::size_t>(i)] = side;
    ws.held[static_cast<std::size_t>(i)] = 1;
    held_lambda[i] = side < 0 ? ws.lo[i] : ws.hi[i];
  }
  // Solves with the clamped rows at their bounds.
  SolveStats stats;
  auto solve_clamped = [&] {
    Eigen::VectorXd coupling(nr);
    SystemView{J, ws.w, ws.reg, none, k.parallel}.apply(held_lambda, coupling, ws.dof_scratch);
    const Eigen::VectorXd rhs = ws.rhs - coupling;
    for (int i = 0; i < nr; ++i)
      if (ws.held[static_cast<std::size_t>(i)]) ws.lambda[i] = 0.0;
    const SolveStats more = solve_free(rhs, ws.lambda);
    stats.iterations += more.iterations;
    stats.residual = more.residual;
    if (more.rank_deficiency >= 0) stats.rank_deficiency = more.rank_deficiency;
    ws.lambda += held_lambda;
  };
  auto flip = [&](int i) {
    const auto row = static_cast<std::size_t>(i);
    if (clamped[row] == 0) {
      clamped[row] = ws.lambda[i] < ws.lo[i] ? -1 : 1;
      held_lambda[i] = clamped[row] < 0 ? ws.lo[i] : ws.hi[i];
    } else {
      clamped[row] = 0;
      held_lambda[i] = 0.0;
    }
    ws.held[row] = clamped[row] != 0;
  };
  solve_clamped();
  const double floor = kRoundOff * (nr ? ws.rhs.cwiseAbs().maxCoeff() : 0.0);
  std::vector<int> wrong;
  Eigen::VectorXd g(nr);
  std::size_t fewest = static_cast<std::size_t>(nr) + 1;
  int backup = kFullExchanges;
  for (int round = 0;; ++round) {
    const bool any_clamped = std::find_if(clamped.begin(), clamped.end(), [](signed char c) { return c != 0; }) != clamped.end();
    if (any_clamped) {
      SystemView{J, ws.w, ws.reg, held_before, k.parallel}.apply(ws.lambda, g, ws.dof_scratch);
      g -= ws.rhs;
    }
    wrong.clear();
    for (int i = 0; i < nr; ++i) {
      const auto row = static_cast<std::size_t>(i);
      if (held_before[row]) continue;
      const signed char side = clamped[row];
      bool out = ws.lambda[i] < ws.lo[i] || ws.lambda[i] > ws.hi[i];
      if (side != 0) {
        const double scale = std::abs(ws.rhs[i]) + std::abs(g[i] + ws.rhs[i]);  // |r_i| + |(K λ)_i|
        out = ws.lo[i] != ws.hi[i] && (side < 0 ? -g[i] : g[i]) > kReleaseTolerance * scale + floor;
      }
      if (out) wrong.push_back(i);
    }
    if (wrong.empty()) break;
    if (round == kActiveSetRounds || over_work_budget(ws)) {
      // A pile whose contacts change by the hundred (or a step that has
      // spent its work budget): solve the bounded problem by projected
      // Gauss–Seidel from the first guess instead
      // (bounded time, the bounds exact, the residual reported); the
      // active set's last guess may be far off.
      ws.lambda = start.cwiseMax(ws.lo).cwiseMin(ws.hi);
      const SolveStats polish = swept(solve_gauss_seidel(SystemView{J, ws.w, ws.reg, held_before, k.parallel}, ws.rhs,
                                                         ws.lambda, ws.lo, ws.hi, tolerance, s.solver_max_iterations));
      stats.iterations += polish.iterations;
      stats.residual = polish.residual;
      break;
    }
    if (wrong.size() < fewest) {
      fewest = wrong.size();
      backup = kFullExchanges;
      for (const int i : wrong) flip(i);
    } else if (backup > 0) {
      --backup;
      for (const int i : wrong) flip(i);
    } else {
      flip(wrong.front());
    }
    solve_clamped();
  }
  ws.held = held_before;
  return stats;
}

}  // namespace

bool over_work_budget(const Workspace& ws) { return ws.direct.work > ws.work_budget; }

SolveStats solve_system(const WorldModel& m, Workspace& ws) { return solve_system(m, ws, ws.J, SolveRequest{m.settings.solver_tolerance}); }

SolveStats solve_system(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const SolveRequest& how) {
  const SystemView k{J, ws.w, ws.reg, ws.held, parallel(m, ws)};
  const std::vector<char> none;
  const bool has_fixed = ws.fixed.size() == ws.rhs.size() && ws.fixed.any();
  if (has_fixed) {
    // Held rows with a known λ push on the free ones: move that to the right side.
    Eigen::VectorXd coupling(ws.rhs.size());
    SystemView{J, ws.w, ws.reg, none, k.parallel}.apply(ws.fixed, coupling, ws.dof_scratch);
    ws.rhs -= coupling;
  }
  SolveStats stats = solve_free_rows(m, ws, k, how);
  if (has_fixed) ws.lambda += ws.fixed;
  if (how.w_jt_lambda && (has_fixed || !stats.w_jt_lambda)) w_jt_product(m, ws, J, ws.lambda, *how.w_jt_lambda);
  stats.w_jt_lambda = how.w_jt_lambda != nullptr;
  return stats;
}

void w_jt_product(const WorldModel& m, Workspace& ws, const BlockJacobian& J, const Eigen::VectorXd& lambda, Eigen::VectorXd& out) {
  out.setZero(J.cols());
  J.add_transpose_product(lambda, out, parallel(m, ws));
  out.array() *= ws.w.array();
}

void record_solve(const WorldModel& m, Workspace& ws, const SolveStats& stats, int held_rows) {
  ws.iterations += stats.iterations;
  if (!std::isnan(stats.residual)) ws.residual = std::max(ws.residual, stats.residual);
  int deficiency = stats.rank_deficiency;
  if (deficiency < 0) {
    if (ws.rank_topology != m.topology_version) {
      ws.rank_deficiency = count_dependent_rows(SystemView{ws.J, ws.w, ws.reg, ws.held});
      ws.rank_topology = m.topology_version;
    }
    deficiency = ws.rank_deficiency;
  }
  ws.step_rank_deficiency = std::max(ws.step_rank_deficiency, deficiency + held_rows);
}

}  // namespace linkage
