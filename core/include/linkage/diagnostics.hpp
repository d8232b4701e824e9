#pragma once
// What every step reports about itself.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "linkage/math.hpp"

namespace linkage {

// The stages of a step, in the order World::step runs them (a substep
// runs forces to project_velocities; force-based integrators evaluate
// forces, constraints and solve once per derivative).
enum class Stage {
  forces,              // gravity, springs, damping, user forces into Q_a
  constraints,         // C, Ċ, J blocks, J̇q̇ of every constraint
  solve,               // the linear solve for λ (and a rope caught taut)
  integrate,           // the integrator's own arithmetic and the step's bookkeeping
  project_positions,   // SHAKE or nearest-point projection, evaluations and solves included
  project_velocities,  // RATTLE, evaluation and solve included
  expire,              // forces whose steps ran out removed
  measure,             // the step's error, energy and momentum
};
inline constexpr int kStageCount = 8;
std::string_view stage_name(Stage);

// Wall time of each stage of a step (s). Every moment of the step is
// charged to exactly one stage, the innermost running, so the stages sum
// to the step's time.
struct StageTimes {
  std::array<double, kStageCount> seconds{};

  double& operator[](Stage s) { return seconds[static_cast<std::size_t>(s)]; }
  double operator[](Stage s) const { return seconds[static_cast<std::size_t>(s)]; }
  double total() const;
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
  // More pairs of bodies overlapped than a contact search looks at (32 a
  // shaped body: a pile pushed into one place): the step kept the pairs it
  // found first and left the rest apart, so contacts were missed.
  bool contacts_capped = false;
  // The direct solver (LinearSolver::ldlt): numeric factorizations, systems
  // solved, and conjugate-gradient iterations on a reused factorization.
  int factorizations = 0;
  int solves = 0;
  int pcg_iterations = 0;
  SolverPath solver_path = SolverPath::none;
  // Substeps the step ran: the settings' substeps, or 2 to 16 times as many
  // where the exact family split a step whose projection did not converge
  // (README, "A step that splits").
  int substeps = 1;
  StageTimes stage_seconds;
  double step_seconds = 0.0;  // wall time of the whole step
};

}  // namespace linkage
