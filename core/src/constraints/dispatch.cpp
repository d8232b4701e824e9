// The one dispatch point over ConstraintDef, and the checks every type shares.
#include <cmath>
#include <string>

#include "../checks.hpp"
#include "constraint.hpp"
#include "parts.hpp"

namespace linkage {
namespace {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
// Spelled out for clang before 17, which does not deduce an aggregate's arguments.
template <class... F>
Overload(F...) -> Overload<F...>;

Status check_direction(const char* field, const Vec3& v, int dim) {
  if (Status s = check_vec(field, v, dim); !s) return s;
  if (v.norm() < 1e-12) return invalid_argument(field, "must be a non-zero direction");
  return ok_status();
}

// A length that is either "current" (NaN) or finite and > 0.
Status check_length_or_current(const char* field, double x) {
  if (std::isnan(x)) return ok_status();
  if (!std::isfinite(x) || x <= 0.0) return invalid_argument(field, "must be > 0 (or NaN for the current value), got " + std::to_string(x));
  return ok_status();
}

Status check_finite_or_current(const char* field, double x) {
  if (std::isinf(x)) return invalid_argument(field, "must be finite (or NaN for the current value)");
  return ok_status();
}

// The two ends of a two-body constraint: b is a body, a a different body or the world.
Status check_pair(BodyId a, BodyId b, const char* name_a = "a", const char* name_b = "b") {
  if (b.is_null()) return invalid_argument(name_b, "must name a body");
  if (a == b) return invalid_argument(std::string(name_a) + ", " + name_b, "name the same body; the constraint needs two different bodies");
  return ok_status();
}

Status need_2d(const char* type, int dim) {
  if (dim != 2) return invalid_argument(type, "needs a 2D world (rotations are 2D only)");
  return ok_status();
}

Status need_rigid(const char* field, BodyFacts f, bool world_ok) {
  if (!f.exists && world_ok) return ok_status();
  if (!f.exists) return invalid_argument(field, "must name a rigid body");
  if (!f.rigid) return invalid_argument(field, "must be a rigid body (it has no angle), got a particle");
  return ok_status();
}


}  // namespace

BodyPair constraint_bodies(const ConstraintDef& def) {
  return std::visit(Overload{
                        [](const RackAndPinionDef& c) { return BodyPair{c.rack, c.pinion}; },
                        [](const TrajectoryDef& c) { return BodyPair{BodyId{}, c.body}; },
                        [](const auto& c) { return BodyPair{c.a, c.b}; },
                    },
                    def);
}

std::string_view constraint_type_name(const ConstraintDef& def) {
  static constexpr std::string_view names[] = {"distance", "rope", "pin",      "point_on_line",   "point_on_circle",
                                               "point_on_plane", "weld", "relative_angle", "gear",
                                               "rack_and_pinion", "motor", "trajectory"};
  static_assert(std::size(names) == std::variant_size_v<ConstraintDef>);
  return names[def.index()];
}

int constraint_rows(const ConstraintDef& def, int dim) {
  return std::visit(Overload{
                        [&](const PinDef&) { return dim; },
                        [&](const TrajectoryDef&) { return dim; },
                        [&](const PointOnLineDef&) { return dim == 2 ? 1 : 2; },
                        [](const WeldDef&) { return 3; },
                        [](const auto&) { return 1; },
                    },
                    def);
}

Status validate_constraint(const ConstraintDef& def, int dim, BodyFacts a, BodyFacts b) {
  return std::visit(
      Overload{
          [&](const DistanceDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_length_or_current("length", c.length);
          },
          [&](const RopeDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_length_or_current("max_length", c.max_length);
          },
          [&](const PinDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            return check_vec("anchor_b", c.anchor_b, dim);
          },
          [&](const PointOnLineDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_direction("axis", c.axis, dim);
          },
          [&](const PointOnCircleDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_length_or_current("radius", c.radius);
          },
          [&](const PointOnPlaneDef& c) -> Status {
            if (dim != 3) return invalid_argument("point_on_plane", "needs a 3D world; in 2D use point_on_line");
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_direction("normal", c.normal, dim);
          },
          [&](const WeldDef& c) -> Status {
            LINKAGE_CHECK(need_2d("weld", dim));
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(need_rigid("a", a, true));
            LINKAGE_CHECK(need_rigid("b", b, false));
            LINKAGE_CHECK(check_vec("anchor_a", c.anchor_a, dim));
            LINKAGE_CHECK(check_vec("anchor_b", c.anchor_b, dim));
            return check_finite_or_current("angle", c.angle);
          },
          [&](const RelativeAngleDef& c) -> Status {
            LINKAGE_CHECK(need_2d("relative_angle", dim));
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(need_rigid("a", a, true));
            LINKAGE_CHECK(need_rigid("b", b, false));
            return check_finite_or_current("angle", c.angle);
          },
          [&](const GearDef& c) -> Status {
            LINKAGE_CHECK(need_2d("gear", dim));
            if (c.a.is_null()) return invalid_argument("a", "must name a body; a gear meshes two bodies");
            LINKAGE_CHECK(check_pair(c.a, c.b));
            LINKAGE_CHECK(need_rigid("a", a, false));
            LINKAGE_CHECK(need_rigid("b", b, false));
            LINKAGE_CHECK(check_positive("radius_a", c.radius_a));
            LINKAGE_CHECK(check_positive("radius_b", c.radius_b));
            return check_finite_or_current("offset", c.offset);
          },
          [&](const RackAndPinionDef& c) -> Status {
            LINKAGE_CHECK(need_2d("rack_and_pinion", dim));
            if (c.rack.is_null()) return invalid_argument("rack", "must name a body");
            LINKAGE_CHECK(check_pair(c.rack, c.pinion, "rack", "pinion"));
            LINKAGE_CHECK(need_rigid("pinion", b, false));
            LINKAGE_CHECK(check_vec("anchor", c.anchor, dim));
            LINKAGE_CHECK(check_direction("axis", c.axis, dim));
            LINKAGE_CHECK(check_positive("radius", c.radius));
            return check_finite_or_current("offset", c.offset);
          },
          [&](const MotorDef& c) -> Status {
            LINKAGE_CHECK(check_pair(c.a, c.b));
            if (!std::isfinite(c.speed)) return invalid_argument("speed", "must be finite, got " + std::to_string(c.speed));
            if (std::isnan(c.max_force) || c.max_force <= 0.0)
              return invalid_argument("max_force", "must be > 0 (infinity for no limit), got " + std::to_string(c.max_force));
            if (c.kind == MotorKind::angular) {
              LINKAGE_CHECK(need_2d("angular motor", dim));
              LINKAGE_CHECK(need_rigid("a", a, true));
              return need_rigid("b", b, false);
            }
            return check_direction("axis", c.axis, dim);
          },
          [&](const TrajectoryDef& c) -> Status {
            if (c.body.is_null()) return invalid_argument("body", "must name a body");
            LINKAGE_CHECK(check_vec("anchor", c.anchor, dim));
            LINKAGE_CHECK(check_vec("path.origin", c.path.origin, dim));
            LINKAGE_CHECK(check_vec("path.velocity", c.path.velocity, dim));
            LINKAGE_CHECK(check_vec("path.amplitude", c.path.amplitude, dim));
            LINKAGE_CHECK(check_vec("path.frequency", c.path.frequency, dim));
            return check_vec("path.phase", c.path.phase, dim);
          },
      },
      def);
}

void evaluate_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dim,
                         Rows& out) {
  std::visit([&](const auto& c) { evaluate(c, a, b, t, dim, out); }, def);
}

