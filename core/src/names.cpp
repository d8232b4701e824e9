#include "linkage/settings.hpp"

namespace linkage {

std::string_view integrator_name(Integrator i) {
  switch (i) {
    case Integrator::explicit_euler: return "explicit_euler";
    case Integrator::semi_implicit_euler: return "semi_implicit_euler";
    case Integrator::midpoint: return "midpoint";
    case Integrator::rk4: return "rk4";
    case Integrator::velocity_verlet: return "velocity_verlet";
  }
  return "unknown";
}

std::string_view solver_name(LinearSolver s) {
  switch (s) {
    case LinearSolver::conjugate_gradient: return "conjugate_gradient";
    case LinearSolver::ldlt: return "ldlt";
    case LinearSolver::gauss_seidel: return "gauss_seidel";
  }
  return "unknown";
}

std::string_view dynamics_name(Dynamics d) {
  switch (d) {
    case Dynamics::force_based: return "force_based";
    case Dynamics::velocity_projection: return "velocity_projection";
    case Dynamics::sequential_impulses: return "sequential_impulses";
  }
  return "unknown";
}

}  // namespace linkage
