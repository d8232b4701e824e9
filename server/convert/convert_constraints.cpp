// Constraints, springs, applied forces and impulses.
#include <climits>
#include <cmath>
#include <optional>

#include "convert/convert.hpp"
#include "convert/convert_internal.hpp"

namespace linkage::server {
namespace {

// Reads one def: its numbers (Fields) and body references, keeping the first
// error so that a def can be written as one braced initializer (evaluated
// left to right).
struct Reader : Fields {
  const BodyResolver& resolve;

  Reader(const BodyResolver& r, std::string p) : Fields{std::move(p)}, resolve(r) {}

  BodyId body(const v1::BodyRef& ref, std::string_view field) {
    if (error) return {};
    Result<BodyId> r = resolve(ref, join_path(path, field));
    if (!r) {
      error = r.error();
      return {};
    }
    return r.value();
  }
  // "current" (measured when the constraint is added) unless set.
  double current(bool has, double v, std::string_view field) {
    return optional(has, v, field, kCurrent, "the current value");
  }
};

// Anchors and paths at zero stay out of the message (proto3 reads them back as zero).
template <class Message, class Mutable>
void put(const Vec3& v, Message* m, Mutable mut) {
  if (!all_zero_bits(v)) vec_to_proto(v, (m->*mut)());
}

void path_to_proto(const Path& p, v1::Path* out) {
  put(p.origin, out, &v1::Path::mutable_origin);
  put(p.velocity, out, &v1::Path::mutable_velocity);
  put(p.amplitude, out, &v1::Path::mutable_amplitude);
  put(p.frequency, out, &v1::Path::mutable_frequency);
  put(p.phase, out, &v1::Path::mutable_phase);
}

Result<MotorKind> motor_kind(v1::MotorKind kind, std::string_view path) {
  switch (kind) {
    case v1::MOTOR_KIND_UNSPECIFIED:
    case v1::MOTOR_KIND_ANGULAR: return MotorKind::angular;
    case v1::MOTOR_KIND_LINEAR: return MotorKind::linear;
    default: return invalid(path, "kind", "unknown value " + std::to_string(static_cast<int>(kind)));
  }
}

}  // namespace

std::string_view constraint_type_field(const v1::ConstraintDef& proto) {
  // The oneof's case values are its fields' numbers.
  const auto* field = v1::ConstraintDef::descriptor()->FindFieldByNumber(static_cast<int>(proto.type_case()));
  return field ? std::string_view(field->name()) : std::string_view{};
}

Error constraint_error(Error error, const v1::ConstraintDef& def, std::string_view path) {
  // The core's "current" is a NaN; a client's is a field left unset.
  constexpr std::string_view nan = "or NaN for the current value";
  if (const std::size_t at = error.message.find(nan); at != std::string::npos)
    error.message.replace(at, nan.size(), "or leave it unset for the current value");
  const std::string_view type = constraint_type_field(def);
  return with_fields(std::move(error), path, [&](std::string_view f) {
    // Fields of the ConstraintDef itself, or the type named as a whole.
    if (f == type || f.starts_with("softness") || f == "id" || f == "type" || f == "bodies") return join_path(path, f);
    return join_path(join_path(path, type), f);
  });
}

Error force_error(Error error, const v1::ForceDef& def, std::string_view path) {
  const std::string_view type = def.has_spring() ? "spring" : def.has_applied() ? "applied" : "";
  return with_fields(std::move(error), path, [&](std::string_view f) {
    if (f == "id") return join_path(path, f);
    return join_path(join_path(path, type), f == "steps" ? "ticks" : f);  // the core counts steps, the proto ticks
  });
}

Softness softness_from_proto(const v1::ConstraintDef& proto) {
  const v1::Softness& s = proto.softness();
  return {s.frequency(), s.has_damping_ratio() ? s.damping_ratio() : 1.0};
}

Result<ConstraintDef> constraint_from_proto(const v1::ConstraintDef& p, const BodyResolver& resolve,
                                            std::string_view path) {
  Reader f(resolve, join_path(path, constraint_type_field(p)));
  ConstraintDef def;
  switch (p.type_case()) {
    case v1::ConstraintDef::TYPE_NOT_SET:
      return field_error(ErrorCode::invalid_argument,
                   std::string(path), "no type set (distance, rope, pin, point_on_line, point_on_circle, "
                                       "point_on_plane, weld, relative_angle, gear, rack_and_pinion, motor or "
                                       "trajectory)");
    case v1::ConstraintDef::kDistance: {
      const v1::Distance& c = p.distance();
      def = DistanceDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                        f.vec(c.anchor_b(), "anchor_b"), f.current(c.has_length(), c.length(), "length")};
      break;
    }
    case v1::ConstraintDef::kRope: {
      const v1::Rope& c = p.rope();
      def = RopeDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                    f.vec(c.anchor_b(), "anchor_b"), f.current(c.has_max_length(), c.max_length(), "max_length")};
      break;
    }
    case v1::ConstraintDef::kPin: {
      const v1::Pin& c = p.pin();
      def = PinDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                   f.vec(c.anchor_b(), "anchor_b")};
      break;
    }
    case v1::ConstraintDef::kPointOnLine: {
      const v1::PointOnLine& c = p.point_on_line();
      def = PointOnLineDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                           f.vec(c.anchor_b(), "anchor_b"), f.optional_vec(c.has_axis(), c.axis(), "axis", Vec3::UnitX())};
      break;
    }
    case v1::ConstraintDef::kPointOnCircle: {
      const v1::PointOnCircle& c = p.point_on_circle();
      def = PointOnCircleDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                             f.vec(c.anchor_b(), "anchor_b"), f.current(c.has_radius(), c.radius(), "radius")};
      break;
    }
    case v1::ConstraintDef::kPointOnPlane: {
      const v1::PointOnPlane& c = p.point_on_plane();
      def = PointOnPlaneDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                            f.vec(c.anchor_b(), "anchor_b"),
                            f.optional_vec(c.has_normal(), c.normal(), "normal", Vec3::UnitZ())};
      break;
    }
    case v1::ConstraintDef::kWeld: {
      const v1::Weld& c = p.weld();
      def = WeldDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.vec(c.anchor_a(), "anchor_a"),
                    f.vec(c.anchor_b(), "anchor_b"), f.current(c.has_angle(), c.angle(), "angle")};
      break;
    }
    case v1::ConstraintDef::kRelativeAngle: {
      const v1::RelativeAngle& c = p.relative_angle();
      def = RelativeAngleDef{f.body(c.a(), "a"), f.body(c.b(), "b"), f.current(c.has_angle(), c.angle(), "angle")};
      break;
    }
    case v1::ConstraintDef::kGear: {
      const v1::Gear& c = p.gear();
      const GearDef defaults;
      def = GearDef{f.body(c.a(), "a"), f.body(c.b(), "b"),
                    f.optional(c.has_radius_a(), c.radius_a(), "radius_a", defaults.radius_a, "1 m"),
                    f.optional(c.has_radius_b(), c.radius_b(), "radius_b", defaults.radius_b, "1 m"),
                    f.current(c.has_offset(), c.offset(), "offset")};
      break;
    }
    case v1::ConstraintDef::kRackAndPinion: {
      const v1::RackAndPinion& c = p.rack_and_pinion();
      def = RackAndPinionDef{f.body(c.rack(), "rack"), f.body(c.pinion(), "pinion"), f.vec(c.anchor(), "anchor"),
                             f.optional_vec(c.has_axis(), c.axis(), "axis", Vec3::UnitX()),
                             f.optional(c.has_radius(), c.radius(), "radius", RackAndPinionDef{}.radius, "1 m"),
                             f.current(c.has_offset(), c.offset(), "offset")};
      break;
    }
    case v1::ConstraintDef::kMotor: {
      const v1::Motor& c = p.motor();
      Result<MotorKind> kind = motor_kind(c.kind(), f.path);
      if (!kind) return kind.error();
      // The axis of an angular motor is unused, but it is kept and saved: it must be a number too.
      def = MotorDef{f.body(c.a(), "a"), f.body(c.b(), "b"), kind.value(), f.num(c.speed(), "speed"),
                     f.optional_vec(c.has_axis(), c.axis(), "axis", Vec3::UnitX()),
                     f.optional(c.has_max_force(), c.max_force(), "max_force", std::numeric_limits<double>::infinity(),
                                "no limit")};
      break;
    }
    case v1::ConstraintDef::kTrajectory: {
      const v1::Trajectory& c = p.trajectory();
      const v1::Path& g = c.path();
      def = TrajectoryDef{f.body(c.body(), "body"), f.vec(c.anchor(), "anchor"),
                          Path{f.vec(g.origin(), "path.origin"), f.vec(g.velocity(), "path.velocity"),
                               f.vec(g.amplitude(), "path.amplitude"), f.vec(g.frequency(), "path.frequency"),
                               f.vec(g.phase(), "path.phase")}};
      break;
    }
  }
  if (f.error) return *f.error;
  // Softness is a field of the ConstraintDef itself, not of its type.
  Fields soft{join_path(path, "softness")};
  soft.num(p.softness().frequency(), "frequency");
  soft.optional(p.softness().has_damping_ratio(), p.softness().damping_ratio(), "damping_ratio", 1.0, "1");
  if (soft.error) return *soft.error;
  return def;
}

