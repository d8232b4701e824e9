#include "linkage/client/proto.hpp"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <type_traits>

namespace linkage::client {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

// Both bodies and both anchors, which most constraint messages share.
template <class Def, class Msg>
void pair_to_proto(const Def& d, Msg* m) {
  *m->mutable_a() = to_proto(d.a);
  *m->mutable_b() = to_proto(d.b);
  *m->mutable_anchor_a() = to_proto(d.anchor_a);
  *m->mutable_anchor_b() = to_proto(d.anchor_b);
}

void path_to_proto(const Path& p, v1::Path* m) {
  *m->mutable_origin() = to_proto(p.origin);
  *m->mutable_velocity() = to_proto(p.velocity);
  *m->mutable_amplitude() = to_proto(p.amplitude);
  *m->mutable_frequency() = to_proto(p.frequency);
  *m->mutable_phase() = to_proto(p.phase);
}

}  // namespace

v1::Vec3 to_proto(const Vec3& v) {
  v1::Vec3 m;
  m.set_x(v.x);
  m.set_y(v.y);
  m.set_z(v.z);
  return m;
}

Vec3 from_proto(const v1::Vec3& v) { return {v.x(), v.y(), v.z()}; }

v1::Id to_proto(Id id) {
  v1::Id m;
  m.set_index(id.index);
  m.set_generation(id.generation);
  return m;
}

Id from_proto(const v1::Id& id) { return {id.index(), id.generation()}; }

v1::BodyRef to_proto(const BodyRef& ref) {
  v1::BodyRef m;
  if (const Id* id = std::get_if<Id>(&ref.ref)) *m.mutable_id() = to_proto(*id);
  if (const std::string* name = std::get_if<std::string>(&ref.ref)) m.set_name(*name);
  return m;
}

v1::BodyDef to_proto(const BodyDef& d) {
  v1::BodyDef m;
  m.set_name(d.name);
  m.set_kind(d.kind == BodyKind::rigid ? v1::BODY_KIND_RIGID : v1::BODY_KIND_PARTICLE);
  switch (d.motion) {
    case Motion::dynamic: m.set_motion(v1::MOTION_DYNAMIC); break;
    case Motion::fixed: m.set_motion(v1::MOTION_FIXED); break;
    case Motion::kinematic: m.set_motion(v1::MOTION_KINEMATIC); break;
  }
  *m.mutable_position() = to_proto(d.position);
  m.set_angle(d.angle);
  *m.mutable_velocity() = to_proto(d.velocity);
  m.set_angular_velocity(d.angular_velocity);
  m.set_mass(d.mass);
  m.set_inertia(d.inertia);
  m.set_density(d.density);
  std::visit(overloaded{
                 [](const NoShape&) {},
                 [&](const Disk& s) { m.mutable_shape()->mutable_disk()->set_radius(s.radius); },
                 [&](const Box& s) {
                   m.mutable_shape()->mutable_box()->set_half_width(s.half_width);
                   m.mutable_shape()->mutable_box()->set_half_height(s.half_height);
                 },
                 [&](const Polygon& s) {
                   for (const Vec3& v : s.vertices) *m.mutable_shape()->mutable_polygon()->add_vertices() = to_proto(v);
                 },
                 [&](const Capsule& s) {
                   m.mutable_shape()->mutable_capsule()->set_radius(s.radius);
                   m.mutable_shape()->mutable_capsule()->set_half_length(s.half_length);
                 },
                 [&](const Segment& s) {
                   *m.mutable_shape()->mutable_segment()->mutable_a() = to_proto(s.a);
                   *m.mutable_shape()->mutable_segment()->mutable_b() = to_proto(s.b);
                 },
                 [&](const Plane& s) { *m.mutable_shape()->mutable_plane()->mutable_normal() = to_proto(s.normal); },
             },
             d.shape);
  m.set_linear_damping(d.linear_damping);
  m.set_angular_damping(d.angular_damping);
  if (d.material.friction) m.mutable_material()->set_friction(*d.material.friction);
  if (d.material.restitution) m.mutable_material()->set_restitution(*d.material.restitution);
  if (d.filter.category) m.mutable_filter()->set_category(*d.filter.category);
  if (d.filter.mask) m.mutable_filter()->set_mask(*d.filter.mask);
  if (d.filter.group != 0) m.mutable_filter()->set_group(d.filter.group);
  return m;
}

