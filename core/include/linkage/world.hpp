#pragma once
// A world: bodies, constraints and forces, stepped by Witkin's constrained
// dynamics. Every call that takes user input validates it first: on error it
// returns the error and the world is exactly as it was.
//
// Concurrency: a World is a plain value with no locks. One thread at a time
// may touch it; the server serialises commands and steps on the world's own
// tick thread.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "linkage/body.hpp"
#include "linkage/constraints.hpp"
#include "linkage/diagnostics.hpp"
#include "linkage/force.hpp"
#include "linkage/result.hpp"
#include "linkage/settings.hpp"

namespace linkage {

struct WorldParts;  // the world's private state: model, data, workspace (core/src)

// What removing a body took with it.
struct Removed {
  std::vector<ConstraintId> constraints;
  std::vector<ForceId> forces;
};

using ForceDefAny = std::variant<SpringDef, ForceDef>;

// One row of a constraint.
struct ConstraintRow {
  ConstraintId constraint;
  int row = 0;
};

// A contact point of the last step.
struct ContactInfo {
  BodyId a, b;
  Vec3 point = Vec3::Zero();   // m, world frame, midway between the surfaces
  Vec3 normal = Vec3::UnitX(); // unit, from a to b
  // m (< 0: overlapping): sequential impulses, when the step found it (the
  // start of its last substep); the exact family, where the step left it.
  double separation = 0.0;
  // Over the step's last substep (dt / substeps): divided by it, the force.
  double normal_impulse = 0.0;   // N·s along the normal (≥ 0: contacts push)
  // N·s of friction: in 2D along the normal turned +90°, in 3D its size.
  double tangent_impulse = 0.0;
  Vec3 friction_impulse = Vec3::Zero();  // N·s, the friction impulse itself (world frame)
};

struct ForceInfo {
  ForceId id;
  ForceDefAny def;  // a spring's rest length resolved
};

// Every body's state in packed columns, in the world's order (creation
// order): what a stream sends each tick.
struct BodyStates {
  std::vector<BodyId> ids;
  std::vector<double> position;  // dimension values per body, m
  std::vector<double> velocity;  // dimension values per body, m/s
  std::vector<double> angle;     // one per body, rad (0 for particles)
  std::vector<double> angular_velocity;  // one per body, rad/s
};

// Every constraint's rows in packed columns, in the world's order.
struct ConstraintStates {
  std::vector<ConstraintId> ids;
  std::vector<std::uint32_t> rows;  // one per constraint
  std::vector<double> lambda;       // Σ rows values: λ of the last step
  std::vector<double> error;        // Σ rows values: C now (a motor's velocity error)
};

// A complete copy of a world: bodies, constraints, forces, ids, warm-start
// data, time and settings. Restoring it resumes bit-identically.
class WorldState {
 public:
  WorldState();
  ~WorldState();
  WorldState(const WorldState&);
  WorldState& operator=(const WorldState&);

 private:
  friend class World;
  friend std::string encode(const WorldState&);
  friend Result<WorldState> decode(std::string_view);
  std::unique_ptr<WorldParts> parts_;
};

class World {
 public:
  // A new, empty world; fails on invalid settings.
  static Result<World> create(const WorldSettings& settings = {});

  World(const World&);
  World& operator=(const World&);
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  ~World();

  const WorldSettings& settings() const;
  // Changes settings live; the dimension may change only while the world is empty.
  Status set_settings(const WorldSettings& settings);

  // --- bodies ---
  Result<BodyId> add_body(const BodyDef& def);
  // Replaces a body's definition (state, mass, shape, motion); its kind stays.
  Status update_body(BodyId id, const BodyDef& def);
  // Moves a body (position, angle, velocities) and nothing else: its model
  // stays, and so does everything the world derived from it.
  Status set_body_state(BodyId id, const BodyState& state);
  // Removes the body and every constraint and force attached to it.
  Result<Removed> remove_body(BodyId id);
  // Removes these bodies as one remove_body each would, in one pass over
  // the world (a pass each costs O(bodies + constraints) a body): one
  // Removed for each id, a constraint or force between two of them under
  // the first. A null, unknown or repeated id is refused (field `ids[k]`)
  // and nothing is removed.
  Result<std::vector<Removed>> remove_bodies(std::span<const BodyId> ids);
  Result<BodyInfo> body(BodyId id) const;
  std::vector<BodyId> bodies() const;  // in creation order
  std::size_t body_count() const;
  void body_states(BodyStates& out) const;
  bool contains(BodyId id) const;

  // --- constraints ---
  Result<ConstraintId> add_constraint(const ConstraintDef& def, const Softness& softness = {});
  // Changes parameters (rest length, motor speed, ratio...) between steps.
  // The type and the bodies must stay the same; λ is kept for warm starting.
  Status update_constraint(ConstraintId id, const ConstraintDef& def);
  // Makes a constraint soft (frequency > 0) or rigid again (frequency 0).
  Status set_softness(ConstraintId id, const Softness& softness);
  Status remove_constraint(ConstraintId id);
  // Removes these constraints in one pass; an unknown or repeated id is
  // refused (field `ids[k]`) and nothing is removed.
  Status remove_constraints(std::span<const ConstraintId> ids);
  Result<ConstraintInfo> constraint(ConstraintId id) const;
  std::vector<ConstraintId> constraints() const;  // in creation order
  std::size_t constraint_count() const;
  void constraint_states(ConstraintStates& out) const;
  bool contains(ConstraintId id) const;
  // The rows the direct solver (LinearSolver::ldlt) found redundant, in
  // creation order: each depends on rows kept, so it was taken out of the
  // solve (λ = 0) rather than regularized. StepDiagnostics::rank_deficiency
  // counts them, and rows that touch nothing movable.
  std::vector<ConstraintRow> redundant_rows() const;

  // --- forces ---
  Result<ForceId> add_spring(const SpringDef& def);
  Status update_spring(ForceId id, const SpringDef& def);
  Result<ForceId> apply_force(const ForceDef& def);
  // Changes a body's momentum now (a kick between steps).
  Status apply_impulse(const ImpulseDef& def);
  Status remove_force(ForceId id);
  Result<ForceInfo> force(ForceId id) const;
  std::vector<ForceId> forces() const;
  std::size_t force_count() const;
  bool contains(ForceId id) const;

  // --- contacts ---
  // The contact points the last step solved (settings().contacts), by body pair.
  std::vector<ContactInfo> contacts() const;

  // --- time ---
  // Advances the world by settings().dt in settings().substeps solver steps.
  const StepDiagnostics& step();
  // The last step's diagnostics (zeros and the current state's measures before any step).
  const StepDiagnostics& diagnostics() const;
  double time() const;
  std::uint64_t step_count() const;
  // Changes whenever a body or constraint is added or removed.
  std::uint64_t topology_version() const;

  // --- state ---
  WorldState save() const;
  void restore(const WorldState& state);
  // Forgets what the next step would reuse (the rows evaluated at this
  // state, factorizations), which decides its round-off. A world restored
  // from encoded bytes (snapshot.hpp) has none of it: clearing a running
  // world's caches when its state is encoded makes the two continue
  // bit-identically.
  void clear_caches();
  // FNV-1a over the bytes of the dynamic state (q, q̇, λ, time): equal hashes
  // mean bit-identical runs.
  std::uint64_t state_hash() const;

 private:
  explicit World(std::unique_ptr<WorldParts> parts);
  std::unique_ptr<WorldParts> p_;
};

}  // namespace linkage
