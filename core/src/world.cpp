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

// What measure sums over a chunk of rows or of bodies.
struct RowSums {
  double max_error = 0.0, max_rate = 0.0, sum_c = 0.0, sum_cdot = 0.0;
  int n_c = 0, n_cdot = 0;

  RowSums& operator+=(const RowSums& o) {
    max_error = worse(max_error, o.max_error);
    max_rate = worse(max_rate, o.max_rate);
    sum_c += o.sum_c;
    sum_cdot += o.sum_cdot;
    n_c += o.n_c;
    n_cdot += o.n_cdot;
    return *this;
  }
};
struct BodySums {
  double kinetic = 0.0, gravitational = 0.0;
  Vec3 momentum = Vec3::Zero(), angular = Vec3::Zero();

  BodySums& operator+=(const BodySums& o) {
    kinetic += o.kinetic;
    gravitational += o.gravitational;
    momentum += o.momentum;
    angular += o.angular;
    return *this;
  }
};

RowSums measure_rows(const WorldSettings& s, const Workspace& ws, int first, int last) {
  RowSums out;
  for (int i = first; i < last; ++i) {
    const auto row = static_cast<std::size_t>(i);
    if (!ws.velocity_row[row]) {
      // A slack rope (C < 0) is not in error, nor a contact apart.
      const double c = ws.unilateral_row[row] ? std::max(ws.C[i], 0.0) : ws.C[i];
      out.max_error = worse(out.max_error, std::abs(c));
      out.sum_c += c * c;
      ++out.n_c;
    }
    // Friction's rate is a slide, not an error; a contact's only when it closes.
    if (ws.contact_row[row] == ContactRows::friction) continue;
    const double rate =
        ws.contact_row[row] == ContactRows::normal ? (ws.C[i] < -s.projection_tolerance ? 0.0 : std::max(ws.Cdot[i], 0.0))
                                                   : ws.Cdot[i];
    out.max_rate = worse(out.max_rate, std::abs(rate));
    out.sum_cdot += rate * rate;
    ++out.n_cdot;
  }
  return out;
}

// measure_bodies in the plane: the same sums with z's terms left out (they
// are zero: the same bits), a body's position and velocity as scalars.
BodySums measure_planar_bodies(const WorldModel& m, const WorldData& d, int first, int last) {
  BodySums out;
  double px = 0.0, py = 0.0, lz = 0.0;
  const double gx = m.settings.gravity.x(), gy = m.settings.gravity.y();
  for (int i = first; i < last; ++i) {
    const BodyRecord& r = m.bodies[static_cast<std::size_t>(i)];
    if (r.motion != Motion::dynamic) continue;
    const double x = d.q[r.offset], y = d.q[r.offset + 1], vx = d.v[r.offset], vy = d.v[r.offset + 1];
    const double omega = r.kind == BodyKind::rigid ? d.v[r.offset + 2] : 0.0;
    out.kinetic += 0.5 * r.mass * (vx * vx + vy * vy) + 0.5 * r.inertia * omega * omega;
    out.gravitational -= r.mass * (gx * x + gy * y);
    px += r.mass * vx;
    py += r.mass * vy;
    lz += r.mass * (x * vy - y * vx) + r.inertia * omega;
  }
  out.momentum = Vec3(px, py, 0.0);
  out.angular = Vec3(0.0, 0.0, lz);
  return out;
}

