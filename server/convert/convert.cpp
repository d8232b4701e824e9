// Errors, vectors, settings, bodies and body references. Constraints and
// forces are in convert_constraints.cpp.
#include "convert/convert.hpp"

#include <cassert>
#include <cmath>
#include <cstring>

#include "convert/convert_internal.hpp"

namespace linkage::server {
namespace {

// Core body messages name the shape's fields without the oneof's case.
std::string proto_body_field(std::string_view field) {
  if (field == "shape.radius") return "shape.disk.radius";
  if (field == "shape.half_width" || field == "shape.half_height") return "shape.box." + std::string(field.substr(6));
  if (field == "shape.vertices") return "shape.polygon.vertices";
  return std::string(field);
}

template <class ProtoEnum>
Error unknown_enum(std::string_view path, std::string_view field, ProtoEnum value) {
  return invalid(path, field, "unknown value " + std::to_string(static_cast<int>(value)));
}

Shape shape_from_proto(const v1::Shape& shape, Fields& f) {
  switch (shape.shape_case()) {
    case v1::Shape::kDisk: return Disk{f.num(shape.disk().radius(), "shape.disk.radius")};
    case v1::Shape::kBox:
      return Box{f.num(shape.box().half_width(), "shape.box.half_width"),
                 f.num(shape.box().half_height(), "shape.box.half_height")};
    case v1::Shape::kPolygon: {
      const auto& vertices = shape.polygon().vertices();
      if (vertices.size() > kMaxPolygonVertices) {
        f.fail(invalid(f.path, "shape.polygon.vertices",
                       "at most " + std::to_string(kMaxPolygonVertices) + " vertices, got " +
                           std::to_string(vertices.size()) + " (a disk is the round shape)"));
        return NoShape{};
      }
      Polygon polygon;
      polygon.vertices.reserve(static_cast<std::size_t>(vertices.size()));
      for (int i = 0; i < vertices.size(); ++i) {
        const v1::Vec3& v = vertices.Get(i);
        if (v.z() != 0.0 || !std::isfinite(v.x()) || !std::isfinite(v.y())) {
          const std::string field = "shape.polygon.vertices[" + std::to_string(i) + "]";
          f.vec(v, field);
          // The core's polygon is 2D; a z would be dropped without a word.
          if (v.z() != 0.0 && std::isfinite(v.z()))
            f.fail(invalid(f.path, field + ".z", "must be 0 (a polygon lies in the x-y plane), got " +
                                                     std::to_string(v.z())));
        }
        polygon.vertices.emplace_back(v.x(), v.y());
      }
      return polygon;
    }
    case v1::Shape::kCapsule:
      return Capsule{f.num(shape.capsule().radius(), "shape.capsule.radius"),
                     f.num(shape.capsule().half_length(), "shape.capsule.half_length")};
    case v1::Shape::kSegment: {
      const Vec3 a = f.vec(shape.segment().a(), "shape.segment.a");
      const Vec3 b = f.vec(shape.segment().b(), "shape.segment.b");
      return Segment{Vec2(a.x(), a.y()), Vec2(b.x(), b.y())};
    }
    case v1::Shape::kPlane: return Plane{f.vec(shape.plane().normal(), "shape.plane.normal")};
    case v1::Shape::SHAPE_NOT_SET: break;
  }
  return NoShape{};
}

}  // namespace

// --- errors ---

Error invalid(std::string_view path, std::string_view field, std::string_view reason) {
  return field_error(ErrorCode::invalid_argument, join_path(path, field), reason);
}

std::string join_path(std::string_view path, std::string_view field) {
  if (path.empty()) return std::string(field);
  if (field.empty()) return std::string(path);
  return std::string(path) + "." + std::string(field);
}

Error with_fields(Error error, std::string_view path, const std::function<std::string(std::string_view)>& map) {
  // The message is "field: reason" for an error about fields (result.hpp),
  // the reason alone for one about the request as a whole.
  std::string_view reason = error.message;
  if (!error.field.empty()) {
    assert(reason.starts_with(error.field + ": "));
    reason.remove_prefix(error.field.size() + 2);
  }
  // "a, b: name the same body" names two fields: each is mapped.
  std::string fields;
  if (error.field.empty()) {
    fields = path;
  } else {
    std::string_view rest = error.field;
    while (true) {
      const std::size_t comma = rest.find(", ");
      fields += (fields.empty() ? "" : ", ") + map(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 2);
    }
  }
  if (fields.empty()) return error;
  return field_error(error.code, std::move(fields), reason);
}

Error prefixed(Error error, std::string_view path) {
  return with_fields(std::move(error), path, [&](std::string_view f) { return join_path(path, f); });
}

Error body_error(Error error, std::string_view path) {
  return with_fields(std::move(error), path, [&](std::string_view f) { return join_path(path, proto_body_field(f)); });
}

Error settings_error(Error error, std::string_view path) {
  // The core checks dt; a client sets tick_rate.
  return with_fields(std::move(error), path,
                     [&](std::string_view f) { return join_path(path, f == "dt" ? "tick_rate" : f); });
}

// --- vectors ---

Vec3 vec_from_proto(const v1::Vec3& v) { return {v.x(), v.y(), v.z()}; }

void vec_to_proto(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x());
  out->set_y(v.y());
  out->set_z(v.z());
}

