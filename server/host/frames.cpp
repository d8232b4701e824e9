#include "frames.hpp"

#include <algorithm>

#include "convert/convert.hpp"
#include "describe.hpp"

namespace linkage::server {
namespace {

void fill_diagnostics(const WorldHost::State& s, v1::Diagnostics* out) {
  const StepDiagnostics& d = s.world.core().diagnostics();
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
  out->set_contacts_capped(d.contacts_capped);
  // The core's SolverPath in proto order, UNSPECIFIED for none.
  out->set_solver_path(static_cast<v1::SolverPath>(static_cast<int>(d.solver_path)));
  out->set_factorizations(d.factorizations);
  out->set_solves(d.solves);
  out->set_pcg_iterations(d.pcg_iterations);
  out->set_substeps(d.substeps);
  for (int k = 0; k < kStageCount; ++k) {
    v1::StageTime* stage = out->add_stages();
    stage->set_stage(std::string(stage_name(static_cast<Stage>(k))));
    stage->set_seconds(d.stage_seconds.seconds[static_cast<std::size_t>(k)]);
  }
}

void fill_contacts(const WorldHost::State& s, v1::Snapshot* out) {
  const std::vector<ContactInfo> contacts = s.world.core().contacts();
  const int dim = s.world.core().settings().dimension;
  const std::uint64_t limit = s.world.limits().max_bytes, used = s.world.footprint().bytes();
  const std::uint64_t fit = limit > used ? (limit - used) / kContactPointBytes : 0;
  const int n = static_cast<int>(std::min<std::uint64_t>(contacts.size(), fit));
  if (static_cast<std::size_t>(n) < contacts.size()) out->set_contacts_truncated(true);
  for (auto* column : {out->mutable_contact_a_index(), out->mutable_contact_a_generation(),
                       out->mutable_contact_b_index(), out->mutable_contact_b_generation()})
    column->Reserve(n);
  for (auto* column : {out->mutable_contact_point(), out->mutable_contact_normal()}) column->Reserve(n * dim);
  for (auto* column : {out->mutable_contact_separation(), out->mutable_contact_normal_impulse(),
                       out->mutable_contact_tangent_impulse()})
    column->Reserve(n);
  for (int i = 0; i < n; ++i) {
    const ContactInfo& c = contacts[static_cast<std::size_t>(i)];
    out->add_contact_a_index(c.a.index);
    out->add_contact_a_generation(c.a.generation);
    out->add_contact_b_index(c.b.index);
    out->add_contact_b_generation(c.b.generation);
    for (int k = 0; k < dim; ++k) {
      out->add_contact_point(c.point[k]);
      out->add_contact_normal(c.normal[k]);
    }
    out->add_contact_separation(c.separation);
    out->add_contact_normal_impulse(c.normal_impulse);
    out->add_contact_tangent_impulse(c.tangent_impulse);
  }
}

}  // namespace

std::shared_ptr<v1::Snapshot> build_frame(const WorldHost::State& s, const std::string& world, bool constraints,
                                          bool diagnostics, bool contacts) {
  auto frame = std::make_shared<v1::Snapshot>();
  frame->set_world(world);
  frame->set_tick(s.tick);
  frame->set_time(s.world.core().time());
  frame->set_topology_version(s.world.changes().version());
  frame->set_dimension(s.world.core().settings().dimension);
  frame->set_paused(s.paused);
  BodyStates b;
  s.world.core().body_states(b);
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
    s.world.core().constraint_states(c);
    for (const ConstraintId id : c.ids) {
      frame->add_constraint_index(id.index);
      frame->add_constraint_generation(id.generation);
    }
    frame->mutable_constraint_rows()->Add(c.rows.begin(), c.rows.end());
    frame->mutable_lambda()->Add(c.lambda.begin(), c.lambda.end());
    frame->mutable_error()->Add(c.error.begin(), c.error.end());
  }
  if (diagnostics) fill_diagnostics(s, frame->mutable_diagnostics());
  if (contacts) fill_contacts(s, frame.get());
  if (s.halt.reason != HaltReason::none) halt_to_proto(s.halt, frame->mutable_halt());
  return frame;
}

void fill_contact_events(const ContactDelta& delta, v1::Snapshot* out) {
  out->set_contact_events_full(delta.full);
  out->mutable_contact_events()->Reserve(static_cast<int>(delta.events.size()));
  for (const ContactEvent& e : delta.events) {
    v1::ContactEvent* p = out->add_contact_events();
    p->set_kind(e.begin ? v1::CONTACT_EVENT_KIND_BEGIN : v1::CONTACT_EVENT_KIND_END);
    p->set_tick(e.tick);
    p->mutable_a()->set_index(e.pair.a.index);
    p->mutable_a()->set_generation(e.pair.a.generation);
    p->mutable_b()->set_index(e.pair.b.index);
    p->mutable_b()->set_generation(e.pair.b.generation);
  }
}

void fill_changes(const WorldHost::State& s, const TopologyDelta& delta, v1::TopologyChanges* out) {
  out->set_full(delta.full);
  const World& world = s.world.core();
  const Names& names = s.world.names();
  auto body = [&](BodyId id, google::protobuf::RepeatedPtrField<v1::Body>* list) {
    if (Result<BodyInfo> info = world.body(id)) body_to_proto(info.value(), names.body_name(id), list->Add());
  };
  auto constraint = [&](ConstraintId id, google::protobuf::RepeatedPtrField<v1::Constraint>* list) {
    if (Result<ConstraintInfo> info = world.constraint(id)) constraint_to_proto(info.value(), world, names, list->Add());
  };
  auto spring = [&](ForceId id, google::protobuf::RepeatedPtrField<v1::Force>* list) {
    Result<ForceInfo> info = world.force(id);
    if (info && std::holds_alternative<SpringDef>(info.value().def)) force_to_proto(info.value(), list->Add());
  };
  auto id = [](auto i, v1::Id* p) {
    p->set_index(i.index);
    p->set_generation(i.generation);
  };
  if (delta.full || delta.settings) settings_to_proto(world.settings(), out->mutable_settings());
  if (delta.full) {
    for (const BodyId b : world.bodies()) body(b, out->mutable_added_bodies());
    for (const ConstraintId c : world.constraints()) constraint(c, out->mutable_added_constraints());
    for (const ForceId f : world.forces()) spring(f, out->mutable_added_springs());
    return;
  }
  for (const BodyId b : delta.added_bodies) body(b, out->mutable_added_bodies());
  for (const BodyId b : delta.updated_bodies) body(b, out->mutable_updated_bodies());
  for (const BodyId b : delta.removed_bodies) id(b, out->add_removed_bodies());
  for (const ConstraintId c : delta.added_constraints) constraint(c, out->mutable_added_constraints());
  for (const ConstraintId c : delta.updated_constraints) constraint(c, out->mutable_updated_constraints());
  for (const ConstraintId c : delta.removed_constraints) id(c, out->add_removed_constraints());
  for (const ForceId f : delta.added_springs) spring(f, out->mutable_added_springs());
  for (const ForceId f : delta.updated_springs) spring(f, out->mutable_updated_springs());
  for (const ForceId f : delta.removed_springs) id(f, out->add_removed_springs());
}

}  // namespace linkage::server