void constraint_def_to_proto(const ConstraintDef& def, const Softness& softness, std::string_view name,
                             const BodyRefWriter& ref, v1::ConstraintDef* out) {
  std::visit(
      Overload{
          [&](const DistanceDef& c) {
            v1::Distance* m = out->mutable_distance();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::Distance::mutable_anchor_a); put(c.anchor_b, m, &v1::Distance::mutable_anchor_b);
            m->set_length(c.length);
          },
          [&](const RopeDef& c) {
            v1::Rope* m = out->mutable_rope();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::Rope::mutable_anchor_a); put(c.anchor_b, m, &v1::Rope::mutable_anchor_b);
            m->set_max_length(c.max_length);
          },
          [&](const PinDef& c) {
            v1::Pin* m = out->mutable_pin();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::Pin::mutable_anchor_a); put(c.anchor_b, m, &v1::Pin::mutable_anchor_b);
          },
          [&](const PointOnLineDef& c) {
            v1::PointOnLine* m = out->mutable_point_on_line();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::PointOnLine::mutable_anchor_a);
            put(c.anchor_b, m, &v1::PointOnLine::mutable_anchor_b);
            vec_to_proto(c.axis, m->mutable_axis());  // unset would mean x
          },
          [&](const PointOnCircleDef& c) {
            v1::PointOnCircle* m = out->mutable_point_on_circle();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::PointOnCircle::mutable_anchor_a);
            put(c.anchor_b, m, &v1::PointOnCircle::mutable_anchor_b);
            m->set_radius(c.radius);
          },
          [&](const PointOnPlaneDef& c) {
            v1::PointOnPlane* m = out->mutable_point_on_plane();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::PointOnPlane::mutable_anchor_a);
            put(c.anchor_b, m, &v1::PointOnPlane::mutable_anchor_b);
            vec_to_proto(c.normal, m->mutable_normal());  // unset would mean z
          },
          [&](const WeldDef& c) {
            v1::Weld* m = out->mutable_weld();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            put(c.anchor_a, m, &v1::Weld::mutable_anchor_a); put(c.anchor_b, m, &v1::Weld::mutable_anchor_b);
            m->set_angle(c.angle);
          },
          [&](const RelativeAngleDef& c) {
            v1::RelativeAngle* m = out->mutable_relative_angle();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            m->set_angle(c.angle);
          },
          [&](const GearDef& c) {
            v1::Gear* m = out->mutable_gear();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            m->set_radius_a(c.radius_a); m->set_radius_b(c.radius_b); m->set_offset(c.offset);
          },
          [&](const RackAndPinionDef& c) {
            v1::RackAndPinion* m = out->mutable_rack_and_pinion();
            ref(c.rack, m->mutable_rack()); ref(c.pinion, m->mutable_pinion());
            put(c.anchor, m, &v1::RackAndPinion::mutable_anchor);
            vec_to_proto(c.axis, m->mutable_axis());
            m->set_radius(c.radius); m->set_offset(c.offset);
          },
          [&](const MotorDef& c) {
            v1::Motor* m = out->mutable_motor();
            ref(c.a, m->mutable_a()); ref(c.b, m->mutable_b());
            m->set_kind(c.kind == MotorKind::linear ? v1::MOTOR_KIND_LINEAR : v1::MOTOR_KIND_ANGULAR);
            m->set_speed(c.speed);
            vec_to_proto(c.axis, m->mutable_axis());
            if (std::isfinite(c.max_force)) m->set_max_force(c.max_force);  // unset: unlimited (JSON has no ∞)
          },
          [&](const TrajectoryDef& c) {
            v1::Trajectory* m = out->mutable_trajectory();
            ref(c.body, m->mutable_body());
            put(c.anchor, m, &v1::Trajectory::mutable_anchor);
            path_to_proto(c.path, m->mutable_path());
          },
      },
      def);
  out->set_name(std::string(name));
  if (softness.frequency != 0.0 || softness.damping_ratio != 1.0) {
    out->mutable_softness()->set_frequency(softness.frequency);
    out->mutable_softness()->set_damping_ratio(softness.damping_ratio);
  }
}