// --- reading numbers ---

namespace {

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return std::to_string(v);
}

}  // namespace

void Fields::fail(Error e) {
  if (!error) error = std::move(e);
}

double Fields::num(double v, std::string_view field) {
  if (!std::isfinite(v)) fail(invalid(path, field, "must be a finite number, got " + number_text(v)));
  return v;
}

Vec3 Fields::vec(const v1::Vec3& v, std::string_view field) {
  // Field names are built only for an error: this runs for every vector of every request.
  if (!(std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()))) {
    const std::string f(field);
    num(v.x(), f + ".x");
    num(v.y(), f + ".y");
    num(v.z(), f + ".z");
  }
  return {v.x(), v.y(), v.z()};
}

double Fields::optional(bool has, double v, std::string_view field, double unset, std::string_view unset_means) {
  if (!has) return unset;
  if (!std::isfinite(v))
    fail(invalid(path, field,
                 "must be a finite number, got " + number_text(v) + " (leave it unset for " + std::string(unset_means) +
                     ")"));
  return v;
}

Vec3 Fields::optional_vec(bool has, const v1::Vec3& v, std::string_view field, const Vec3& unset) {
  return has ? vec(v, field) : unset;
}

bool all_zero_bits(const Vec3& v) {
  for (int i = 0; i < 3; ++i) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v[i], sizeof bits);
    if (bits != 0) return false;
  }
  return true;
}

// --- settings ---

