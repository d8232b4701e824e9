// World: lifecycle, settings, stepping, diagnostics and state.
#include "linkage/world.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "body_view.hpp"
#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "forces.hpp"
#include "impulse.hpp"
#include "integrators.hpp"
#include "invariants.hpp"
#include "projection.hpp"
#include "world_data.hpp"
#include "world_internal.hpp"

namespace linkage {
namespace {

template <class Ids>
std::vector<decltype(Ids{}[0].id)> ids_of(const Ids& records) {
  std::vector<decltype(Ids{}[0].id)> out;
  out.reserve(records.size());
  for (const auto& r : records) out.push_back(r.id);
  return out;
}

// max that keeps a NaN: a world gone non-finite must not report zero error.
double worse(double a, double b) { return (b > a || std::isnan(b)) && !std::isnan(a) ? b : a; }

// Constraint error, energy and momentum of the state the step ended in.
void measure(WorldData& d, StepDiagnostics& out) {
  // The rows at the step's end: usually RATTLE's, and the next step starts from them.
  evaluate_rows(d, d.time, d.q, d.v);
  const Workspace& ws = d.ws;
  double sum_c = 0.0, sum_cdot = 0.0;
  int n_c = 0, n_cdot = 0;
  out.max_error = out.max_error_rate = 0.0;
  for (int i = 0; i < ws.C.size(); ++i) {
    if (!ws.velocity_row[static_cast<std::size_t>(i)]) {
      // A slack rope (C < 0) is not in error.
      const double c = ws.unilateral_row[static_cast<std::size_t>(i)] ? std::max(ws.C[i], 0.0) : ws.C[i];
      out.max_error = worse(out.max_error, std::abs(c));
      sum_c += c * c;
      ++n_c;
    }
    out.max_error_rate = worse(out.max_error_rate, std::abs(ws.Cdot[i]));
    sum_cdot += ws.Cdot[i] * ws.Cdot[i];
    ++n_cdot;
  }
  out.rms_error = n_c ? std::sqrt(sum_c / n_c) : 0.0;
  out.rms_error_rate = n_cdot ? std::sqrt(sum_cdot / n_cdot) : 0.0;

  out.kinetic_energy = out.gravitational_energy = 0.0;
  out.linear_momentum.setZero();
  out.angular_momentum.setZero();
  for (std::size_t i = 0; i < d.bodies.size(); ++i) {
    const BodyRecord& r = d.bodies[i];
    if (r.motion != Motion::dynamic) continue;
    const BodyView b = body_view(d, static_cast<int>(i));
    out.kinetic_energy += 0.5 * r.mass * b.v.squaredNorm() + 0.5 * r.inertia * b.omega * b.omega;
    out.gravitational_energy -= r.mass * d.settings.gravity.dot(b.x);
    out.linear_momentum += r.mass * b.v;
    out.angular_momentum += r.mass * b.x.cross(b.v) + Vec3(0.0, 0.0, r.inertia * b.omega);
  }
  out.spring_energy = spring_energy(d);
  out.step = d.steps;
  out.time = d.time;
}

}  // namespace

// --- lifecycle ---

WorldState::WorldState() = default;
WorldState::~WorldState() = default;
WorldState::WorldState(const WorldState& o) : data_(o.data_ ? std::make_unique<WorldData>(*o.data_) : nullptr) {}
WorldState& WorldState::operator=(const WorldState& o) {
  if (this != &o) data_ = o.data_ ? std::make_unique<WorldData>(*o.data_) : nullptr;
  return *this;
}

World::World(std::unique_ptr<WorldData> data) : d_(std::move(data)) {}
World::World(const World& o) : d_(std::make_unique<WorldData>(*o.d_)) {}
World& World::operator=(const World& o) {
  if (this != &o) *d_ = *o.d_;
  return *this;
}
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

Result<World> World::create(const WorldSettings& settings) {
  if (Status s = validate(settings); !s) return s.error();
  auto d = std::make_unique<WorldData>();
  d->settings = settings;
  return World(std::move(d));
}

const WorldSettings& World::settings() const { return d_->settings; }

Status World::set_settings(const WorldSettings& settings) {
  if (Status s = validate(settings); !s) return s;
  if (settings.dimension != d_->settings.dimension && !d_->bodies.empty())
    return Error{ErrorCode::failed_precondition,
                 "dimension: cannot change while the world holds bodies; remove them first"};
  d_->ws.direct.reset();
  d_->settings = settings;
  ++d_->model_version;
  return ok_status();
}

// --- time ---

namespace {

// The step's counters start at 0, the masses are read, the constraint
// forces cleared.
void begin_step(WorldData& d) {
  assert_invariants(d);
  Workspace& ws = d.ws;
  ws.iterations = 0;
  ws.residual = 0.0;
  ws.step_rank_deficiency = 0;
  ws.projection_iterations = 0;
  ws.projection_capped = false;
  ws.projection_error = 0.0;
  ws.direct.factorizations = ws.direct.solves = ws.direct.pcg_iterations = 0;
  update_inverse_masses(d);
  begin_constraint_forces(d);
}

// One substep of h: forces, constraints, solve and integrate (per
// derivative evaluation for the force-based integrators), then the
// projections.
void substep(WorldData& d, double h, const AccelerationFn& accel, bool has_unilateral) {
  Workspace& ws = d.ws;
  remember_substep_lambda(d);
  if (d.settings.dynamics == Dynamics::force_based) {
    if (has_unilateral) {
      const StageClock::Scope stage(ws.clock, Stage::solve);
      catch_taut_rows(d, d.time);
    }
    integrate(d.settings.integrator, d.time, h, d.q, d.v, accel);
    if (d.settings.project_positions) {
      mark_free_motors(d, 1.0);
      std::swap(ws.step_J, ws.J);
    }
  } else {
    impulse_step(d, d.time, h);
  }
  d.time += h;
  if (d.settings.project_positions) {
    const StageClock::Scope stage(ws.clock, Stage::project_positions);
    const ProjectionOutcome p = project_positions(d, d.time, h);
    ws.projection_iterations += p.iterations;
    ws.projection_capped = ws.projection_capped || p.capped;
    ws.projection_error = std::max(ws.projection_error, p.error);
  }
  if (d.settings.project_velocities) {
    const StageClock::Scope stage(ws.clock, Stage::project_velocities);
    project_velocities(d, d.time, h);
  }
}

// Forces applied for a number of steps count down, and are spent at 0.
void expire_forces(WorldData& d) {
  std::erase_if(d.forces, [&](ForceRecord& f) {
    auto* uf = std::get_if<ForceDef>(&f.def);
    if (!uf || uf->steps == 0 || --uf->steps > 0) return false;
    d.force_ids.erase(f.id);
    return true;
  });
  for (std::size_t i = 0; i < d.forces.size(); ++i) d.force_ids.set_dense(d.forces[i].id, static_cast<int>(i));
}

// What the solvers did, into the diagnostics measure() filled.
void report(WorldData& d, double seconds) {
  Workspace& ws = d.ws;
  StepDiagnostics& out = d.diagnostics;
  out.solver_iterations = ws.iterations;
  out.solver_residual = ws.residual;
  out.rank_deficiency = ws.step_rank_deficiency;
  out.projection_iterations = ws.projection_iterations;
  out.projection_capped = ws.projection_capped;
  out.projection_error = ws.projection_error;
  out.factorizations = ws.direct.factorizations;
  out.solves = ws.direct.solves;
  out.pcg_iterations = ws.direct.pcg_iterations;
  out.solver_path = ws.direct.solves > 0                                   ? ws.direct.path()
                    : d.settings.dynamics == Dynamics::sequential_impulses ? SolverPath::sequential
                    : ws.iterations > 0                                    ? SolverPath::iterative
                                                                           : SolverPath::none;
  out.stage_seconds = ws.clock.times();
  out.step_seconds = seconds;
  ws.solved_model = d.model_version;
}

}  // namespace

// A step, stage by stage (linkage::Stage): each substep runs forces,
// constraints, solve and integrate, then projects positions and
// velocities; the step then expires spent forces and measures itself.
// The clock charges every moment to the innermost stage running.
const StepDiagnostics& World::step() {
  WorldData& d = *d_;
  Workspace& ws = d.ws;
  ws.clock.start(Stage::integrate);
  begin_step(d);
  const bool has_unilateral = std::any_of(d.constraints.begin(), d.constraints.end(), [](const ConstraintRecord& c) {
    return std::holds_alternative<RopeDef>(c.def);
  });
  const int substeps = d.settings.substeps;
  const double h = d.settings.dt / substeps;
  const AccelerationFn accel = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& a,
                                   double weight) { accelerations(d, h, t, q, v, a, weight / substeps); };
  for (int i = 0; i < substeps; ++i) substep(d, h, accel, has_unilateral);
  finish_constraint_forces(d);
  ++d.steps;
  {
    const StageClock::Scope stage(ws.clock, Stage::expire);
    expire_forces(d);
  }
  {
    const StageClock::Scope stage(ws.clock, Stage::measure);
    measure(d, d.diagnostics);
  }
  report(d, ws.clock.stop());
  return d.diagnostics;
}

