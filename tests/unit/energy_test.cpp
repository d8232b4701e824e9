// Energy of a pendulum over 10⁵ steps: bounded with semi-implicit (symplectic)
// Euler, growing with explicit Euler, the known failure.
#include <gtest/gtest.h>

#include <cmath>

#include "scenes.hpp"

using namespace linkage;

namespace {

struct EnergyRun {
  double initial, final_, max_deviation;
  double max_deviation_first_tenth, max_deviation_last_tenth;
};

EnergyRun run(Integrator integrator, int steps) {
  WorldSettings s;
  s.integrator = integrator;
  s.dt = 1e-3;
  // Drift feedback matched to the step (critically damped at ω = 0.1/h), so
  // the rod holds and what is left is the integrator's own behaviour.
  s.feedback_stiffness = 1e4;
  s.feedback_damping = 200.0;
  test::Pendulum p = test::pendulum(s, Vec3(std::sin(1.0), -std::cos(1.0), 0.0));
  EnergyRun r{};
  r.initial = p.world.diagnostics().total_energy();
  for (int i = 0; i < steps; ++i) {
    const double dev = std::abs(p.world.step().total_energy() - r.initial);
    r.max_deviation = std::max(r.max_deviation, dev);
    if (i < steps / 10) r.max_deviation_first_tenth = std::max(r.max_deviation_first_tenth, dev);
    if (i >= steps - steps / 10) r.max_deviation_last_tenth = std::max(r.max_deviation_last_tenth, dev);
  }
  r.final_ = p.world.diagnostics().total_energy();
  return r;
}

}  // namespace

TEST(Energy, SemiImplicitEulerStaysBounded) {
  const EnergyRun r = run(Integrator::semi_implicit_euler, 100000);
  // mgL = 9.81 J: the error is an oscillation of order h, not a trend.
  EXPECT_LT(r.max_deviation, 0.05);
  EXPECT_LT(r.max_deviation_last_tenth, 3.0 * r.max_deviation_first_tenth);
}

TEST(Energy, ExplicitEulerGains) {
  const EnergyRun r = run(Integrator::explicit_euler, 100000);
  EXPECT_GT(r.final_ - r.initial, 1.0);  // > 10% of mgL gained, and growing
  EXPECT_GT(r.max_deviation_last_tenth, 5.0 * r.max_deviation_first_tenth);
}