Result<WorldSettings> settings_from_proto(const v1::WorldSettings& p, const WorldSettings& base,
                                          std::string_view path) {
  WorldSettings s = base;
  switch (p.preset()) {
    case v1::PRESET_UNSPECIFIED: break;
    case v1::PRESET_EXACT: s = with_preset(Preset::exact, s); break;
    default: return unknown_enum(path, "preset", p.preset());
  }
  if (p.has_dimension()) s.dimension = p.dimension();
  if (p.has_gravity()) s.gravity = vec_from_proto(p.gravity());
  if (p.has_tick_rate()) {
    constexpr double max_rate = 10000.0;  // Hz; beyond it a tick loop cannot keep time
    if (!(std::isfinite(p.tick_rate()) && p.tick_rate() > 0.0 && p.tick_rate() <= max_rate))
      return invalid(path, "tick_rate", "must be > 0 and ≤ 10000 Hz, got " + std::to_string(p.tick_rate()));
    s.dt = 1.0 / p.tick_rate();
  }
  if (p.has_substeps()) s.substeps = p.substeps();
  switch (p.dynamics()) {
    case v1::DYNAMICS_UNSPECIFIED: break;
    case v1::DYNAMICS_FORCE_BASED: s.dynamics = Dynamics::force_based; break;
    case v1::DYNAMICS_VELOCITY_PROJECTION: s.dynamics = Dynamics::velocity_projection; break;
    case v1::DYNAMICS_SEQUENTIAL_IMPULSES: s.dynamics = Dynamics::sequential_impulses; break;
    default: return unknown_enum(path, "dynamics", p.dynamics());
  }
  switch (p.integrator()) {
    case v1::INTEGRATOR_UNSPECIFIED: break;
    case v1::INTEGRATOR_EXPLICIT_EULER: s.integrator = Integrator::explicit_euler; break;
    case v1::INTEGRATOR_SEMI_IMPLICIT_EULER: s.integrator = Integrator::semi_implicit_euler; break;
    case v1::INTEGRATOR_MIDPOINT: s.integrator = Integrator::midpoint; break;
    case v1::INTEGRATOR_RK4: s.integrator = Integrator::rk4; break;
    case v1::INTEGRATOR_VELOCITY_VERLET: s.integrator = Integrator::velocity_verlet; break;
    default: return unknown_enum(path, "integrator", p.integrator());
  }
  switch (p.solver()) {
    case v1::LINEAR_SOLVER_UNSPECIFIED: break;
    case v1::LINEAR_SOLVER_CONJUGATE_GRADIENT: s.solver = LinearSolver::conjugate_gradient; break;
    case v1::LINEAR_SOLVER_LDLT: s.solver = LinearSolver::ldlt; break;
    case v1::LINEAR_SOLVER_GAUSS_SEIDEL: s.solver = LinearSolver::gauss_seidel; break;
    default: return unknown_enum(path, "solver", p.solver());
  }
  if (p.has_feedback_stiffness()) s.feedback_stiffness = p.feedback_stiffness();
  if (p.has_feedback_damping()) s.feedback_damping = p.feedback_damping();
  if (p.has_solver_tolerance()) s.solver_tolerance = p.solver_tolerance();
  if (p.has_solver_max_iterations()) s.solver_max_iterations = p.solver_max_iterations();
  if (p.has_regularization()) s.regularization = p.regularization();
  if (p.has_warm_start()) s.warm_start = p.warm_start();
  if (p.has_baumgarte()) s.baumgarte = p.baumgarte();
  if (p.has_velocity_iterations()) s.velocity_iterations = p.velocity_iterations();
  if (p.has_position_iterations()) s.position_iterations = p.position_iterations();
  if (p.has_relax_iterations()) s.relax_iterations = p.relax_iterations();
  if (p.has_project_positions()) s.project_positions = p.project_positions();
  if (p.has_project_velocities()) s.project_velocities = p.project_velocities();
  if (p.has_projection_tolerance()) s.projection_tolerance = p.projection_tolerance();
  if (p.has_projection_max_iterations()) s.projection_max_iterations = p.projection_max_iterations();
  switch (p.projection()) {
    case v1::PROJECTION_UNSPECIFIED: break;
    case v1::PROJECTION_SHAKE: s.projection = Projection::shake; break;
    case v1::PROJECTION_NEAREST: s.projection = Projection::nearest; break;
    default: return unknown_enum(path, "projection", p.projection());
  }
  if (p.has_threads()) s.threads = p.threads();
  if (p.has_max_translation()) s.max_translation = p.max_translation();
  if (p.has_max_rotation()) s.max_rotation = p.max_rotation();
  if (p.has_max_correction()) s.max_correction = p.max_correction();
  if (p.has_contacts()) s.contacts = p.contacts();
  if (p.has_contact_margin()) s.contact_margin = p.contact_margin();
  if (p.has_contact_slop()) s.contact_slop = p.contact_slop();
  if (p.has_restitution_threshold()) s.restitution_threshold = p.restitution_threshold();
  return s;
}

