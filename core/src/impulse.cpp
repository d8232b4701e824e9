#include "impulse.hpp"

#include <algorithm>
#include <cmath>

#include "body_view.hpp"
#include "contacts.hpp"
#include "constraint_system.hpp"
#include "forces.hpp"
#include "projection.hpp"
#include "tree_solve.hpp"

namespace linkage {
namespace {

// The velocity target of each row is J v + b = −bias. Two kinds of bias:
// the velocity bias belongs to the row's physics and is part of the stored
// impulse: a soft row's spring, ω/(2ζ + hω)·C, and a slack rope's C/h (it
// may close its gap within the step but no more). The position bias only
// fights drift: (β/h) C on the other position rows.
double velocity_bias(const Workspace& ws, int i, double h) {
  if (ws.unilateral_row[static_cast<std::size_t>(i)] && ws.C[i] < 0.0) return ws.C[i] / h;
  return ws.soft_omega[i] > 0.0 ? soft_bias(ws, i, h) : 0.0;
}

Eigen::VectorXd velocity_bias(const Workspace& ws, double h) {
  Eigen::VectorXd bias(ws.C.size());
  for (int i = 0; i < bias.size(); ++i) bias[i] = velocity_bias(ws, i, h);
  return bias;
}

// `feedback` is β/h, divided once by the caller: a division a row, which
// the compiler may not hoist out of the condition, was most of its pass.
double position_bias(const Workspace& ws, int i, double feedback) {
  const bool drift_only = !ws.velocity_row[static_cast<std::size_t>(i)] && ws.soft_omega[i] == 0.0 &&
                          !(ws.unilateral_row[static_cast<std::size_t>(i)] && ws.C[i] < 0.0);
  return drift_only ? feedback * ws.C[i] : 0.0;
}

// Re-solves for friction bounds that follow the normal impulses before the
// step gives up on them (they settle in one or two).
constexpr int kFrictionRounds = 8;

// Global velocity projection: J W Jᵀ λ = −(J v* + b + (β/h) C), one solve;
// with contacts, again while their friction bounds move (μ times the
// normal impulses of the solve before).
void project(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h, Eigen::VectorXd& v) {
  const int nr = static_cast<int>(ws.Cdot.size());
  ws.rhs.resize(nr);
  const double feedback = m.settings.baumgarte / h;
  parallel(m, ws).for_parts(nr < kParallelRows ? 1 : nr, [&](int p, int parts) {
    const auto [first, last] = split(nr, parts, p);
    for (int i = first; i < last; ++i) {
      ws.rhs[i] = -(ws.Cdot[i] + velocity_bias(ws, i, h) + position_bias(ws, i, feedback));
      ws.lo[i] *= h;  // λ here is an impulse (N·s): a bound in N becomes one in N·s
      ws.hi[i] *= h;
    }
  });
  const int held = prepare_system(m, ws);
  soften_rows(ws, h);
  gather_warm(m, d, ws, h);
  const int first_contact = model_rows(m, ws);
  const bool contacts = first_contact < ws.J.rows();
  if (contacts) ws.contacts.bound_friction(ws.lo, ws.hi, Eigen::VectorXd(), first_contact);
  const Eigen::VectorXd rhs = contacts ? ws.rhs : Eigen::VectorXd();  // the friction rounds' (below)
  Eigen::VectorXd dv;  // W Jᵀ λ
  SolveRequest how{velocity_solve_tolerance(m.settings, ws, h, ws.rhs)};
  how.w_jt_lambda = &dv;
  SolveStats stats;
  const bool tree = !contacts && solve_on_tree(m, ws, stats);
  if (tree) {
    w_jt_on_tree(m, ws, dv);
    stats.residual = residual_on_tree(m, ws, dv);
  } else {
    stats = solve_system(m, ws, ws.J, how);
  }
  record_solve(m, ws, stats, held);
  // A solve short of its tolerance (a pile whose contacts change by the
  // hundred, where the active set gave way to projected Gauss–Seidel)
  // leaves friction bounds no re-solve would settle: each would cost as
  // much again and move them as far. Nor are they solved again once the
  // step's work budget is spent (Workspace::work_budget).
  auto settled = [&](const SolveStats& solve) { return !(solve.residual > how.tolerance) && !over_work_budget(ws); };
  for (int round = 0; contacts && round < kFrictionRounds && settled(stats) &&
                      ws.contacts.bound_friction(ws.lo, ws.hi, ws.lambda, first_contact);
       ++round) {
    ws.rhs = rhs;
    ws.active_start = ws.active;  // the rows at their bounds mostly stay there
    stats = solve_system(m, ws, ws.J, how);
    record_solve(m, ws, stats, held);
  }
  ws.active_start.clear();
  constraint_forces_on_tree(m, d, ws, 1.0 / m.settings.dt, t);
  mark_free_motors(ws, 1.0);
  v += dv;
}

// Restitution in the exact family: the points that pushed in the velocity
// solve and closed faster than the threshold leave at e times their
// approach speed; in the same solve the joints keep the velocities the
// step gave them and the other points that pushed may push more or let go
// (each λ's total keeps its bounds). Motors and friction are held.
void bounce(const WorldModel& m, WorldData& d, Workspace& ws, double t, Eigen::VectorXd& v) {
  const int first = model_rows(m, ws), n = ws.J.rows();
  Eigen::VectorXd target(n);
  ws.contacts.bounce_targets(ws.lambda, first, m.settings.restitution_threshold, target);
  if (!target.tail(n - first).array().isFinite().any()) return;
  const Eigen::VectorXd pushed = ws.lambda;
  Eigen::VectorXd jv;
  ws.J.multiply(v, jv, parallel(m, ws));
  const int held = prepare_system(m, ws);
  ws.rhs.setZero(n);
  for (int i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    const bool keep = !ws.velocity_row[row] && ws.soft_omega[i] == 0.0 &&
                      (ws.contact_row[row] != ContactRows::normal || pushed[i] < 0.0);
    if (!keep) {
      ws.held[row] = 1;
      ws.reg[i] = 1.0;
      continue;
    }
    if (i >= first && std::isfinite(target[i])) ws.rhs[i] = -(jv[i] - target[i]);
    ws.lo[i] -= pushed[i];
    ws.hi[i] -= pushed[i];
  }
  ws.lambda.setZero(n);
  Eigen::VectorXd dv;  // W Jᵀ λ
  SolveRequest how{m.settings.solver_tolerance};
  how.w_jt_lambda = &dv;
  record_solve(m, ws, solve_system(m, ws, ws.J, how), held);
  add_constraint_forces(m, d, ws, ws.J, ws.lambda, 1.0 / m.settings.dt, t, d.q);
  v += dv;
  ws.lambda += pushed;
}

// Box2D's sequential impulses: each constraint in turn solves its own block
// K_c Δλ = −(J_c v + b_c + bias_c), clamps its accumulated impulse and
// applies W J_cᵀ Δλ at once.
class SequentialImpulses {
 public:
  // λ in the workspace is an impulse (N·s), so a bound in N scales by h.
  SequentialImpulses(Workspace& ws, const Eigen::VectorXd& v, double h) : ws_(ws), h_(h) {
    // b = Ċ − J v: the affine part of each row's velocity error.
    Eigen::VectorXd jv;
    ws.J.multiply(v, jv);
    affine_ = ws.Cdot - jv;
    for (const BlockJacobian::Group& g : ws.J.groups()) {
      Eigen::Matrix3d k = Eigen::Matrix3d::Identity();
      k.topLeftCorner(g.rows, g.rows).setZero();
      for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
        const BlockJacobian::Block& blk = ws.J.block(b);
        const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> jb(
            ws.J.values(blk), g.rows, blk.cols);
        k.topLeftCorner(g.rows, g.rows) += jb * ws.w.segment(blk.col, blk.cols).asDiagonal() * jb.transpose();
      }
      for (int r = 0; r < g.rows; ++r) k(r, r) += ws.reg[g.row + r];
      inverse_.push_back(k.inverse());
    }
  }