v1::WorldSettings to_proto(const WorldSettings& s) {
  v1::WorldSettings m;
  if (s.dimension) m.set_dimension(*s.dimension);
  if (s.gravity) *m.mutable_gravity() = to_proto(*s.gravity);
  if (s.tick_rate) m.set_tick_rate(*s.tick_rate);
  if (s.substeps) m.set_substeps(*s.substeps);
  // The enums are in the proto's order, one past UNSPECIFIED.
  if (s.dynamics) m.set_dynamics(static_cast<v1::Dynamics>(static_cast<int>(*s.dynamics) + 1));
  if (s.integrator) m.set_integrator(static_cast<v1::Integrator>(static_cast<int>(*s.integrator) + 1));
  if (s.solver) m.set_solver(static_cast<v1::LinearSolver>(static_cast<int>(*s.solver) + 1));
  if (s.feedback_stiffness) m.set_feedback_stiffness(*s.feedback_stiffness);
  if (s.feedback_damping) m.set_feedback_damping(*s.feedback_damping);
  if (s.solver_tolerance) m.set_solver_tolerance(*s.solver_tolerance);
  if (s.solver_max_iterations) m.set_solver_max_iterations(*s.solver_max_iterations);
  if (s.regularization) m.set_regularization(*s.regularization);
  if (s.warm_start) m.set_warm_start(*s.warm_start);
  if (s.baumgarte) m.set_baumgarte(*s.baumgarte);
  if (s.velocity_iterations) m.set_velocity_iterations(*s.velocity_iterations);
  if (s.position_iterations) m.set_position_iterations(*s.position_iterations);
  if (s.relax_iterations) m.set_relax_iterations(*s.relax_iterations);
  if (s.project_positions) m.set_project_positions(*s.project_positions);
  if (s.project_velocities) m.set_project_velocities(*s.project_velocities);
  if (s.projection_tolerance) m.set_projection_tolerance(*s.projection_tolerance);
  if (s.projection_max_iterations) m.set_projection_max_iterations(*s.projection_max_iterations);
  if (s.preset) m.set_preset(static_cast<v1::Preset>(static_cast<int>(*s.preset) + 1));
  if (s.projection) m.set_projection(static_cast<v1::Projection>(static_cast<int>(*s.projection) + 1));
  if (s.threads) m.set_threads(*s.threads);
  if (s.max_translation) m.set_max_translation(*s.max_translation);
  if (s.max_rotation) m.set_max_rotation(*s.max_rotation);
  if (s.max_correction) m.set_max_correction(*s.max_correction);
  if (s.contacts) m.set_contacts(*s.contacts);
  if (s.contact_margin) m.set_contact_margin(*s.contact_margin);
  if (s.contact_slop) m.set_contact_slop(*s.contact_slop);
  if (s.restitution_threshold) m.set_restitution_threshold(*s.restitution_threshold);
  return m;
}

v1::WorldLimits to_proto(const WorldLimits& l) {
  v1::WorldLimits m;
  if (l.max_bodies) m.set_max_bodies(*l.max_bodies);
  if (l.max_constraints) m.set_max_constraints(*l.max_constraints);
  if (l.max_forces) m.set_max_forces(*l.max_forces);
  if (l.max_error) m.set_max_error(*l.max_error);
  return m;
}