void settings_to_proto(const WorldSettings& s, v1::WorldSettings* out) {
  out->set_dimension(s.dimension);
  vec_to_proto(s.gravity, out->mutable_gravity());
  // A whole number of Hz is what people set; keep it whole if it gives back
  // exactly this dt, so that a saved scene reloads with the same step.
  const double rate = 1.0 / s.dt;
  const double whole = std::round(rate);
  out->set_tick_rate(whole > 0.0 && 1.0 / whole == s.dt ? whole : rate);
  out->set_substeps(s.substeps);
  constexpr v1::Dynamics dynamics[] = {v1::DYNAMICS_FORCE_BASED, v1::DYNAMICS_VELOCITY_PROJECTION,
                                       v1::DYNAMICS_SEQUENTIAL_IMPULSES};
  constexpr v1::Integrator integrators[] = {v1::INTEGRATOR_EXPLICIT_EULER, v1::INTEGRATOR_SEMI_IMPLICIT_EULER,
                                            v1::INTEGRATOR_MIDPOINT, v1::INTEGRATOR_RK4,
                                            v1::INTEGRATOR_VELOCITY_VERLET};
  constexpr v1::LinearSolver solvers[] = {v1::LINEAR_SOLVER_CONJUGATE_GRADIENT, v1::LINEAR_SOLVER_LDLT,
                                          v1::LINEAR_SOLVER_GAUSS_SEIDEL};
  out->set_dynamics(dynamics[static_cast<int>(s.dynamics)]);
  out->set_integrator(integrators[static_cast<int>(s.integrator)]);
  out->set_solver(solvers[static_cast<int>(s.solver)]);
  out->set_feedback_stiffness(s.feedback_stiffness);
  out->set_feedback_damping(s.feedback_damping);
  out->set_solver_tolerance(s.solver_tolerance);
  out->set_solver_max_iterations(s.solver_max_iterations);
  out->set_regularization(s.regularization);
  out->set_warm_start(s.warm_start);
  out->set_baumgarte(s.baumgarte);
  out->set_velocity_iterations(s.velocity_iterations);
  out->set_position_iterations(s.position_iterations);
  out->set_relax_iterations(s.relax_iterations);
  out->set_project_positions(s.project_positions);
  out->set_project_velocities(s.project_velocities);
  out->set_projection_tolerance(s.projection_tolerance);
  out->set_projection_max_iterations(s.projection_max_iterations);
  out->set_projection(s.projection == Projection::nearest ? v1::PROJECTION_NEAREST : v1::PROJECTION_SHAKE);
  out->set_threads(s.threads);
  out->set_max_translation(s.max_translation);
  out->set_max_rotation(s.max_rotation);
  out->set_max_correction(s.max_correction);
  out->set_contacts(s.contacts);
  out->set_contact_margin(s.contact_margin);
  out->set_contact_slop(s.contact_slop);
  out->set_restitution_threshold(s.restitution_threshold);
}

// --- bodies ---

Result<BodyDef> body_from_proto(const v1::BodyDef& p, std::string_view path) {
  // Filled in place: moving a BodyDef into a Result trips GCC 12's
  // -Wmaybe-uninitialized on the shape variant (a false positive).
  Result<BodyDef> out{BodyDef{}};
  BodyDef& d = out.value();
  switch (p.kind()) {
    case v1::BODY_KIND_UNSPECIFIED:
    case v1::BODY_KIND_PARTICLE: d.kind = BodyKind::particle; break;
    case v1::BODY_KIND_RIGID: d.kind = BodyKind::rigid; break;
    default: return unknown_enum(path, "kind", p.kind());
  }
  switch (p.motion()) {
    case v1::MOTION_UNSPECIFIED:
    case v1::MOTION_DYNAMIC: d.motion = Motion::dynamic; break;
    case v1::MOTION_FIXED: d.motion = Motion::fixed; break;
    case v1::MOTION_KINEMATIC: d.motion = Motion::kinematic; break;
    default: return unknown_enum(path, "motion", p.motion());
  }
  Fields f{std::string(path)};
  d.position = f.vec(p.position(), "position");
  d.angle = f.num(p.angle(), "angle");
  d.velocity = f.vec(p.velocity(), "velocity");
  d.angular_velocity = f.num(p.angular_velocity(), "angular_velocity");
  d.mass = f.num(p.mass(), "mass");
  d.inertia = f.num(p.inertia(), "inertia");
  d.density = p.density() == 0.0 ? 1.0 : f.num(p.density(), "density");
  d.linear_damping = f.num(p.linear_damping(), "linear_damping");
  d.angular_damping = f.num(p.angular_damping(), "angular_damping");
  d.shape = shape_from_proto(p.shape(), f);
  if (p.material().has_friction()) d.material.friction = f.num(p.material().friction(), "material.friction");
  if (p.material().has_restitution()) d.material.restitution = f.num(p.material().restitution(), "material.restitution");
  if (p.filter().has_category()) d.filter.category = p.filter().category();
  if (p.filter().has_mask()) d.filter.mask = p.filter().mask();
  d.filter.group = p.filter().group();
  if (f.error) return *f.error;
  return out;
}