  // v += W Jᵀ λ for the accumulated impulses λ (the warm start).
  void warm_start(Eigen::VectorXd& v) const {
    Eigen::VectorXd dv = Eigen::VectorXd::Zero(v.size());
    ws_.J.add_transpose_product(ws_.lambda, dv);
    v += ws_.w.cwiseProduct(dv);
  }

  void sweep(Eigen::VectorXd& v, const Eigen::VectorXd& bias) const {
    const auto& groups = ws_.J.groups();
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const BlockJacobian::Group& g = groups[gi];
      Eigen::Vector3d r = Eigen::Vector3d::Zero();
      // The row's equation is J v + b + bias + reg·λ = 0: reg is the
      // regularization, and for a soft row its compliance.
      for (int row = 0; row < g.rows; ++row)
        r[row] = -(affine_[g.row + row] + bias[g.row + row] + ws_.reg[g.row + row] * ws_.lambda[g.row + row]);
      for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
        const BlockJacobian::Block& blk = ws_.J.block(b);
        const double* jv = ws_.J.values(blk);
        for (int row = 0; row < g.rows; ++row)
          for (int c = 0; c < blk.cols; ++c) r[row] -= jv[row * blk.cols + c] * v[blk.col + c];
      }
      const Eigen::Vector3d step = inverse_[gi] * r;
      Eigen::Vector3d delta = Eigen::Vector3d::Zero();
      for (int row = 0; row < g.rows; ++row) {
        const int i = g.row + row;
        if (ws_.held[static_cast<std::size_t>(i)]) continue;
        const double before = ws_.lambda[i];
        ws_.lambda[i] = std::clamp(before + step[row], ws_.lo[i] * h_, ws_.hi[i] * h_);
        delta[row] = ws_.lambda[i] - before;
      }
      for (int b = g.first_block; b < g.first_block + g.blocks; ++b) {
        const BlockJacobian::Block& blk = ws_.J.block(b);
        const double* jv = ws_.J.values(blk);
        for (int row = 0; row < g.rows; ++row)
          for (int c = 0; c < blk.cols; ++c) v[blk.col + c] += ws_.w[blk.col + c] * jv[row * blk.cols + c] * delta[row];
      }
    }
  }

  // |J v + b + bias| relative to the same at the start of the sweeps.
  double residual(const Eigen::VectorXd& v, const Eigen::VectorXd& bias) const {
    Eigen::VectorXd jv;
    ws_.J.multiply(v, jv);
    return (jv + affine_ + bias).norm();
  }

 private:
  Workspace& ws_;
  Eigen::VectorXd affine_;
  std::vector<Eigen::Matrix3d> inverse_;
  double h_;
};