BodySums measure_bodies(const WorldModel& m, const WorldData& d, int first, int last) {
  if (m.settings.dimension == 2) return measure_planar_bodies(m, d, first, last);
  BodySums out;
  for (int i = first; i < last; ++i) {
    const BodyRecord& r = m.bodies[static_cast<std::size_t>(i)];
    if (r.motion != Motion::dynamic) continue;
    // Position and velocities read straight from q and q̇ (a body view
    // would work out the rotation's sine and cosine, which nothing here needs).
    Vec3 x = Vec3::Zero(), v = Vec3::Zero();
    for (int k = 0; k < m.settings.dimension; ++k) {
      x[k] = d.q[r.offset + k];
      v[k] = d.v[r.offset + k];
    }
    const double omega = r.kind == BodyKind::rigid ? d.v[r.offset + 2] : 0.0;
    out.kinetic += 0.5 * r.mass * v.squaredNorm() + 0.5 * r.inertia * omega * omega;
    out.gravitational -= r.mass * m.settings.gravity.dot(x);
    out.momentum += r.mass * v;
    out.angular += r.mass * x.cross(v) + Vec3(0.0, 0.0, r.inertia * omega);
  }
  return out;
}

// Constraint error, energy and momentum of the state the step ended in.
// Chunks of kSumChunk rows or bodies, not the threads, fix the order of
// the additions (as chunked_reduce's): the diagnostics are the same on any
// number of threads.
void measure(const WorldModel& m, WorldData& d, Workspace& ws, StepDiagnostics& out) {
  // The rows at the step's end: usually RATTLE's, and the next step starts from them.
  evaluate_rows(m, d, ws, d.time, d.q, d.v);
  const int rows = static_cast<int>(ws.C.size()), bodies = static_cast<int>(m.bodies.size());
  const int row_chunks = (rows + kSumChunk - 1) / kSumChunk;
  const int chunks = row_chunks + (bodies + kSumChunk - 1) / kSumChunk;
  std::vector<RowSums> row_sums(static_cast<std::size_t>(row_chunks));
  std::vector<BodySums> body_sums(static_cast<std::size_t>(chunks - row_chunks));
  parallel(m, ws).for_parts(chunks, [&](int p, int parts) {
    const auto [first, last] = split(chunks, parts, p);
    for (int k = first; k < last; ++k) {
      if (k < row_chunks) {
        row_sums[static_cast<std::size_t>(k)] =
            measure_rows(m.settings, ws, k * kSumChunk, std::min(rows, (k + 1) * kSumChunk));
      } else {
        const int b = k - row_chunks;
        body_sums[static_cast<std::size_t>(b)] = measure_bodies(m, d, b * kSumChunk, std::min(bodies, (b + 1) * kSumChunk));
      }
    }
  });
  RowSums r;
  for (const RowSums& c : row_sums) r += c;
  out.max_error = r.max_error;
  out.max_error_rate = r.max_rate;
  out.rms_error = r.n_c ? std::sqrt(r.sum_c / r.n_c) : 0.0;
  out.rms_error_rate = r.n_cdot ? std::sqrt(r.sum_cdot / r.n_cdot) : 0.0;
  BodySums b;
  for (const BodySums& c : body_sums) b += c;
  out.kinetic_energy = b.kinetic;
  out.gravitational_energy = b.gravitational;
  out.linear_momentum = b.momentum;
  out.angular_momentum = b.angular;
  out.spring_energy = spring_energy(m, d);
  out.step = d.steps;
  out.time = d.time;
}

}  // namespace

// --- lifecycle ---

WorldState::WorldState() = default;
WorldState::~WorldState() = default;
// Copies share the model and the workspace (WorldParts): the data is copied.
WorldState::WorldState(const WorldState& o) : parts_(o.parts_ ? std::make_unique<WorldParts>(*o.parts_) : nullptr) {}
WorldState& WorldState::operator=(const WorldState& o) {
  if (this != &o) parts_ = o.parts_ ? std::make_unique<WorldParts>(*o.parts_) : nullptr;
  return *this;
}

World::World(std::unique_ptr<WorldParts> parts) : p_(std::move(parts)) {}
World::World(const World& o) : p_(std::make_unique<WorldParts>(*o.p_)) {}
World& World::operator=(const World& o) {
  if (this != &o) *p_ = *o.p_;
  return *this;
}
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

Result<World> World::create(const WorldSettings& settings) {
  if (Status s = validate(settings); !s) return s.error();
  auto p = std::make_unique<WorldParts>();
  p->edit_model().settings = settings;
  return World(std::move(p));
}