void body_def_to_proto(const BodyInfo& info, std::string_view name, v1::BodyDef* out) {
  out->set_name(std::string(name));
  out->set_kind(info.kind == BodyKind::rigid ? v1::BODY_KIND_RIGID : v1::BODY_KIND_PARTICLE);
  constexpr v1::Motion motions[] = {v1::MOTION_DYNAMIC, v1::MOTION_FIXED, v1::MOTION_KINEMATIC};
  out->set_motion(motions[static_cast<int>(info.motion)]);
  vec_to_proto(info.position, out->mutable_position());
  out->set_angle(info.angle);
  // A body at rest leaves velocity out: scenes stay readable.
  if (!all_zero_bits(info.velocity)) vec_to_proto(info.velocity, out->mutable_velocity());
  out->set_angular_velocity(info.angular_velocity);
  out->set_mass(info.mass);
  out->set_inertia(info.inertia);
  out->set_linear_damping(info.linear_damping);
  out->set_angular_damping(info.angular_damping);
  // Defaults left out, as a body at rest leaves out its velocity.
  if (info.material.friction != Material{}.friction) out->mutable_material()->set_friction(info.material.friction);
  if (info.material.restitution != Material{}.restitution)
    out->mutable_material()->set_restitution(info.material.restitution);
  if (info.filter.category != Filter{}.category) out->mutable_filter()->set_category(info.filter.category);
  if (info.filter.mask != Filter{}.mask) out->mutable_filter()->set_mask(info.filter.mask);
  if (info.filter.group != 0) out->mutable_filter()->set_group(info.filter.group);
  std::visit(Overload{
                 [](const NoShape&) {},
                 [&](const Disk& s) { out->mutable_shape()->mutable_disk()->set_radius(s.radius); },
                 [&](const Box& s) {
                   out->mutable_shape()->mutable_box()->set_half_width(s.half_width);
                   out->mutable_shape()->mutable_box()->set_half_height(s.half_height);
                 },
                 [&](const Polygon& s) {
                   v1::Polygon* polygon = out->mutable_shape()->mutable_polygon();
                   for (const Vec2& v : s.vertices) {
                     v1::Vec3* p = polygon->add_vertices();
                     p->set_x(v.x());
                     p->set_y(v.y());
                   }
                 },
                 [&](const Capsule& s) {
                   out->mutable_shape()->mutable_capsule()->set_radius(s.radius);
                   out->mutable_shape()->mutable_capsule()->set_half_length(s.half_length);
                 },
                 [&](const Segment& s) {
                   vec_to_proto(Vec3(s.a.x(), s.a.y(), 0.0), out->mutable_shape()->mutable_segment()->mutable_a());
                   vec_to_proto(Vec3(s.b.x(), s.b.y(), 0.0), out->mutable_shape()->mutable_segment()->mutable_b());
                 },
                 [&](const Plane& s) { vec_to_proto(s.normal, out->mutable_shape()->mutable_plane()->mutable_normal()); },
             },
             info.shape);
}

void body_to_proto(const BodyInfo& info, std::string_view name, v1::Body* out) {
  id_to_proto(info.id, out->mutable_id());
  body_def_to_proto(info, name, out->mutable_def());
}

// --- body references ---

BodyResolver resolver(const World& world, const Names& names) {
  return [&world, &names](const v1::BodyRef& ref, std::string_view field) -> Result<BodyId> {
    switch (ref.ref_case()) {
      case v1::BodyRef::REF_NOT_SET: return BodyId{};
      case v1::BodyRef::kId: {
        const BodyId id = id_from_proto<BodyTag>(ref.id());
        if (id.is_null() || world.contains(id)) return id;
        return field_error(ErrorCode::not_found, std::string(field), "body " + std::to_string(id.index) + ":" +
                                               std::to_string(id.generation) +
                                               " does not exist (never created, or removed)");
      }
      case v1::BodyRef::kName: {
        if (ref.name().empty()) return BodyId{};
        if (std::optional<BodyId> id = names.find_body(ref.name())) return *id;
        return field_error(ErrorCode::not_found, std::string(field), "no body named " + quote(ref.name()));
      }
    }
    return BodyId{};
  };
}

BodyRefWriter ids_as_refs() {
  return [](BodyId id, v1::BodyRef* out) {
    if (!id.is_null()) id_to_proto(id, out->mutable_id());
  };
}

}  // namespace linkage::server
