// World: constraints.
#include <cmath>

#include "body_view.hpp"
#include "linkage/world.hpp"
#include "world_internal.hpp"

namespace linkage {
namespace {

struct Resolved {
  ConstraintDef def;
  int a = -1, b = -1;
};

BodyFacts facts(const WorldData& d, int index) {
  if (index < 0) return {};
  const BodyRecord& r = d.bodies[static_cast<std::size_t>(index)];
  return {true, r.kind == BodyKind::rigid, r.motion == Motion::dynamic};
}

// A length measured as "current" that came out as nothing.
Status check_resolved(const ConstraintDef& def, const BodyView& a, const BodyView& b) {
  const bool finite = a.x.allFinite() && b.x.allFinite() && std::isfinite(a.theta) && std::isfinite(b.theta);
  if (!finite)
    return Error{ErrorCode::failed_precondition,
                 "bodies: a body's state is not finite (the simulation diverged), so current values cannot be measured"};
  if (const auto* c = std::get_if<DistanceDef>(&def); c && !(c->length > 1e-12))
    return invalid_argument("length: the anchors coincide, so the current distance is 0; give a length > 0");
  if (const auto* c = std::get_if<RopeDef>(&def); c && !(c->max_length > 1e-12))
    return invalid_argument("max_length: the anchors coincide, so the current distance is 0; give a max_length > 0");
  if (const auto* c = std::get_if<PointOnCircleDef>(&def); c && !(c->radius > 1e-12))
    return invalid_argument("radius: the point is at the centre, so the current radius is 0; give a radius > 0");
  return ok_status();
}

// Everything add and update share: bodies exist, the def is valid for them,
// something can move, and "current" values are measured.
Result<Resolved> resolve(const WorldData& d, const ConstraintDef& def) {
  const BodyPair pair = constraint_bodies(def);
  const bool rack = std::holds_alternative<RackAndPinionDef>(def);
  const bool trajectory = std::holds_alternative<TrajectoryDef>(def);
  Result<int> a = body_index(d, pair.a, rack ? "rack" : "a");
  if (!a) return a.error();
  Result<int> b = body_index(d, pair.b, rack ? "pinion" : trajectory ? "body" : "b");
  if (!b) return b.error();
  const BodyFacts fa = facts(d, a.value()), fb = facts(d, b.value());
  if (Status s = validate_constraint(def, d.settings.dimension, fa, fb); !s) return s.error();
  if (!fa.dynamic && !fb.dynamic)
    return Error{ErrorCode::failed_precondition,
                 std::string(constraint_type_name(def)) +
                     ": no body it names is dynamic, so nothing can move to satisfy it"};
  const BodyView va = body_view(d, a.value()), vb = body_view(d, b.value());
  Resolved r{resolve_constraint(def, va, vb, d.time), a.value(), b.value()};
  if (Status s = check_resolved(r.def, va, vb); !s) return s.error();
  return r;
}

Status validate_softness(const ConstraintDef& def, const Softness& s) {
  if (!(std::isfinite(s.frequency) && s.frequency >= 0.0))
    return invalid_argument("softness.frequency: must be finite and ≥ 0 Hz (0: rigid), got " + std::to_string(s.frequency));
  if (!(std::isfinite(s.damping_ratio) && s.damping_ratio >= 0.0))
    return invalid_argument("softness.damping_ratio: must be finite and ≥ 0, got " + std::to_string(s.damping_ratio));
  if (s.frequency > 0.0 && std::holds_alternative<MotorDef>(def))
    return invalid_argument("softness: a motor is a velocity constraint and cannot be soft; limit it with max_force");
  return ok_status();
}

}  // namespace

Result<ConstraintId> World::add_constraint(const ConstraintDef& def, const Softness& softness) {
  WorldData& d = *d_;
  Result<Resolved> r = resolve(d, def);
  if (!r) return r.error();
  if (Status s = validate_softness(def, softness); !s) return s.error();
  ConstraintRecord c;
  c.def = r.value().def;
  c.softness = softness;
  c.rows = constraint_rows(c.def, d.settings.dimension);
  c.body_a = r.value().a;
  c.body_b = r.value().b;
  c.id = d.constraint_ids.insert(static_cast<int>(d.constraints.size()));
  d.constraints.push_back(std::move(c));
  ++d.topology_version;
  ++d.model_version;
  return d.constraints.back().id;
}

Status World::update_constraint(ConstraintId id, const ConstraintDef& def) {
  WorldData& d = *d_;
  const int i = d.constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
  if (def.index() != c.def.index())
    return invalid_argument("type: cannot change from " + std::string(constraint_type_name(c.def)) + " to " +
                            std::string(constraint_type_name(def)) + "; remove the constraint and add a new one");
  const BodyPair now = constraint_bodies(c.def), next = constraint_bodies(def);
  if (now.a != next.a || now.b != next.b)
    return invalid_argument("bodies: a constraint's bodies cannot change; remove it and add a new one");
  Result<Resolved> r = resolve(d, def);
  if (!r) return r.error();
  c.def = r.value().def;
  ++d.model_version;
  d.ws.direct.recheck();  // new anchors or lengths may make rows (in)dependent
  return ok_status();
}

Status World::set_softness(ConstraintId id, const Softness& softness) {
  WorldData& d = *d_;
  const int i = d.constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
  if (Status s = validate_softness(c.def, softness); !s) return s;
  c.softness = softness;
  ++d.model_version;
  return ok_status();
}

Status World::remove_constraint(ConstraintId id) {
  WorldData& d = *d_;
  const int i = d.constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  d.constraints.erase(d.constraints.begin() + i);
  d.constraint_ids.erase(id);
  for (std::size_t k = static_cast<std::size_t>(i); k < d.constraints.size(); ++k)
    d.constraint_ids.set_dense(d.constraints[k].id, static_cast<int>(k));
  ++d.topology_version;
  ++d.model_version;
  return ok_status();
}

Result<ConstraintInfo> World::constraint(ConstraintId id) const {
  const WorldData& d = *d_;
  const int i = d.constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  const ConstraintRecord& c = d.constraints[static_cast<std::size_t>(i)];
  const BodyView a = body_view(d, c.body_a), b = body_view(d, c.body_b);
  Rows rows;
  evaluate_constraint(c.def, a, b, d.time, d.settings.dimension, rows);
  ConstraintInfo info;
  info.id = c.id;
  info.def = c.def;
  info.softness = c.softness;
  info.rows = c.rows;
  for (int r = 0; r < c.rows; ++r) {
    info.lambda.push_back(c.lambda[r]);
    info.error.push_back(rows.velocity_level ? rows.Cdot[r] : rows.C[r]);
    info.error_rate.push_back(rows.Cdot[r]);
    info.jdot_qdot.push_back(rows.jdot_qdot[r]);
    for (int k = 0; k < a.dof; ++k) info.jacobian_a.push_back(rows.Ja(r, k));
    for (int k = 0; k < b.dof; ++k) info.jacobian_b.push_back(rows.Jb(r, k));
  }
  info.on_a = c.on_a;
  info.on_b = c.on_b;
  return info;
}

}  // namespace linkage