const StepDiagnostics& World::diagnostics() const {
  if (d_->steps == 0) measure(*d_, d_->diagnostics);
  return d_->diagnostics;
}
double World::time() const { return d_->time; }
std::uint64_t World::step_count() const { return d_->steps; }
std::uint64_t World::topology_version() const { return d_->topology_version; }

// --- state ---

WorldState World::save() const {
  WorldState s;
  s.data_ = std::make_unique<WorldData>(*d_);
  return s;
}

void World::restore(const WorldState& state) {
  if (!state.data_) return;
  // The topology version only ever grows, so that a client that saw a
  // version never sees it again for another topology.
  const std::uint64_t version = std::max(d_->topology_version, state.data_->topology_version) + 1;
  *d_ = *state.data_;
  d_->topology_version = version;
}

void World::clear_caches() {
  Threads threads = std::move(d_->ws.threads);  // the pool's size, not its past, decides a split
  d_->ws = Workspace{};
  d_->ws.threads = std::move(threads);
}

std::uint64_t World::state_hash() const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  };
  mix(d_->q.data(), sizeof(double) * static_cast<std::size_t>(d_->q.size()));
  mix(d_->v.data(), sizeof(double) * static_cast<std::size_t>(d_->v.size()));
  mix(&d_->time, sizeof d_->time);
  for (const ConstraintRecord& c : d_->constraints) {
    mix(c.lambda.data(), sizeof c.lambda);
    mix(c.warm.data(), sizeof c.warm);
  }
  return h;
}

