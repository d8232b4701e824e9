#include "dynamics.hpp"

#include "constraint_system.hpp"
#include "forces.hpp"

namespace linkage {

bool inverse_masses_current(const WorldModel& m, const WorldData& d, const Workspace& ws) {
  return ws.w_model == m.model_version && ws.w.size() == d.dof();
}

void update_inverse_masses(const WorldModel& m, WorldData& d, Workspace& ws) {
  if (inverse_masses_current(m, d, ws)) return;
  ws.w_model = m.model_version;
  ws.w.setZero(d.dof());
  for (const BodyRecord& b : m.bodies) {
    for (int i = 0; i < b.dof; ++i) ws.w[b.offset + i] = b.inv_mass;
    if (b.kind == BodyKind::rigid) ws.w[b.offset + 2] = b.inv_inertia;
  }
}

void accelerations(const WorldModel& m, WorldData& d, Workspace& ws, double h, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Eigen::VectorXd& a, double weight) {
  const WorldSettings& s = m.settings;

  {
    const StageClock::Scope stage(ws.clock, Stage::forces);
    ws.Qa.setZero(d.dof());
    accumulate_forces(m, q, v, ws.Qa, parallel(m, ws));
  }
  {
    const StageClock::Scope stage(ws.clock, Stage::constraints);
    evaluate_constraints(m, d, ws, t, q, v);
  }

  const StageClock::Scope stage(ws.clock, Stage::solve);
  const int nr = ws.J.rows();
  // rhs = −(J̇q̇ + J W Q_a + c_tt + k_s C + k_d Ċ); a velocity row closes its
  // error J q̇ + b at rate 1/h instead.
  ws.J.multiply(ws.w.cwiseProduct(ws.Qa), ws.rhs, parallel(m, ws));
  ws.rhs += ws.jdot_qdot + ws.c_tt;
  for (int i = 0; i < nr; ++i)
    ws.rhs[i] += ws.velocity_row[static_cast<std::size_t>(i)] ? ws.Cdot[i] / h
                                                                : s.feedback_stiffness * ws.C[i] + s.feedback_damping * ws.Cdot[i];
  ws.rhs = -ws.rhs;

  const int held = prepare_system(m, ws);
  hold_slack_rows(ws, 0.0);  // a rope pulls only once taut
  apply_soft_forces(ws);
  gather_warm(m, d, ws, 1.0);
  record_solve(m, ws, solve_system(m, ws), held);
  scatter_warm(m, ws, 1.0);
  add_constraint_forces(m, d, ws, ws.J, ws.lambda, weight, t, q);

  // q̈ = W (Q_a + Jᵀ λ)
  ws.J.add_transpose_product(ws.lambda, ws.Qa, parallel(m, ws));
  a = ws.w.cwiseProduct(ws.Qa);
}

}  // namespace linkage
