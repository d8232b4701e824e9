#pragma once
// The ODE integrators: one solver step of length h on (q, q̇).

#include <functional>

#include <Eigen/Core>

#include "linkage/settings.hpp"

namespace linkage {

// q̈ at (t, q, q̇); `weight` is the evaluation's share of the step (its
// weight in the integrator's update of q̇), so that λ can be reported as the
// step's effective multiplier.
using AccelerationFn = std::function<void(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                          Eigen::VectorXd& a, double weight)>;

void integrate(Integrator method, double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& v,
               const AccelerationFn& accel);

}  // namespace linkage
