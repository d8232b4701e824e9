#pragma once
// World settings: what a world is, apart from what it holds.

#include <string_view>

#include "linkage/math.hpp"

namespace linkage {

enum class Integrator {
  explicit_euler,       // q += h q̇, q̇ += h q̈: gains energy; here to show why not
  semi_implicit_euler,  // q̇ += h q̈, then q += h q̇: symplectic, bounded energy
  midpoint,             // second order, 2 derivative evaluations
  rk4,                  // fourth order, 4 evaluations (constraint forces solved at each)
  velocity_verlet,      // kick-drift-kick, symplectic, 2 evaluations
};

enum class LinearSolver {
  conjugate_gradient,  // matrix-free J(W(Jᵀx)), Jacobi preconditioned, warm-started
  ldlt,                // sparse LDLᵀ, symbolic analysis reused while the topology holds
  gauss_seidel,        // row sweeps, warm-started; clamps bounded rows in place
};

struct WorldSettings {
  int dimension = 2;                     // 2 or 3; fixed once the world holds bodies
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);  // m/s²
  double dt = 1.0 / 60.0;                // s, one step
  int substeps = 1;                      // solver steps per step, each dt / substeps
  Integrator integrator = Integrator::rk4;
  LinearSolver solver = LinearSolver::ldlt;
  // Drift feedback: J W Jᵀ λ = −(J̇q̇ + J W Q_a + c_tt + k_s C + k_d Ċ). The
  // defaults make the error decay like a critically damped 10 rad/s spring.
  double feedback_stiffness = 100.0;  // k_s, 1/s²
  double feedback_damping = 20.0;     // k_d, 1/s
  // Iterative solvers stop at this relative residual |r − Kλ| / |r| ...
  double solver_tolerance = 1e-10;
  // ... or after this many iterations (sweeps for Gauss–Seidel).
  int solver_max_iterations = 500;
  // Added to K's diagonal, relative to it, so that redundant constraints (a
  // singular J W Jᵀ) give finite λ; small enough not to be seen otherwise.
  double regularization = 1e-10;
};

std::string_view integrator_name(Integrator);
std::string_view solver_name(LinearSolver);

}  // namespace linkage