// One nonlinear Gauss–Seidel sweep on positions: each constraint in turn
// moves its bodies along W J_cᵀ to remove the share β of its own error C_c
// at the current q (each row's correction capped at max_correction, as
// Box2D caps its own): K_c μ = −β C_c, q += W J_cᵀ μ. Velocities stay.
// Velocity rows (motors), soft rows, slack ropes and held rows are left out.
void correct_positions(const WorldModel& m, WorldData& d, Workspace& ws, double t, const std::vector<char>& held) {
  const WorldSettings& s = m.settings;
  int row = 0;
  for (const ConstraintRecord& c : m.constraints) {
    const int first = row;
    row += c.rows;
    if (c.softness.frequency > 0.0) continue;
    Rows rows;
    evaluate_constraint(c.def, body_view(m, d, c.body_a), body_view(m, d, c.body_b), t, s.dimension, rows);
    if (rows.velocity_level) continue;
    const BodyRecord* ends[2] = {c.body_a >= 0 ? &m.bodies[static_cast<std::size_t>(c.body_a)] : nullptr,
                                 c.body_b >= 0 ? &m.bodies[static_cast<std::size_t>(c.body_b)] : nullptr};
    const Eigen::Matrix3d* blocks[2] = {&rows.Ja, &rows.Jb};
    Eigen::Matrix3d k = Eigen::Matrix3d::Zero();
    for (int e = 0; e < 2; ++e) {
      const BodyRecord* b = ends[e];
      if (!b || b->motion != Motion::dynamic) continue;
      for (int r = 0; r < c.rows; ++r)
        for (int r2 = 0; r2 < c.rows; ++r2)
          for (int x = 0; x < b->dof; ++x) k(r, r2) += (*blocks[e])(r, x) * ws.w[b->offset + x] * (*blocks[e])(r2, x);
    }
    Eigen::Vector3d rhs = Eigen::Vector3d::Zero();
    bool any = false;
    for (int r = 0; r < 3; ++r) {
      const bool active = r < c.rows && !held[static_cast<std::size_t>(first + r)] && k(r, r) > 0.0 &&
                          !(rows.unilateral && rows.C[r] < 0.0);
      if (!active) {
        k.row(r).setZero();
        k.col(r).setZero();
        k(r, r) = 1.0;
        continue;
      }
      rhs[r] = -s.baumgarte * std::clamp(rows.C[r], -s.max_correction, s.max_correction);
      any = any || rhs[r] != 0.0;
    }
    if (!any) continue;
    const Eigen::Vector3d mu = k.ldlt().solve(rhs);
    for (int e = 0; e < 2; ++e) {
      const BodyRecord* b = ends[e];
      if (!b || b->motion != Motion::dynamic) continue;
      for (int x = 0; x < b->dof; ++x) {
        double m = 0.0;
        for (int r = 0; r < c.rows; ++r) m += (*blocks[e])(r, x) * mu[r];
        d.q[b->offset + x] += ws.w[b->offset + x] * m;
      }
    }
  }
}