const WorldSettings& World::settings() const { return p_->model->settings; }

Status World::set_settings(const WorldSettings& settings) {
  if (Status s = validate(settings); !s) return s;
  if (settings.dimension != p_->model->settings.dimension && !p_->model->bodies.empty())
    return field_error(ErrorCode::failed_precondition, "dimension",
                       "cannot change while the world holds bodies; remove them first");
  WorldModel& m = p_->edit_model();
  m.settings = settings;
  ++m.model_version;
  ++m.settings_version;
  if (!settings.contacts) p_->data.contacts.clear();
  return ok_status();
}

// --- time ---

namespace {

// The step's counters start at 0, the masses are read, the constraint
// forces cleared.
void begin_step(const WorldModel& m, WorldData& d, Workspace& ws) {
  assert_invariants(m, d);
  if (ws.settings_seen != m.settings_version) ws.direct.reset();
  else if (ws.dependencies_seen != m.model_version) ws.direct.recheck();  // rows may have become (in)dependent
  ws.settings_seen = m.settings_version;
  ws.dependencies_seen = m.model_version;
  ws.iterations = 0;
  ws.residual = 0.0;
  ws.step_rank_deficiency = 0;
  ws.projection_iterations = 0;
  ws.projection_capped = false;
  ws.contacts_capped = false;
  ws.projection_error = 0.0;
  ws.direct.factorizations = ws.direct.solves = ws.direct.pcg_iterations = 0;
  ws.direct.work = 0.0;
  update_inverse_masses(m, d, ws);
  begin_constraint_forces(m, d, ws);
}

// The times the exact family looks again for contacts its projection missed.
constexpr int kContactPasses = 3;

// One substep of h: forces, constraints, solve and integrate (per
// derivative evaluation for the force-based integrators), then the
// projections.
void substep(const WorldModel& m, WorldData& d, Workspace& ws, double h, const AccelerationFn& accel, bool has_unilateral) {
  remember_substep_lambda(ws);
  if (m.settings.dynamics == Dynamics::force_based) {
    if (has_unilateral) {
      const StageClock::Scope stage(ws.clock, Stage::solve);
      catch_taut_rows(m, d, ws, d.time);
    }
    integrate(m.settings.integrator, d.time, h, d.q, d.v, accel);
    if (m.settings.project_positions) {
      mark_free_motors(ws, 1.0);
      std::swap(ws.step_J, ws.J);
    }
  } else {
    impulse_step(m, d, ws, d.time, h, /*settle=*/true);
  }
  d.time += h;
  if (m.settings.project_positions) {
    const StageClock::Scope stage(ws.clock, Stage::project_positions);
    // Contacts were found where the substep began: a corner that turned into
    // a neighbour since is added, and the positions projected again; not
    // after a projection that stopped short (capped), which another pass
    // would start where it stopped and spend as much on again.
    ws.projection_start = 0.0;
    bool stopped_short = false;
    for (int pass = 0; pass <= kContactPasses; ++pass) {
      if (pass > 0 && (stopped_short || !ws.contacts.add_missed(m, d, d.v, h, m.settings.projection_tolerance))) break;
      const ProjectionOutcome p = project_positions(m, d, ws, d.time, h);
      stopped_short = p.capped;
      ws.projection_start = std::max(ws.projection_start, p.start);
      ws.projection_iterations += p.iterations;
      ws.projection_capped = ws.projection_capped || p.capped;
      ws.projection_error = std::max(ws.projection_error, p.error);
    }
  }
  if (m.settings.project_velocities) {
    const StageClock::Scope stage(ws.clock, Stage::project_velocities);
    project_velocities(m, d, ws, d.time, h);
  }
  // A step that could not hold its constraints (its projection capped):
  // its velocity solve, on contacts and motors that contradict the joints,
  // may have sent bodies anywhere. Box2D's per-step caps then bound them,
  // as sequential impulses always are.
  // The caps bound the velocity by the settings' substep, so that a split
  // step (step_split.hpp) moves no further than the step it replaces.
  if (ws.projection_capped && velocity_solve_predicts(m.settings)) clamp_motion(m, m.settings.dt / m.settings.substeps, d.v);
  ws.contacts_capped = ws.contacts_capped || ws.contacts.capped();
  if (m.settings.contacts && m.settings.dynamics == Dynamics::velocity_projection) ws.contacts.store(m, d, d.contacts);
}

// Where a step began, to take it again split (step_split.hpp): what its
// substeps change of the data (the constraints' states and warm starts are
// written only once it ends), and the projection start the first velocity
// solve reads.
struct StepStart {
  Eigen::VectorXd q, v;
  double time = 0.0;
  std::vector<ContactRecord> contacts;
  double projection_start = 0.0;

