#pragma once
// What every step reports about itself.

#include <cstdint>
#include <string_view>

#include "linkage/math.hpp"

namespace linkage {

// Wall time of each named stage of a step, summed over its substeps and
// derivative evaluations (s).
struct StageTimes {
  double forces = 0.0;       // gravity, springs, damping, user forces into Q_a
  double constraints = 0.0;  // C, Ċ, J blocks, J̇q̇ of every constraint
  double solve = 0.0;        // the linear solve for λ
  double integrate = 0.0;    // the integrator's own arithmetic
  double project_positions = 0.0;   // SHAKE (evaluations and solves included)
  double project_velocities = 0.0;  // RATTLE (evaluation and solve included)
  double measure = 0.0;      // the step's error, energy and momentum
};

// How the step's linear systems were solved.
enum class SolverPath {
  none,        // no constraint rows
  tree,        // direct, every component acyclic: linear-time elimination
  graph,       // direct, every component with loops: fill-reducing order
  mixed,       // direct, some components of each
  iterative,   // conjugate gradient or Gauss–Seidel
  sequential,  // sequential impulses
};
std::string_view solver_path_name(SolverPath);

struct StepDiagnostics {
  std::uint64_t step = 0;  // steps taken so far
  double time = 0.0;       // s, simulated
  // Constraint error at the end of the step, over position rows (C) and
  // velocity rows (Ċ; a motor's velocity error counts here).
  double max_error = 0.0, rms_error = 0.0;            // |C|, in each row's unit
  double max_error_rate = 0.0, rms_error_rate = 0.0;  // |Ċ|
  double kinetic_energy = 0.0;        // J
  double gravitational_energy = 0.0;  // J, −Σ m g·x
  double spring_energy = 0.0;         // J, Σ ½ k (|d| − L)²
  double total_energy() const { return kinetic_energy + gravitational_energy + spring_energy; }
  Vec3 linear_momentum = Vec3::Zero();   // kg·m/s, dynamic bodies
  Vec3 angular_momentum = Vec3::Zero();  // kg·m²/s about the origin (z only in 2D)
  int solver_iterations = 0;  // summed over the step's solves (1 per direct solve)
  double solver_residual = 0.0;  // largest final relative residual of the step's solves
  int rank_deficiency = 0;       // redundant constraint rows found, 0 when J has full rank
  int projection_iterations = 0; // SHAKE's Newton iterations over the step
  // SHAKE stopped at projection_max_iterations with max |C| still at or above
  // projection_tolerance (in some substep): the constraints are not exact.
  bool projection_capped = false;
  double projection_error = 0.0;  // max |C| of the projected rows where SHAKE stopped (largest substep)
  // The direct solver (LinearSolver::ldlt): numeric factorizations, systems
  // solved, and conjugate-gradient iterations on a reused factorization.
  int factorizations = 0;
  int solves = 0;
  int pcg_iterations = 0;
  SolverPath solver_path = SolverPath::none;
  StageTimes stage_seconds;
  double step_seconds = 0.0;  // wall time of the whole step
};

}  // namespace linkage
