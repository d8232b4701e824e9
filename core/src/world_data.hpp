#pragma once
// The world's private state. Model (what the scene is: records with their
// defs) and data (what it is doing: q, q̇, λ, time) live side by side in dense
// arrays in creation order; ids map into them through slot maps.

#include <array>
#include <cstdint>
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
};

struct ConstraintRecord {
  ConstraintId id;
  ConstraintDef def;  // resolved: no "current" values left
  Softness softness;
  int rows = 0;
  int body_a = -1, body_b = -1;  // dense body indices; −1 is the world
  // λ over the last step: the constraint's force (N) or torque (N·m)
  // averaged over the step, every solve's share included (see
  // add_constraint_forces); and the force it applied to each body, through
  // the Jacobian of each share.
  std::array<double, 3> lambda{};
  Reaction on_a, on_b;
  std::array<double, 3> warm{};    // λ of the last solve: the next solve's first guess
};

struct ForceRecord {
  ForceId id;
  ForceDefAny def;
  int body_a = -1, body_b = -1;  // dense body indices; −1 is the world
};

struct WorldData {
  WorldSettings settings;

  SlotMap<BodyId> body_ids;
  std::vector<BodyRecord> bodies;
  Eigen::VectorXd q, v;  // generalized positions and velocities, one block per body

  SlotMap<ConstraintId> constraint_ids;
  std::vector<ConstraintRecord> constraints;

  SlotMap<ForceId> force_ids;
  std::vector<ForceRecord> forces;

  double time = 0.0;
  std::uint64_t steps = 0;
  std::uint64_t topology_version = 0;
  // Changes with anything the constraint rows depend on but q, q̇ and t: a
  // constraint's parameters, a body's kind or motion, the settings. The
  // workspace's evaluated rows are valid only for the version they saw.
  std::uint64_t model_version = 0;
  StepDiagnostics diagnostics;

  // Scratch and caches (factorizations, assembled matrices): derived, never
  // part of the saved state, rebuilt on demand.
  Workspace ws;

  int dof() const { return static_cast<int>(q.size()); }
};

}  // namespace linkage