ConstraintDef resolve_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t) {
  // Each "current" value is what C reads when that value is taken as 0.
  auto measure = [&](ConstraintDef probe, int row) {
    Rows rows;
    evaluate_constraint(probe, a, b, t, 2, rows);
    return rows.C[row];
  };
  ConstraintDef out = def;
  std::visit(Overload{
                 [&](DistanceDef& c) {
                   if (std::isnan(c.length)) c.length = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
                 },
                 [&](RopeDef& c) {
                   if (std::isnan(c.max_length)) c.max_length = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
                 },
                 [&](PointOnCircleDef& c) {
                   if (std::isnan(c.radius)) c.radius = separation(a, c.anchor_a, b, c.anchor_b).d.norm();
                 },
                 [&](WeldDef& c) {
                   if (std::isnan(c.angle)) c.angle = b.theta - a.theta;
                 },
                 [&](RelativeAngleDef& c) {
                   if (std::isnan(c.angle)) c.angle = b.theta - a.theta;
                 },
                 [&](GearDef& c) {
                   if (std::isnan(c.offset)) c.offset = measure(GearDef{c.a, c.b, c.radius_a, c.radius_b, 0.0}, 0);
                 },
                 [&](RackAndPinionDef& c) {
                   if (!std::isnan(c.offset)) return;
                   RackAndPinionDef probe = c;
                   probe.offset = 0.0;
                   c.offset = measure(probe, 0);
                 },
                 [](auto&) {},
             },
             out);
  return out;
}

}  // namespace linkage