v1::ConstraintDef to_proto(const ConstraintDef& def, const ConstraintOptions& options) {
  v1::ConstraintDef m;
  m.set_name(options.name);
  if (options.softness.frequency != 0.0) {
    m.mutable_softness()->set_frequency(options.softness.frequency);
    m.mutable_softness()->set_damping_ratio(options.softness.damping_ratio);
  }
  std::visit(overloaded{
                 [&](const DistanceDef& d) {
                   auto* c = m.mutable_distance();
                   pair_to_proto(d, c);
                   if (d.length) c->set_length(*d.length);
                 },
                 [&](const RopeDef& d) {
                   auto* c = m.mutable_rope();
                   pair_to_proto(d, c);
                   if (d.max_length) c->set_max_length(*d.max_length);
                 },
                 [&](const PinDef& d) { pair_to_proto(d, m.mutable_pin()); },
                 [&](const PointOnLineDef& d) {
                   auto* c = m.mutable_point_on_line();
                   pair_to_proto(d, c);
                   *c->mutable_axis() = to_proto(d.axis);
                 },
                 [&](const PointOnCircleDef& d) {
                   auto* c = m.mutable_point_on_circle();
                   pair_to_proto(d, c);
                   if (d.radius) c->set_radius(*d.radius);
                 },
                 [&](const PointOnPlaneDef& d) {
                   auto* c = m.mutable_point_on_plane();
                   pair_to_proto(d, c);
                   *c->mutable_normal() = to_proto(d.normal);
                 },
                 [&](const WeldDef& d) {
                   auto* c = m.mutable_weld();
                   pair_to_proto(d, c);
                   if (d.angle) c->set_angle(*d.angle);
                 },
                 [&](const RelativeAngleDef& d) {
                   auto* c = m.mutable_relative_angle();
                   *c->mutable_a() = to_proto(d.a);
                   *c->mutable_b() = to_proto(d.b);
                   if (d.angle) c->set_angle(*d.angle);
                 },
                 [&](const GearDef& d) {
                   auto* c = m.mutable_gear();
                   *c->mutable_a() = to_proto(d.a);
                   *c->mutable_b() = to_proto(d.b);
                   c->set_radius_a(d.radius_a);
                   c->set_radius_b(d.radius_b);
                   if (d.offset) c->set_offset(*d.offset);
                 },
                 [&](const RackAndPinionDef& d) {
                   auto* c = m.mutable_rack_and_pinion();
                   *c->mutable_rack() = to_proto(d.rack);
                   *c->mutable_pinion() = to_proto(d.pinion);
                   *c->mutable_anchor() = to_proto(d.anchor);
                   *c->mutable_axis() = to_proto(d.axis);
                   c->set_radius(d.radius);
                   if (d.offset) c->set_offset(*d.offset);
                 },
                 [&](const MotorDef& d) {
                   auto* c = m.mutable_motor();
                   *c->mutable_a() = to_proto(d.a);
                   *c->mutable_b() = to_proto(d.b);
                   c->set_kind(d.kind == MotorKind::linear ? v1::MOTOR_KIND_LINEAR : v1::MOTOR_KIND_ANGULAR);
                   c->set_speed(d.speed);
                   *c->mutable_axis() = to_proto(d.axis);
                   // Infinity is "unlimited", which the proto says by leaving it unset.
                   if (std::isfinite(d.max_force)) c->set_max_force(d.max_force);
                 },
                 [&](const TrajectoryDef& d) {
                   auto* c = m.mutable_trajectory();
                   *c->mutable_body() = to_proto(d.body);
                   *c->mutable_anchor() = to_proto(d.anchor);
                   path_to_proto(d.path, c->mutable_path());
                 },
             },
             def);
  return m;
}

v1::ForceDef to_proto(const SpringDef& d) {
  v1::ForceDef m;
  v1::Spring* s = m.mutable_spring();
  pair_to_proto(d, s);
  s->set_stiffness(d.stiffness);
  s->set_damping(d.damping);
  if (d.rest_length) s->set_rest_length(*d.rest_length);
  return m;
}

v1::ForceDef to_proto(const ForceDef& d) {
  v1::ForceDef m;
  v1::AppliedForce* f = m.mutable_applied();
  *f->mutable_body() = to_proto(d.body);
  *f->mutable_force() = to_proto(d.force);
  *f->mutable_point() = to_proto(d.point);
  f->set_torque(d.torque);
  f->set_ticks(d.ticks);
  return m;
}

v1::Impulse to_proto(const ImpulseDef& d) {
  v1::Impulse m;
  *m.mutable_body() = to_proto(d.body);
  *m.mutable_impulse() = to_proto(d.impulse);
  *m.mutable_point() = to_proto(d.point);
  m.set_angular_impulse(d.angular_impulse);
  return m;
}

std::string to_json(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.preserve_proto_field_names = true;
  std::string out;
  // Printing a well-formed message cannot fail but for NaN or infinity,
  // which JSON cannot hold; say so rather than print half a message.
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok())
    return R"({"error": "the message holds a value JSON cannot represent"})";
  return out;
}

Status from_json(std::string_view json, google::protobuf::Message* out) {
  google::protobuf::util::JsonParseOptions options;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), out, options);
  if (!status.ok())
    return Error{grpc::StatusCode::INVALID_ARGUMENT, std::string(status.message().data(), status.message().size())};
  return {};
}

}  // namespace linkage::client