// --- listings ---

std::vector<BodyId> World::bodies() const { return ids_of(d_->bodies); }
std::vector<ConstraintId> World::constraints() const { return ids_of(d_->constraints); }
std::vector<ForceId> World::forces() const { return ids_of(d_->forces); }
std::size_t World::body_count() const { return d_->bodies.size(); }
std::size_t World::constraint_count() const { return d_->constraints.size(); }
std::size_t World::force_count() const { return d_->forces.size(); }
void World::body_states(BodyStates& out) const {
  const WorldData& d = *d_;
  const int dim = d.settings.dimension;
  const std::size_t n = d.bodies.size();
  out.ids.resize(n);
  out.position.resize(n * static_cast<std::size_t>(dim));
  out.velocity.resize(n * static_cast<std::size_t>(dim));
  out.angle.assign(n, 0.0);
  out.angular_velocity.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const BodyRecord& r = d.bodies[i];
    out.ids[i] = r.id;
    for (int k = 0; k < dim; ++k) {
      out.position[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)] = d.q[r.offset + k];
      out.velocity[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)] = d.v[r.offset + k];
    }
    if (r.kind == BodyKind::rigid) {
      out.angle[i] = d.q[r.offset + 2];
      out.angular_velocity[i] = d.v[r.offset + 2];
    }
  }
}

void World::constraint_states(ConstraintStates& out) const {
  const WorldData& d = *d_;
  out.ids.clear();
  out.rows.clear();
  out.lambda.clear();
  out.error.clear();
  for (const ConstraintRecord& c : d.constraints) {
    Rows rows;
    evaluate_constraint(c.def, body_view(d, c.body_a), body_view(d, c.body_b), d.time, d.settings.dimension, rows);
    out.ids.push_back(c.id);
    out.rows.push_back(static_cast<std::uint32_t>(c.rows));
    for (int r = 0; r < c.rows; ++r) {
      out.lambda.push_back(c.lambda[r]);
      out.error.push_back(rows.velocity_level ? rows.Cdot[r] : rows.C[r]);
    }
  }
}

std::vector<ConstraintRow> World::redundant_rows() const {
  std::vector<ConstraintRow> out;
  if (d_->ws.solved_model != d_->model_version) return out;  // the constraints changed since
  const std::vector<int>& rows = d_->ws.direct.dependent_rows();
  std::size_t next = 0;
  int first = 0;
  for (const ConstraintRecord& c : d_->constraints) {
    for (; next < rows.size() && rows[next] < first + c.rows; ++next) out.push_back({c.id, rows[next] - first});
    first += c.rows;
  }
  return out;
}

bool World::contains(BodyId id) const { return d_->body_ids.find(id) >= 0; }
bool World::contains(ConstraintId id) const { return d_->constraint_ids.find(id) >= 0; }
bool World::contains(ForceId id) const { return d_->force_ids.find(id) >= 0; }

}  // namespace linkage
