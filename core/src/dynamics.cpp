#include "dynamics.hpp"

#include "constraint_system.hpp"
#include "forces.hpp"

namespace linkage {

void update_inverse_masses(WorldData& d) {
  d.ws.w.setZero(d.dof());
  for (const BodyRecord& b : d.bodies) {
    for (int i = 0; i < b.dof; ++i) d.ws.w[b.offset + i] = b.inv_mass;
    if (b.kind == BodyKind::rigid) d.ws.w[b.offset + 2] = b.inv_inertia;
  }
}

void accelerations(WorldData& d, double h, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Eigen::VectorXd& a, double weight) {
  Workspace& ws = d.ws;
  const WorldSettings& s = d.settings;

  {
    const StageClock::Scope stage(ws.clock, Stage::forces);
    ws.Qa.setZero(d.dof());
    accumulate_forces(d, q, v, ws.Qa);
  }
  {
    const StageClock::Scope stage(ws.clock, Stage::constraints);
    evaluate_constraints(d, t, q, v);
  }

  const StageClock::Scope stage(ws.clock, Stage::solve);
  const int m = ws.J.rows();
  // rhs = −(J̇q̇ + J W Q_a + c_tt + k_s C + k_d Ċ); a velocity row closes its
  // error J q̇ + b at rate 1/h instead.
  ws.J.multiply(ws.w.cwiseProduct(ws.Qa), ws.rhs, parallel(d));
  ws.rhs += ws.jdot_qdot + ws.c_tt;
  for (int i = 0; i < m; ++i)
    ws.rhs[i] += ws.velocity_row[static_cast<std::size_t>(i)] ? ws.Cdot[i] / h
                                                                : s.feedback_stiffness * ws.C[i] + s.feedback_damping * ws.Cdot[i];
  ws.rhs = -ws.rhs;

  const int held = prepare_system(d);
  hold_slack_rows(d, 0.0);  // a rope pulls only once taut
  apply_soft_forces(d);
  gather_warm(d, 1.0);
  record_solve(d, solve_system(d), held);
  scatter_warm(d, 1.0);
  add_constraint_forces(d, ws.J, ws.lambda, weight, t, q);

  // q̈ = W (Q_a + Jᵀ λ)
  ws.J.add_transpose_product(ws.lambda, ws.Qa, parallel(d));
  a = ws.w.cwiseProduct(ws.Qa);
}

}  // namespace linkage
