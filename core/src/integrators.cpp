#include "integrators.hpp"

namespace linkage {

void integrate(Integrator method, double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v,
               const AccelerationFn& accel) {
  Eigen::VectorXd a1(v.size());
  switch (method) {
    case Integrator::explicit_euler:
      accel(t, q, v, a1, 1.0);
      q += h * v;
      v += h * a1;
      return;
    case Integrator::semi_implicit_euler:
      accel(t, q, v, a1, 1.0);
      v += h * a1;
      q += h * v;
      return;
    case Integrator::midpoint: {
      accel(t, q, v, a1, 0.0);
      const Eigen::VectorXd vm = v + 0.5 * h * a1;
      Eigen::VectorXd a2(v.size());
      accel(t + 0.5 * h, q + 0.5 * h * v, vm, a2, 1.0);
      q += h * vm;
      v += h * a2;
      return;
    }
    case Integrator::rk4: {
      Eigen::VectorXd a2(v.size()), a3(v.size()), a4(v.size());
      accel(t, q, v, a1, 1.0 / 6.0);
      const Eigen::VectorXd v2 = v + 0.5 * h * a1;
      accel(t + 0.5 * h, q + 0.5 * h * v, v2, a2, 2.0 / 6.0);
      const Eigen::VectorXd v3 = v + 0.5 * h * a2;
      accel(t + 0.5 * h, q + 0.5 * h * v2, v3, a3, 2.0 / 6.0);
      const Eigen::VectorXd v4 = v + h * a3;
      accel(t + h, q + h * v3, v4, a4, 1.0 / 6.0);
      q += (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4);
      v += (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
      return;
    }
    case Integrator::velocity_verlet: {
      // Kick, drift, kick. The second kick's forces see the half-step velocity.
      accel(t, q, v, a1, 0.5);
      v += 0.5 * h * a1;
      q += h * v;
      accel(t + h, q, v, a1, 0.5);
      v += 0.5 * h * a1;
      return;
    }
  }
}

}  // namespace linkage
