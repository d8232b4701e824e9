// A free system held by constraints conserves linear and angular momentum:
// constraint forces are internal and torque-free in sum.
#include <gtest/gtest.h>

#include "scenes.hpp"

using namespace linkage;

namespace {

void expect_conserved(World& w, int steps) {
  const StepDiagnostics d0 = w.diagnostics();
  for (int i = 0; i < steps; ++i) w.step();
  const StepDiagnostics& d = w.diagnostics();
  EXPECT_LT((d.linear_momentum - d0.linear_momentum).norm(), 1e-9) << d.linear_momentum.transpose();
  EXPECT_LT((d.angular_momentum - d0.angular_momentum).norm(), 1e-9) << d.angular_momentum.transpose();
  EXPECT_GT(d0.angular_momentum.norm(), 0.1);  // the test means something
}

WorldSettings free_space(Integrator integrator, LinearSolver solver) {
  WorldSettings s;
  s.gravity = Vec3::Zero();
  s.dt = 1e-3;
  s.integrator = integrator;
  s.solver = solver;
  return s;
}

}  // namespace

TEST(Momentum, TwoParticlesOnARod) {
  for (LinearSolver solver : {LinearSolver::ldlt, LinearSolver::conjugate_gradient, LinearSolver::gauss_seidel}) {
    World w = test::make_world(free_space(Integrator::semi_implicit_euler, solver));
    const BodyId a = w.add_body({.position = Vec3(-0.3, 0.1, 0), .velocity = Vec3(0.5, 2.0, 0), .mass = 1.0}).value();
    const BodyId b = w.add_body({.position = Vec3(0.7, -0.2, 0), .velocity = Vec3(-1.0, -0.5, 0), .mass = 3.0}).value();
    w.add_constraint(DistanceDef{.a = a, .b = b}).value();
    SCOPED_TRACE(solver_name(solver));
    expect_conserved(w, 5000);
  }
}

TEST(Momentum, TwoRigidBodiesOnARodBetweenOffCentreAnchors) {
  for (Integrator integrator : {Integrator::semi_implicit_euler, Integrator::rk4}) {
    World w = test::make_world(free_space(integrator, LinearSolver::ldlt));
    const BodyId a = w.add_body({.kind = BodyKind::rigid, .position = Vec3(-1, 0, 0), .velocity = Vec3(0, 1, 0),
                                 .angular_velocity = 2.0, .shape = Box{0.4, 0.1}})
                         .value();
    const BodyId b = w.add_body({.kind = BodyKind::rigid, .position = Vec3(1, 0.5, 0), .velocity = Vec3(0.3, -2, 0),
                                 .angular_velocity = -1.0, .density = 3.0, .shape = Disk{0.3}})
                         .value();
    w.add_constraint(DistanceDef{.a = a, .b = b, .anchor_a = Vec3(0.4, 0.1, 0), .anchor_b = Vec3(-0.2, 0.1, 0)})
        .value();
    SCOPED_TRACE(integrator_name(integrator));
    expect_conserved(w, 5000);
  }
}

TEST(Momentum, ThreeDimensionalParticleTriangle) {
  WorldSettings s = free_space(Integrator::semi_implicit_euler, LinearSolver::ldlt);
  s.dimension = 3;
  s.gravity = Vec3::Zero();
  World w = test::make_world(s);
  const BodyId a = w.add_body({.position = Vec3(0, 0, 0), .velocity = Vec3(1, 0, 0.5), .mass = 1}).value();
  const BodyId b = w.add_body({.position = Vec3(1, 0, 0), .velocity = Vec3(0, 1, -1), .mass = 2}).value();
  const BodyId c = w.add_body({.position = Vec3(0, 1, 0.5), .velocity = Vec3(0, 0, 1), .mass = 0.5}).value();
  w.add_constraint(DistanceDef{.a = a, .b = b}).value();
  w.add_constraint(DistanceDef{.a = b, .b = c}).value();
  w.add_constraint(DistanceDef{.a = c, .b = a}).value();
  expect_conserved(w, 5000);
}
