#pragma once
// The world's private state in three parts, as MuJoCo keeps mjModel apart
// from mjData: the model (what the scene is: records with their defs), the
// data (what it is doing: q, q̇, λ, time) and the workspace (what a step
// derives and may reuse). Records sit in dense arrays in creation order; ids
// map into them through slot maps; the data's per-record arrays follow the
// model's order.

#include <array>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include <Eigen/Core>

#include "linkage/world.hpp"
#include "slot_map.hpp"
#include "workspace.hpp"

namespace linkage {

struct BodyRecord {
  BodyId id;
  BodyKind kind = BodyKind::particle;
  Motion motion = Motion::dynamic;
  int offset = 0;  // first DOF in q and q̇
  int dof = 0;     // 2 (2D particle) or 3 (2D rigid: x, y, θ; 3D particle: x, y, z)
  double mass = 0.0, inertia = 0.0;
  double inv_mass = 0.0, inv_inertia = 0.0;  // 0 unless dynamic
  Shape shape;
  double linear_damping = 0.0, angular_damping = 0.0;
  Material material;
  Filter filter;
};

struct ConstraintRecord {
  ConstraintId id;
  ConstraintDef def;  // resolved: no "current" values left
  Softness softness;
  int rows = 0;
  int body_a = -1, body_b = -1;  // dense body indices; −1 is the world
};

struct ForceRecord {
  ForceId id;
  ForceDefAny def;  // an applied force's steps as given; the steps left are data
  int body_a = -1, body_b = -1;  // dense body indices; −1 is the world
};

// What a world is: settings, bodies, constraints and forces with their
// definitions, and the ids that name them. Immutable once shared: a saved
// state and the world share one model until either changes it (see
// WorldParts::edit_model).
struct WorldModel {
  WorldSettings settings;

  SlotMap<BodyId> body_ids;
  std::vector<BodyRecord> bodies;
  SlotMap<ConstraintId> constraint_ids;
  std::vector<ConstraintRecord> constraints;
  SlotMap<ForceId> force_ids;
  std::vector<ForceRecord> forces;

  std::uint64_t topology_version = 0;
  // Changes with anything the constraint rows depend on but q, q̇ and t: a
  // constraint's parameters, a body's kind or motion, the settings. The
  // workspace's evaluated rows are valid only for the version they saw.
  std::uint64_t model_version = 0;
  // Changes with the settings: the direct solver starts over.
  std::uint64_t settings_version = 0;
};

// Per constraint, in the model's order.
struct ConstraintState {
  // λ over the last step: the constraint's force (N) or torque (N·m)
  // averaged over the step, every solve's share included (see
  // add_constraint_forces); and the force it applied to each body, through
  // the Jacobian of each share.
  std::array<double, 3> lambda{};
  Reaction on_a, on_b;
  std::array<double, 3> warm{};  // λ of the last solve: the next solve's first guess
};

// A contact point of the last step: the next step's warm start (matched by
// the bodies and the feature id) and what World::contacts reports.
struct ContactRecord {
  BodyId a, b;
  std::uint32_t feature = 0;
  Vec3 point = Vec3::Zero(), normal = Vec3::UnitX();  // world frame; the normal from a to b (z = 0 in 2D)
  double separation = 0.0;                            // m, when the step found it
  double normal_impulse = 0.0;                        // N·s over the last substep
  Vec3 friction_impulse = Vec3::Zero();               // N·s, world frame, across the normal

  auto key() const { return std::tuple(a, b, feature); }
};

// What a world is doing: everything a step changes but the caches.
struct WorldData {
  Eigen::VectorXd q, v;  // generalized positions and velocities, one block per body
  std::vector<ConstraintState> constraints;  // one per model constraint
  std::vector<int> steps_left;  // one per model force: an applied force's steps to go (0: until removed)
  std::vector<ContactRecord> contacts;  // the last step's, by (a, b, feature)
  double time = 0.0;
  std::uint64_t steps = 0;
  StepDiagnostics diagnostics;

  int dof() const { return static_cast<int>(q.size()); }
};

// A world's three parts. Copies share the model and the workspace until
// one of them changes it (copy on write), so a saved state costs a copy of
// the data.
struct WorldParts {
  // Created non-const (make_shared<WorldModel>), so edit_model may write it once it holds it alone.
  std::shared_ptr<const WorldModel> model = std::make_shared<WorldModel>();
  WorldData data;
  // Scratch and caches (factorizations, assembled matrices): derived from
  // model and data. Null: cold, rebuilt on demand (a decoded state).
  std::shared_ptr<Workspace> ws;

  // The model to change; a copy of it first if another state shares it.
  WorldModel& edit_model() {
    if (model.use_count() > 1) model = std::make_shared<WorldModel>(*model);
    return const_cast<WorldModel&>(*model);  // held by this world alone
  }
  // The workspace for a step; a copy first if shared, a new one if cold.
  Workspace& edit_workspace() {
    if (!ws) ws = std::make_shared<Workspace>();
    else if (ws.use_count() > 1) ws = std::make_shared<Workspace>(*ws);
    return *ws;
  }
};

}  // namespace linkage