void constraint_to_proto(const ConstraintInfo& info, const World& /*world*/, const Names& names,
                         v1::Constraint* out) {
  constraint_to_proto(info, names.constraint_name(info.id), out);
}

void constraint_to_proto(const ConstraintInfo& info, std::string_view name, v1::Constraint* out) {
  id_to_proto(info.id, out->mutable_id());
  constraint_def_to_proto(info.def, info.softness, name, ids_as_refs(), out->mutable_def());
  out->mutable_lambda()->Add(info.lambda.begin(), info.lambda.end());
  out->mutable_error()->Add(info.error.begin(), info.error.end());
  out->mutable_error_rate()->Add(info.error_rate.begin(), info.error_rate.end());
  // The core files a trajectory's body as its second (a is the world); the
  // proto's "a" is the first body a constraint names.
  const bool trajectory = std::holds_alternative<TrajectoryDef>(info.def);
  const Reaction& first = trajectory ? info.on_b : info.on_a;
  const Reaction& second = trajectory ? info.on_a : info.on_b;
  vec_to_proto(first.force, out->mutable_force_on_a());
  out->set_torque_on_a(first.torque);
  vec_to_proto(second.force, out->mutable_force_on_b());
  out->set_torque_on_b(second.torque);
}

// --- forces ---

