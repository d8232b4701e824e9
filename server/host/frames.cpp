#include "frames.hpp"

#include "convert/convert.hpp"
#include "describe.hpp"

namespace linkage::server {
namespace {

void fill_diagnostics(const WorldHost::State& s, v1::Diagnostics* out) {
  const StepDiagnostics& d = s.world.diagnostics();
  out->set_max_error(d.max_error);
  out->set_rms_error(d.rms_error);
  out->set_max_error_rate(d.max_error_rate);
  out->set_kinetic_energy(d.kinetic_energy);
  out->set_gravitational_energy(d.gravitational_energy);
  out->set_spring_energy(d.spring_energy);
  auto vec = [](const Vec3& v, v1::Vec3* p) {
    p->set_x(v.x());
    p->set_y(v.y());
    p->set_z(v.z());
  };
  vec(d.linear_momentum, out->mutable_linear_momentum());
  vec(d.angular_momentum, out->mutable_angular_momentum());
  out->set_solver_iterations(d.solver_iterations);
  out->set_solver_residual(d.solver_residual);
  out->set_rank_deficiency(d.rank_deficiency);
  out->set_projection_iterations(d.projection_iterations);
  out->set_step_seconds(d.step_seconds);
  out->set_overruns(s.overruns);
  out->set_projection_capped(d.projection_capped);
  out->set_projection_error(d.projection_error);
  // The core's SolverPath in proto order, UNSPECIFIED for none.
  out->set_solver_path(static_cast<v1::SolverPath>(static_cast<int>(d.solver_path)));
  out->set_factorizations(d.factorizations);
  out->set_solves(d.solves);
  out->set_pcg_iterations(d.pcg_iterations);
  for (int k = 0; k < kStageCount; ++k) {
    v1::StageTime* stage = out->add_stages();
    stage->set_stage(std::string(stage_name(static_cast<Stage>(k))));
    stage->set_seconds(d.stage_seconds.seconds[static_cast<std::size_t>(k)]);
  }
}

}  // namespace

std::shared_ptr<v1::Snapshot> build_frame(const WorldHost::State& s, const std::string& world, bool constraints,
                                          bool diagnostics) {
  auto frame = std::make_shared<v1::Snapshot>();
  frame->set_world(world);
  frame->set_tick(s.tick);
  frame->set_time(s.world.time());
  frame->set_topology_version(s.changes.version());
  frame->set_dimension(s.world.settings().dimension);
  frame->set_paused(s.paused);
  BodyStates b;
  s.world.body_states(b);
  frame->mutable_body_index()->Reserve(static_cast<int>(b.ids.size()));
  frame->mutable_body_generation()->Reserve(static_cast<int>(b.ids.size()));
  for (const BodyId id : b.ids) {
    frame->add_body_index(id.index);
    frame->add_body_generation(id.generation);
  }
  frame->mutable_position()->Add(b.position.begin(), b.position.end());
  frame->mutable_velocity()->Add(b.velocity.begin(), b.velocity.end());
  frame->mutable_angle()->Add(b.angle.begin(), b.angle.end());
  frame->mutable_angular_velocity()->Add(b.angular_velocity.begin(), b.angular_velocity.end());
  if (constraints) {
    ConstraintStates c;
    s.world.constraint_states(c);
    for (const ConstraintId id : c.ids) {
      frame->add_constraint_index(id.index);
      frame->add_constraint_generation(id.generation);
    }
    frame->mutable_constraint_rows()->Add(c.rows.begin(), c.rows.end());
    frame->mutable_lambda()->Add(c.lambda.begin(), c.lambda.end());
    frame->mutable_error()->Add(c.error.begin(), c.error.end());
  }
  if (diagnostics) fill_diagnostics(s, frame->mutable_diagnostics());
  if (s.halt.reason != HaltReason::none) halt_to_proto(s.halt, frame->mutable_halt());
  return frame;
}

void fill_changes(const WorldHost::State& s, const TopologyDelta& delta, v1::TopologyChanges* out) {
  out->set_full(delta.full);
  auto add_body = [&](BodyId id) {
    if (Result<BodyInfo> info = s.world.body(id)) body_to_proto(info.value(), s.names.body_name(id), out->add_added_bodies());
  };
  auto add_constraint = [&](ConstraintId id) {
    if (Result<ConstraintInfo> info = s.world.constraint(id))
      constraint_to_proto(info.value(), s.world, s.names, out->add_added_constraints());
  };
  auto add_spring = [&](ForceId id) {
    Result<ForceInfo> info = s.world.force(id);
    if (info && std::holds_alternative<SpringDef>(info.value().def)) force_to_proto(info.value(), out->add_added_springs());
  };
  auto id = [](auto i, v1::Id* p) {
    p->set_index(i.index);
    p->set_generation(i.generation);
  };
  if (delta.full || delta.settings) settings_to_proto(s.world.settings(), out->mutable_settings());
  if (delta.full) {
    for (const BodyId b : s.world.bodies()) add_body(b);
    for (const ConstraintId c : s.world.constraints()) add_constraint(c);
    for (const ForceId f : s.world.forces()) add_spring(f);
    return;
  }
  for (const BodyId b : delta.added_bodies) add_body(b);
  for (const BodyId b : delta.removed_bodies) id(b, out->add_removed_bodies());
  for (const ConstraintId c : delta.added_constraints) add_constraint(c);
  for (const ConstraintId c : delta.removed_constraints) id(c, out->add_removed_constraints());
  for (const ForceId f : delta.added_springs) add_spring(f);
  for (const ForceId f : delta.removed_springs) id(f, out->add_removed_springs());
}

}  // namespace linkage::server
