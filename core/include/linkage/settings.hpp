#pragma once
// World settings: what a world is, apart from what it holds.

#include <string_view>

#include "linkage/math.hpp"
#include "linkage/result.hpp"

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

enum class Dynamics {
  // Witkin: λ solved at the acceleration level at every derivative
  // evaluation of the integrator, with drift feedback k_s, k_d.
  force_based,
  // Impulse-based, one global solve per step on velocities:
  // J W Jᵀ λ = −(J v* + b + (β/h) C) with the world's linear solver.
  velocity_projection,
  // Box2D's method: per-constraint Gauss–Seidel sweeps on velocities,
  // warm-started from the last step's accumulated impulses, then relax sweeps.
  sequential_impulses,
};

// How position projection finds the manifold C(q) = 0 after a step.
enum class Projection {
  // Classic SHAKE: corrections along the step's own constraint directions
  // W J(qₙ)ᵀ. Symplectic with RATTLE: energy and angular momentum are kept
  // over long runs. Its directions are explicit: it is stable only while the
  // step resolves the constraints' geometric stiffness (a rod under tension
  // T between masses m: h·√(2T/(m L)) below ~2); a fine, heavily loaded chain
  // at 60 Hz is past that.
  shake,
  // Gauss–Newton to the W-nearest point of the manifold: directions at the
  // current q. Stable at any step; modes the step cannot resolve lose their
  // energy (a pendulum at hω = 0.1 loses ~0.1 % of its energy a period).
  nearest,
};

// The most substeps a step may run: the most a world may be set to, and the
// most a split step takes (the exact family's, README "A step that splits").
inline constexpr int kMaxSubsteps = 1000;

struct WorldSettings {
  int dimension = 2;                     // 2 or 3; fixed once the world holds bodies
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);  // m/s²
  double dt = 1.0 / 60.0;                // s, one step
  int substeps = 1;                      // solver steps per step, each dt / substeps (1 to kMaxSubsteps)
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
  // singular J W Jᵀ) give finite λ in the iterative solvers and sequential
  // impulses; small enough not to be seen otherwise. The direct solver
  // (ldlt) takes redundant rows out instead and does not use it.
  double regularization = 1e-10;
  // Start each solve from the last λ (iterative solvers and sequential impulses).
  bool warm_start = true;
  // Threads that step the world: the stepping thread and threads − 1
  // workers, which share constraint evaluation, the products with J and the
  // direct solver's factorization and solves (independent subtrees of its
  // elimination tree, so independent components too). A run is
  // bit-identical for a given count.
  int threads = 1;

  // --- the impulse family (velocity_projection, sequential_impulses) ---
  Dynamics dynamics = Dynamics::force_based;
  // β: the share of the position error C removed per step by the velocity
  // solve's bias (β/h) C in velocity projection, and per position iteration
  // in sequential impulses. 0 with position projection, which is exact.
  double baumgarte = 0.2;
  // Sequential impulses (Box2D's method): warm-started velocity sweeps with
  // no position bias; after the position update, position iterations
  // (nonlinear Gauss–Seidel on C, each removing β of it, at most
  // max_correction per row) that move positions without touching
  // velocities, then relax sweeps against the new positions.
  int velocity_iterations = 8;
  int relax_iterations = 1;
  int position_iterations = 3;
  // Sequential impulses cap each body's motion per step, as Box2D does
  // (b2_maxTranslation, b2_maxRotation): a body that would move farther
  // has its velocity scaled down. Iterative impulses cannot hold a large,
  // redundant mechanism exactly, and without the caps a joint that opens
  // feeds back into ever larger impulses.
  double max_translation = 2.0;                // m per step
  double max_rotation = 0.5 * 3.14159265358979323846;  // rad per step
  double max_correction = 0.2;  // m (or rad) per row and position iteration, as Box2D's b2_maxLinearCorrection
  // SHAKE: after the position update, Newton iterations on C(q) = 0 until
  // max |C| < projection_tolerance; then RATTLE: J v = −b.
  bool project_positions = false;
  bool project_velocities = false;
  Projection projection = Projection::shake;
  double projection_tolerance = 1e-10;  // in each row's unit (m, rad)
  int projection_max_iterations = 50;

  // Contacts: bodies with shapes collide (sequential impulses, or the exact
  // family: velocity_projection): in 2D every shape, in 3D balls (particles'
  // disks) and planes.
  bool contacts = false;
  double contact_margin = 0.02;        // m: contacts are found this far before they touch (speculative)
  double contact_slop = 0.005;         // m: overlap sequential impulses leave alone, so that stacks rest without jitter
  double restitution_threshold = 1.0;  // m/s: slower approaches do not bounce
};

// OK, or invalid_argument naming the first setting out of its range.
Status validate(const WorldSettings& settings);

// Named choices of the settings above.
enum class Preset {
  // Every constraint held exactly (max |C| below projection_tolerance,
  // 1e-10 in each row's unit) at a tick's step, whatever the scene:
  // velocity projection with the direct solver, no drift feedback, then
  // Gauss–Newton position projection to the nearest point and RATTLE. Stable
  // at 60 Hz on stiff scenes (a fine chain under load); modes the step
  // cannot resolve lose energy instead of gaining it. Substeps and threads
  // are left as given.
  exact,
};
// `base` with the preset's settings.
WorldSettings with_preset(Preset preset, WorldSettings base = {});

std::string_view integrator_name(Integrator);
std::string_view solver_name(LinearSolver);
std::string_view dynamics_name(Dynamics);
std::string_view projection_name(Projection);

}  // namespace linkage