Result<ForceDefAny> force_from_proto(const v1::ForceDef& p, const BodyResolver& resolve, std::string_view path) {
  switch (p.type_case()) {
    case v1::ForceDef::TYPE_NOT_SET: break;
    case v1::ForceDef::kSpring: {
      const v1::Spring& s = p.spring();
      Reader f(resolve, join_path(path, "spring"));
      // The core reads a negative rest length as "the current distance"; in
      // the proto that is an unset one, so a set negative value is a mistake.
      const double rest = f.optional(s.has_rest_length(), s.rest_length(), "rest_length", -1.0, "the distance when added");
      if (s.has_rest_length() && rest < 0.0)
        f.fail(invalid(f.path, "rest_length", "must be ≥ 0 m (unset: the distance when added), got " +
                                                  std::to_string(rest)));
      SpringDef def{f.body(s.a(), "a"), f.body(s.b(), "b"), f.vec(s.anchor_a(), "anchor_a"),
                    f.vec(s.anchor_b(), "anchor_b"),
                    f.optional(s.has_stiffness(), s.stiffness(), "stiffness", SpringDef{}.stiffness, "100 N/m"),
                    f.num(s.damping(), "damping"), rest};
      if (f.error) return *f.error;
      return ForceDefAny{def};
    }
    case v1::ForceDef::kApplied: {
      const v1::AppliedForce& a = p.applied();
      Reader f(resolve, join_path(path, "applied"));
      if (a.ticks() > static_cast<std::uint32_t>(INT_MAX))
        return invalid(f.path, "ticks", "must be ≤ " + std::to_string(INT_MAX) + ", got " + std::to_string(a.ticks()));
      ForceDef def{f.body(a.body(), "body"), f.vec(a.force(), "force"), f.vec(a.point(), "point"),
                   f.num(a.torque(), "torque"), static_cast<int>(a.ticks())};
      if (f.error) return *f.error;
      return ForceDefAny{def};
    }
  }
  return field_error(ErrorCode::invalid_argument, std::string(path), "no type set (spring or applied)");
}

Result<ImpulseDef> impulse_from_proto(const v1::Impulse& p, const BodyResolver& resolve, std::string_view path) {
  Reader f(resolve, std::string(path));
  ImpulseDef def{f.body(p.body(), "body"), f.vec(p.impulse(), "impulse"), f.vec(p.point(), "point"),
                 f.num(p.angular_impulse(), "angular_impulse")};
  if (f.error) return *f.error;
  return def;
}

void force_def_to_proto(const ForceDefAny& def, const BodyRefWriter& ref, v1::ForceDef* out) {
  std::visit(Overload{
                 [&](const SpringDef& s) {
                   v1::Spring* m = out->mutable_spring();
                   ref(s.a, m->mutable_a()); ref(s.b, m->mutable_b());
                   put(s.anchor_a, m, &v1::Spring::mutable_anchor_a); put(s.anchor_b, m, &v1::Spring::mutable_anchor_b);
                   m->set_stiffness(s.stiffness); m->set_damping(s.damping); m->set_rest_length(s.rest_length);
                 },
                 [&](const ForceDef& f) {
                   v1::AppliedForce* m = out->mutable_applied();
                   ref(f.body, m->mutable_body());
                   put(f.force, m, &v1::AppliedForce::mutable_force); put(f.point, m, &v1::AppliedForce::mutable_point);
                   m->set_torque(f.torque);
                   m->set_ticks(static_cast<std::uint32_t>(f.steps));
                 },
             },
             def);
}

void force_to_proto(const ForceInfo& info, v1::Force* out) {
  id_to_proto(info.id, out->mutable_id());
  force_def_to_proto(info.def, ids_as_refs(), out->mutable_def());
  // The core counts an applied force's steps down as they pass: what is left.
  if (const auto* f = std::get_if<ForceDef>(&info.def)) out->set_ticks_left(static_cast<std::uint32_t>(f->steps));
}

}  // namespace linkage::server