void sequential_impulses(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h, Eigen::VectorXd& v) {
  const WorldSettings& s = m.settings;
  const int held = prepare_system(m, ws);
  soften_rows(ws, h);
  gather_warm(m, d, ws, h);
  SequentialImpulses si(ws, v, h);
  // Contacts are found at the step's start and solved beside the joints in
  // every sweep, joints first (as Box2D orders them).
  std::unique_ptr<Contacts> contacts;
  if (s.contacts) {
    contacts = find_contacts(m, d, v, h);
    ws.contacts_capped = ws.contacts_capped || contacts->capped();
  }
  si.warm_start(v);
  if (contacts) contacts->warm_start(v);
  // Velocity sweeps: J v + b = 0, warm-started; their impulses are stored
  // for the next step.
  const Eigen::VectorXd physics = velocity_bias(ws, h);
  const double start = si.residual(v, physics);
  for (int i = 0; i < s.velocity_iterations; ++i) {
    si.sweep(v, physics);
    if (contacts) contacts->sweep(v);
  }
  if (contacts) contacts->restitute(v);
  SolveStats stats;
  stats.iterations = s.velocity_iterations + s.position_iterations + s.relax_iterations;
  stats.residual = start > 0.0 ? si.residual(v, physics) / start : 0.0;
  record_solve(m, ws, stats, held);
  add_constraint_forces(m, d, ws, ws.J, ws.lambda, 1.0 / s.dt, t, d.q);
  mark_free_motors(ws, h);
  if (s.project_positions) std::swap(ws.step_J, ws.J);
  clamp_motion(m, h, v);
  d.q += h * v;
  // Position iterations (Box2D 2.4's position solver): positions only, so
  // that drift is fixed without adding kinetic energy.
  if (!s.project_positions) {
    const std::vector<char> held_rows = ws.held;
    for (int i = 0; i < s.position_iterations; ++i) {
      correct_positions(m, d, ws, t + h, held_rows);
      if (contacts) contacts->correct_positions(d.q);
    }
  } else if (contacts) {
    for (int i = 0; i < s.position_iterations; ++i) contacts->correct_positions(d.q);
  }
  if (contacts) contacts->store(d.contacts);
  else d.contacts.clear();
  // With SHAKE on, RATTLE does what relax would (exactly), and relaxing the
  // velocities before SHAKE moves the positions would break SHAKE's
  // conservation of angular momentum.
  if (s.relax_iterations > 0 && !s.project_positions) {
    // Relax: unbiased sweeps against the rows at the new positions, so the
    // step leaves velocities tangent to the constraints (a Gauss–Seidel
    // RATTLE). Against the old rows they would remove the wrong component
    // and bleed energy.
    evaluate_constraints(m, d, ws, t + h, d.q, v);
    prepare_system(m, ws);
    soften_rows(ws, h);
    const SequentialImpulses relax(ws, v, h);
    const Eigen::VectorXd relax_bias = velocity_bias(ws, h);
    const Eigen::VectorXd before = ws.lambda;
    for (int i = 0; i < s.relax_iterations; ++i) relax.sweep(v, relax_bias);
    add_constraint_forces(m, d, ws, ws.J, ws.lambda - before, 1.0 / s.dt, t + h, d.q);
    clamp_motion(m, h, v);
  }
}

}  // namespace

void clamp_motion(const WorldModel& m, double h, Eigen::VectorXd& v) {
  const WorldSettings& s = m.settings;
  for (const BodyRecord& b : m.bodies) {
    if (b.motion != Motion::dynamic) continue;
    const int linear = b.kind == BodyKind::rigid ? 2 : b.dof;
    auto lin = v.segment(b.offset, linear);
    const double translation = h * lin.norm();
    if (translation > s.max_translation) lin *= s.max_translation / translation;
    if (b.kind != BodyKind::rigid) continue;
    const double rotation = h * std::abs(v[b.offset + 2]);
    if (rotation > s.max_rotation) v[b.offset + 2] *= s.max_rotation / rotation;
  }
}

void impulse_step(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h, bool settle) {
  Eigen::VectorXd v;
  {
    const StageClock::Scope stage(ws.clock, Stage::forces);
    ws.Qa.setZero(d.dof());
    accumulate_forces(m, d.q, d.v, ws.Qa, parallel(m, ws));
    v = d.v + h * ws.w.cwiseProduct(ws.Qa);
  }
  {
    const StageClock::Scope stage(ws.clock, Stage::constraints);
    // The exact family's contacts join the rows (the other family solves its own).
    ws.contacts.find(m, d, v, h);
    evaluate_rows(m, d, ws, t, d.q, v);
    if (settle && settle_onto_constraints(m, d, ws, t, h)) evaluate_rows(m, d, ws, t, d.q, v);
  }

  const StageClock::Scope stage(ws.clock, Stage::solve);
  if (m.settings.dynamics == Dynamics::sequential_impulses) {
    sequential_impulses(m, d, ws, t, h, v);
  } else {
    project(m, d, ws, t, h, v);
    // Positions move with the velocities before the bounce (as Box2D v3
    // restitutes): a speculative contact lands, then leaves.
    d.q += h * v;
    if (ws.contacts.active_for(m)) bounce(m, d, ws, t, v);
    if (m.settings.project_positions) std::swap(ws.step_J, ws.J);
  }
  std::swap(d.v, v);  // no copy: v is not read after this
  scatter_warm(m, ws, h);
}

}  // namespace linkage