  StepStart(const WorldData& d, const Workspace& ws)
      : q(d.q), v(d.v), time(d.time), contacts(d.contacts), projection_start(ws.projection_start) {}
  // Back to the start, the attempt's forces and outcome cleared; its
  // counts (factorizations, iterations, work) stay: the step did them.
  void restore(const WorldModel& m, WorldData& d, Workspace& ws) const {
    d.q = q;
    d.v = v;
    d.time = time;
    d.contacts = contacts;
    ws.projection_start = projection_start;
    ws.projection_capped = ws.contacts_capped = false;
    ws.projection_error = 0.0;
    ws.warm.steps = ~0ull;  // its warm starts from the constraints' states, as the attempt's were
    ws.forces_clear = false;
    begin_constraint_forces(m, d, ws);
  }
};

// The step from level `first` on: each attempt that may still split stops
// its projections at half their cap (StepSplit::judged), and one that did
// not converge stops there and is taken again at twice the substeps. Where
// none converges (or the step's work budget is spent) the step is taken at
// its own length to the full cap, as without splitting.
template <class Run>
void split_step(const WorldModel& m, WorldData& d, Workspace& ws, int first, Run& run) {
  const StepStart start(d, ws);
  for (int level = first;; ++level) {
    ws.projection_cap = StepSplit::judged(m.settings.projection_max_iterations);
    run(m.settings.substeps << level);
    ws.projection_cap = 0;
    if (!ws.projection_capped) {
      ws.split.held_at(first, level);
      return;
    }
    start.restore(m, d, ws);
    // Out of its work budget, another attempt would stop at once.
    if (level == StepSplit::max_level(m.settings.substeps) || over_work_budget(ws)) break;
  }
  run(m.settings.substeps);
  ws.split.none_held();
}

// Forces applied for a number of steps count down, and are spent at 0:
// they leave the model (a copy of it, if a saved state shares it).
void expire_forces(WorldParts& p) {
  WorldData& d = p.data;
  bool spent = false;
  for (int& left : d.steps_left) spent = (left > 0 && --left == 0) || spent;
  if (!spent) return;
  WorldModel& m = p.edit_model();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    if (d.steps_left[i] == 0 && std::holds_alternative<ForceDef>(m.forces[i].def) &&
        std::get<ForceDef>(m.forces[i].def).steps > 0) {
      m.force_ids.erase(m.forces[i].id);
      continue;
    }
    m.forces[kept] = std::move(m.forces[i]);
    d.steps_left[kept] = d.steps_left[i];
    m.force_ids.set_dense(m.forces[kept].id, static_cast<int>(kept));
    ++kept;
  }
  m.forces.resize(kept);
  d.steps_left.resize(kept);
}

