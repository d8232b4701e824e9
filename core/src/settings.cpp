// World settings: their names and the ranges that mean something.
#include "linkage/settings.hpp"
#include "linkage/diagnostics.hpp"

#include <cmath>
#include <string>

#include "world_internal.hpp"

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

WorldSettings with_preset(Preset preset, WorldSettings s) {
  switch (preset) {
    case Preset::exact:
      s.dynamics = Dynamics::velocity_projection;
      s.solver = LinearSolver::ldlt;
      s.baumgarte = 0.0;
      s.project_positions = true;
      s.project_velocities = true;
      s.projection = Projection::nearest;
      s.projection_tolerance = 1e-10;
      s.projection_max_iterations = 200;
      s.solver_tolerance = 1e-10;
      break;
  }
  return s;
}

std::string_view projection_name(Projection p) {
  switch (p) {
    case Projection::shake: return "shake";
    case Projection::nearest: return "nearest";
  }
  return "unknown";
}

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::forces: return "forces";
    case Stage::constraints: return "constraints";
    case Stage::solve: return "solve";
    case Stage::integrate: return "integrate";
    case Stage::project_positions: return "project_positions";
    case Stage::project_velocities: return "project_velocities";
    case Stage::expire: return "expire";
    case Stage::measure: return "measure";
  }
  return "unknown";
}

double StageTimes::total() const {
  double sum = 0.0;
  for (const double s : seconds) sum += s;
  return sum;
}

std::string_view solver_path_name(SolverPath p) {
  switch (p) {
    case SolverPath::none: return "none";
    case SolverPath::tree: return "tree";
    case SolverPath::graph: return "graph";
    case SolverPath::mixed: return "mixed";
    case SolverPath::iterative: return "iterative";
    case SolverPath::sequential: return "sequential";
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

namespace {

constexpr double kMinTolerance = 1e-15;
// Enough for any convergent iteration on the largest world; beyond it a cap
// only decides how long a world spins. Servers set their own, lower, cap.
constexpr int kMaxIterations = 1000000;
// More threads than this only wait on each other's memory traffic.
constexpr int kMaxThreads = 64;


}  // namespace

Status validate(const WorldSettings& s) {
  if (s.dimension != 2 && s.dimension != 3)
    return invalid_argument("dimension", "must be 2 or 3, got " + std::to_string(s.dimension));
  if (!s.gravity.allFinite()) return invalid_argument("gravity", "must be finite");
  if (s.dimension == 2 && s.gravity.z() != 0.0) return invalid_argument("gravity", "z must be 0 in a 2D world");
  if (!(std::isfinite(s.dt) && s.dt > 0.0)) return invalid_argument("dt", "must be > 0 s, got " + std::to_string(s.dt));
  if (s.substeps < 1 || s.substeps > kMaxSubsteps)
    return invalid_argument("substeps", "must be 1 to " + std::to_string(kMaxSubsteps) + ", got " + std::to_string(s.substeps));
  if (!(std::isfinite(s.feedback_stiffness) && s.feedback_stiffness >= 0.0))
    return invalid_argument("feedback_stiffness", "must be ≥ 0 1/s², got " + std::to_string(s.feedback_stiffness));
  if (!(std::isfinite(s.feedback_damping) && s.feedback_damping >= 0.0))
    return invalid_argument("feedback_damping", "must be ≥ 0 1/s, got " + std::to_string(s.feedback_damping));
  // Below kMinTolerance a residual or an error is rounding noise that no
  // iteration can reduce: the solver would only ever stop at its cap.
  if (!(std::isfinite(s.solver_tolerance) && s.solver_tolerance >= kMinTolerance && s.solver_tolerance < 1.0))
    return invalid_argument("solver_tolerance", "must be ≥ 1e-15 and < 1, got " + number_text(s.solver_tolerance));
  if (s.solver_max_iterations < 1 || s.solver_max_iterations > kMaxIterations)
    return invalid_argument("solver_max_iterations", "must be 1 to 1000000, got " + std::to_string(s.solver_max_iterations));
  if (!(std::isfinite(s.regularization) && s.regularization >= 0.0 && s.regularization < 1.0))
    return invalid_argument("regularization", "must be in [0, 1), got " + std::to_string(s.regularization));
  if (!(std::isfinite(s.baumgarte) && s.baumgarte >= 0.0 && s.baumgarte <= 1.0))
    return invalid_argument("baumgarte", "must be in [0, 1], got " + std::to_string(s.baumgarte));
  if (s.velocity_iterations < 1 || s.velocity_iterations > 10000)
    return invalid_argument("velocity_iterations", "must be 1 to 10000, got " + std::to_string(s.velocity_iterations));
  if (s.relax_iterations < 0 || s.relax_iterations > 10000)
    return invalid_argument("relax_iterations", "must be 0 to 10000, got " + std::to_string(s.relax_iterations));
  if (s.position_iterations < 0 || s.position_iterations > 10000)
    return invalid_argument("position_iterations", "must be 0 to 10000, got " + std::to_string(s.position_iterations));
  if (!(std::isfinite(s.projection_tolerance) && s.projection_tolerance >= kMinTolerance))
    return invalid_argument("projection_tolerance", "must be ≥ 1e-15, got " + number_text(s.projection_tolerance));
  if (s.projection_max_iterations < 1 || s.projection_max_iterations > kMaxIterations)
    return invalid_argument("projection_max_iterations", "must be 1 to 1000000, got " +
                            std::to_string(s.projection_max_iterations));
  if (!(std::isfinite(s.max_translation) && s.max_translation > 0.0))
    return invalid_argument("max_translation", "must be > 0 m, got " + number_text(s.max_translation));
  if (!(std::isfinite(s.max_rotation) && s.max_rotation > 0.0))
    return invalid_argument("max_rotation", "must be > 0 rad, got " + number_text(s.max_rotation));
  if (!(std::isfinite(s.max_correction) && s.max_correction > 0.0))
    return invalid_argument("max_correction", "must be > 0, got " + number_text(s.max_correction));
  if (s.threads < 1 || s.threads > kMaxThreads)
    return invalid_argument("threads", "must be 1 to " + std::to_string(kMaxThreads) + ", got " + std::to_string(s.threads));
  if (s.contacts && s.dynamics == Dynamics::force_based)
    return invalid_argument("contacts", "the force_based dynamics takes no contacts: use velocity_projection (exact) or sequential_impulses");
  LINKAGE_CHECK(check_nonnegative("contact_margin", s.contact_margin));
  LINKAGE_CHECK(check_nonnegative("contact_slop", s.contact_slop));
  LINKAGE_CHECK(check_nonnegative("restitution_threshold", s.restitution_threshold));
  return ok_status();
}

}  // namespace linkage
