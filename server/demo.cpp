// linkage-demo: runs a demo scene headless and prints its diagnostics once
// per simulated second. The main job until the server lands.
//
//   linkage-demo [--seconds T]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>

#include "linkage/linkage.hpp"

using namespace linkage;

namespace {

// A double pendulum of rigid bars beside a 20-link chain of particles, and a
// motor-driven crank: the three kinds of thing the engine holds.
World demo_world() {
  WorldSettings s;
  s.integrator = Integrator::rk4;
  s.solver = LinearSolver::ldlt;
  // A released chain whips: its free end outruns what one RK4 step per 1/60 s holds.
  s.substeps = 8;
  World w = World::create(s).value();

  const BodyId ground = w.add_body({.motion = Motion::fixed}).value();
  // Double pendulum: two 1 m bars pinned end to end.
  BodyDef bar{.kind = BodyKind::rigid, .density = 10.0, .shape = Box{0.5, 0.05}};
  bar.position = Vec3(-2.5, 0.0, 0.0);
  const BodyId b1 = w.add_body(bar).value();
  bar.position = Vec3(-1.5, 0.0, 0.0);
  const BodyId b2 = w.add_body(bar).value();
  w.add_constraint(PinDef{.a = ground, .b = b1, .anchor_a = Vec3(-3.0, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}).value();
  w.add_constraint(PinDef{.a = b1, .b = b2, .anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}).value();

  // Chain: 20 particles 0.1 m apart from a fixed point, released horizontally.
  BodyId prev{};
  for (int i = 1; i <= 20; ++i) {
    const BodyId p = w.add_body({.position = Vec3(0.1 * i, 0, 0), .mass = 0.1}).value();
    w.add_constraint(DistanceDef{.a = prev, .b = p}).value();
    prev = p;
  }

  // A crank turned at 1 rev/s by a motor.
  const BodyId crank = w.add_body({.kind = BodyKind::rigid, .position = Vec3(4, 0, 0), .shape = Disk{0.3}}).value();
  w.add_constraint(PinDef{.b = crank, .anchor_a = Vec3(4, 0, 0)}).value();
  w.add_constraint(MotorDef{.b = crank, .speed = 2 * std::numbers::pi}).value();
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10.0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: linkage-demo [--seconds T]\n");
      return 2;
    }
  }
  World w = demo_world();
  const int per_second = static_cast<int>(std::lround(1.0 / w.settings().dt));
  std::printf("linkage demo: double pendulum, 20-link chain, motor crank; %s, %s, dt = %.4f s, %d substeps\n",
              std::string(integrator_name(w.settings().integrator)).c_str(),
              std::string(solver_name(w.settings().solver)).c_str(), w.settings().dt, w.settings().substeps);
  std::printf("%6s %12s %12s %12s %12s %6s %10s\n", "t [s]", "energy [J]", "max|C|", "max|Cdot|", "residual",
              "iters", "step [ms]");
  const StepDiagnostics& d0 = w.diagnostics();
  std::printf("%6.1f %12.6f %12.3e %12.3e %12s %6s %10s\n", 0.0, d0.total_energy(), d0.max_error, d0.max_error_rate,
              "-", "-", "-");
  for (int s = 1; s <= static_cast<int>(seconds * per_second); ++s) {
    const StepDiagnostics& d = w.step();
    if (s % per_second == 0)
      std::printf("%6.1f %12.6f %12.3e %12.3e %12.3e %6d %10.3f\n", d.time, d.total_energy(), d.max_error,
                  d.max_error_rate, d.solver_residual, d.solver_iterations, d.step_seconds * 1e3);
  }
  return 0;
}