// What the solvers did, into the diagnostics measure() filled.
void report(const WorldModel& m, WorldData& d, Workspace& ws, int substeps, double seconds) {
  StepDiagnostics& out = d.diagnostics;
  out.solver_iterations = ws.iterations;
  out.solver_residual = ws.residual;
  out.rank_deficiency = ws.step_rank_deficiency;
  out.projection_iterations = ws.projection_iterations;
  out.projection_capped = ws.projection_capped;
  out.projection_error = ws.projection_error;
  out.contacts_capped = ws.contacts_capped;
  out.factorizations = ws.direct.factorizations;
  out.solves = ws.direct.solves;
  out.pcg_iterations = ws.direct.pcg_iterations;
  out.substeps = substeps;
  out.solver_path = ws.direct.solves > 0                                   ? ws.direct.path()
                    : m.settings.dynamics == Dynamics::sequential_impulses ? SolverPath::sequential
                    : ws.iterations > 0                                    ? SolverPath::iterative
                                                                           : SolverPath::none;
  out.stage_seconds = ws.clock.times();
  out.step_seconds = seconds;
  ws.solved_model = m.model_version;
}

}  // namespace

// A step, stage by stage (linkage::Stage): each substep runs forces,
// constraints, solve and integrate, then projects positions and
// velocities; the step then expires spent forces and measures itself.
// The clock charges every moment to the innermost stage running.
const StepDiagnostics& World::step() {
  const WorldModel& m = *p_->model;
  WorldData& d = p_->data;
  Workspace& ws = p_->edit_workspace();
  ws.clock.start(Stage::integrate);
  // A pool's workers sleep between steps (a server's ticks are milliseconds
  // apart): woken now, they spin by the step's first parallel pass, which
  // would otherwise wait for the kernel to wake them (chain_1000 on two
  // threads 0.264-0.290 ms a step with 0.3 ms or more between steps,
  // against 0.238 back to back).
  ws.threads.wake(m.settings.threads);
  begin_step(m, d, ws);
  const bool has_unilateral = ws.force_layout.ropes;  // begin_step made the layout
  int ran = 0;  // the substeps of the attempt that completed the step
  auto run = [&](int substeps) {
    const double h = m.settings.dt / substeps;
    const AccelerationFn accel = [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& a,
                                     double weight) { accelerations(m, d, ws, h, t, q, v, a, weight / substeps); };
    for (int i = 0; i < substeps; ++i) {
      substep(m, d, ws, h, accel, has_unilateral);
      if (ws.projection_cap > 0 && ws.projection_capped) return;  // a failed attempt, taken again split
    }
    ran = substeps;
  };
  const bool may_split = velocity_solve_predicts(m.settings);
  const int first = may_split ? ws.split.first_level(m.settings.substeps) : -1;
  if (first < 0) {
    if (may_split) ws.split.rested();
    run(m.settings.substeps);
  } else {
    split_step(m, d, ws, first, run);
  }
  finish_constraint_forces(m, d, ws);
  ++d.steps;
  {
    const StageClock::Scope stage(ws.clock, Stage::expire);
    expire_forces(*p_);  // may replace the model: m is not used after this
  }
  {
    const StageClock::Scope stage(ws.clock, Stage::measure);
    measure(*p_->model, d, ws, d.diagnostics);
  }
  report(*p_->model, d, ws, ran, ws.clock.stop());
  return d.diagnostics;
}

const StepDiagnostics& World::diagnostics() const {
  if (p_->data.steps == 0) measure(*p_->model, p_->data, p_->edit_workspace(), p_->data.diagnostics);
  return p_->data.diagnostics;
}
double World::time() const { return p_->data.time; }
std::uint64_t World::step_count() const { return p_->data.steps; }
std::uint64_t World::topology_version() const { return p_->model->topology_version; }

// --- state ---

WorldState World::save() const {
  WorldState s;
  s.parts_ = std::make_unique<WorldParts>(*p_);
  return s;
}

void World::restore(const WorldState& state) {
  if (!state.parts_) return;
  // The topology version only ever grows, so that a client that saw a
  // version never sees it again for another topology.
  const std::uint64_t version = std::max(p_->model->topology_version, state.parts_->model->topology_version) + 1;
  *p_ = *state.parts_;
  p_->edit_model().topology_version = version;
}

void World::clear_caches() {
  if (!p_->ws) return;
  auto cold = std::make_shared<Workspace>();
  if (p_->ws.use_count() == 1) cold->threads = std::move(p_->ws->threads);  // a split depends on the pool's size alone
  p_->ws = std::move(cold);
}

std::uint64_t World::state_hash() const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  };
  const WorldData& d = p_->data;
  mix(d.q.data(), sizeof(double) * static_cast<std::size_t>(d.q.size()));
  mix(d.v.data(), sizeof(double) * static_cast<std::size_t>(d.v.size()));
  mix(&d.time, sizeof d.time);
  for (const ConstraintState& c : d.constraints) {
    mix(c.lambda.data(), sizeof c.lambda);
    mix(c.warm.data(), sizeof c.warm);
  }
  return h;
}

// --- contacts ---

std::vector<ContactInfo> World::contacts() const {
  std::vector<ContactInfo> out;
  out.reserve(p_->data.contacts.size());
  for (const ContactRecord& c : p_->data.contacts)
    out.push_back({c.a, c.b, c.point, c.normal, c.separation, c.normal_impulse,
                   settings().dimension == 2 ? c.friction_impulse.dot(Vec3(-c.normal.y(), c.normal.x(), 0.0))
                                      : c.friction_impulse.norm(),
                   c.friction_impulse});
  return out;
}

// --- listings ---

std::vector<BodyId> World::bodies() const { return ids_of(p_->model->bodies); }
std::vector<ConstraintId> World::constraints() const { return ids_of(p_->model->constraints); }
std::vector<ForceId> World::forces() const { return ids_of(p_->model->forces); }
std::size_t World::body_count() const { return p_->model->bodies.size(); }
std::size_t World::constraint_count() const { return p_->model->constraints.size(); }
std::size_t World::force_count() const { return p_->model->forces.size(); }
void World::body_states(BodyStates& out) const {
  const WorldModel& m = *p_->model;
  const WorldData& d = p_->data;
  const int dim = m.settings.dimension;
  const std::size_t n = m.bodies.size();
  out.ids.resize(n);
  out.position.resize(n * static_cast<std::size_t>(dim));
  out.velocity.resize(n * static_cast<std::size_t>(dim));
  out.angle.assign(n, 0.0);
  out.angular_velocity.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const BodyRecord& r = m.bodies[i];
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
  const WorldModel& m = *p_->model;
  const WorldData& d = p_->data;
  out.ids.clear();
  out.rows.clear();
  out.lambda.clear();
  out.error.clear();
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const ConstraintRecord& c = m.constraints[i];
    Rows rows;
    evaluate_constraint(c.def, body_view(m, d, c.body_a), body_view(m, d, c.body_b), d.time, m.settings.dimension, rows);
    out.ids.push_back(c.id);
    out.rows.push_back(static_cast<std::uint32_t>(c.rows));
    for (int r = 0; r < c.rows; ++r) {
      out.lambda.push_back(d.constraints[i].lambda[r]);
      out.error.push_back(rows.velocity_level ? rows.Cdot[r] : rows.C[r]);
    }
  }
}

std::vector<ConstraintRow> World::redundant_rows() const {
  std::vector<ConstraintRow> out;
  if (!p_->ws || p_->ws->solved_model != p_->model->model_version) return out;  // the constraints changed since
  const std::vector<int>& rows = p_->ws->direct.dependent_rows();
  std::size_t next = 0;
  int first = 0;
  for (const ConstraintRecord& c : p_->model->constraints) {
    for (; next < rows.size() && rows[next] < first + c.rows; ++next) out.push_back({c.id, rows[next] - first});
    first += c.rows;
  }
  return out;
}

bool World::contains(BodyId id) const { return p_->model->body_ids.find(id) >= 0; }
bool World::contains(ConstraintId id) const { return p_->model->constraint_ids.find(id) >= 0; }
bool World::contains(ForceId id) const { return p_->model->force_ids.find(id) >= 0; }

}  // namespace linkage
