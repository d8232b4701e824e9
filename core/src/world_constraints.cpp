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

BodyFacts facts(const WorldModel& m, int index) {
  if (index < 0) return {};
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(index)];
  return {true, r.kind == BodyKind::rigid, r.motion == Motion::dynamic};
}

// A length measured as "current" that came out as nothing.
Status check_resolved(const ConstraintDef& def, const BodyView& a, const BodyView& b) {
  const bool finite = a.x.allFinite() && b.x.allFinite() && std::isfinite(a.theta) && std::isfinite(b.theta);
  if (!finite)
    return field_error(ErrorCode::failed_precondition, "bodies",
                       "a body's state is not finite (the simulation diverged), so current values cannot be measured");
  if (const auto* c = std::get_if<DistanceDef>(&def); c && !(c->length > 1e-12))
    return invalid_argument("length", "the anchors coincide, so the current distance is 0; give a length > 0");
  if (const auto* c = std::get_if<RopeDef>(&def); c && !(c->max_length > 1e-12))
    return invalid_argument("max_length", "the anchors coincide, so the current distance is 0; give a max_length > 0");
  if (const auto* c = std::get_if<PointOnCircleDef>(&def); c && !(c->radius > 1e-12))
    return invalid_argument("radius", "the point is at the centre, so the current radius is 0; give a radius > 0");
  return ok_status();
}

// Finite numbers can still make a constraint whose equations are not, where
// the bodies are now: anchors 1e308 m apart (a current length of ∞), a gear
// radius of 1e308 times an angle, a trajectory whose 2π·frequency overflows.
// Every step of its world would then go non-finite.
Status check_finite_rows(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dim) {
  Rows rows;
  evaluate_constraint(def, a, b, t, dim, rows);
  bool finite = rows.Ja.allFinite() && rows.Jb.allFinite();
  for (int r = 0; r < rows.count; ++r)
    finite = finite && std::isfinite(rows.C[r]) && std::isfinite(rows.Cdot[r]) && std::isfinite(rows.jdot_qdot[r]) &&
             std::isfinite(rows.c_tt[r]);
  if (finite) return ok_status();
  return invalid_argument(std::string(constraint_type_name(def)),
                          "its error or Jacobian where the bodies are now is not a finite number: its lengths, "
                          "radii, anchors, offsets or frequencies are too large together");
}

// Everything add and update share: bodies exist, the def is valid for them,
// something can move, and "current" values are measured.
Result<Resolved> resolve(const WorldModel& m, const WorldData& d, const ConstraintDef& def) {
  const BodyPair pair = constraint_bodies(def);
  const bool rack = std::holds_alternative<RackAndPinionDef>(def);
  const bool trajectory = std::holds_alternative<TrajectoryDef>(def);
  Result<int> a = body_index(m, pair.a, rack ? "rack" : "a");
  if (!a) return a.error();
  Result<int> b = body_index(m, pair.b, rack ? "pinion" : trajectory ? "body" : "b");
  if (!b) return b.error();
  const BodyFacts fa = facts(m, a.value()), fb = facts(m, b.value());
  if (Status s = validate_constraint(def, m.settings.dimension, fa, fb); !s) return s.error();
  if (!fa.dynamic && !fb.dynamic)
    return field_error(ErrorCode::failed_precondition, std::string(constraint_type_name(def)),
                       "no body it names is dynamic, so nothing can move to satisfy it");
  const BodyView va = body_view(m, d, a.value()), vb = body_view(m, d, b.value());
  Resolved r{resolve_constraint(def, va, vb, d.time), a.value(), b.value()};
  if (Status s = check_resolved(r.def, va, vb); !s) return s.error();
  if (Status s = check_finite_rows(r.def, va, vb, d.time, m.settings.dimension); !s) return s.error();
  return r;
}

Status validate_softness(const ConstraintDef& def, const Softness& s) {
  if (!(std::isfinite(s.frequency) && s.frequency >= 0.0))
    return invalid_argument("softness.frequency", "must be finite and ≥ 0 Hz (0: rigid), got " + std::to_string(s.frequency));
  if (!(std::isfinite(s.damping_ratio) && s.damping_ratio >= 0.0))
    return invalid_argument("softness.damping_ratio", "must be finite and ≥ 0, got " + std::to_string(s.damping_ratio));
  if (s.frequency > 0.0 && std::holds_alternative<MotorDef>(def))
    return invalid_argument("softness", "a motor is a velocity constraint and cannot be soft; limit it with max_force");
  return ok_status();
}

}  // namespace

Result<ConstraintId> World::add_constraint(const ConstraintDef& def, const Softness& softness) {
  Result<Resolved> r = resolve(*p_->model, p_->data, def);
  if (!r) return r.error();
  if (Status s = validate_softness(def, softness); !s) return s.error();
  WorldModel& m = p_->edit_model();
  ConstraintRecord c;
  c.def = r.value().def;
  c.softness = softness;
  c.rows = constraint_rows(c.def, m.settings.dimension);
  c.body_a = r.value().a;
  c.body_b = r.value().b;
  c.id = m.constraint_ids.insert(static_cast<int>(m.constraints.size()));
  m.constraints.push_back(std::move(c));
  p_->data.constraints.emplace_back();
  ++m.topology_version;
  ++m.model_version;
  return m.constraints.back().id;
}

Status World::update_constraint(ConstraintId id, const ConstraintDef& def) {
  const int i = p_->model->constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  const ConstraintRecord& now = p_->model->constraints[static_cast<std::size_t>(i)];
  if (def.index() != now.def.index())
    return invalid_argument("type", "cannot change from " + std::string(constraint_type_name(now.def)) + " to " +
                            std::string(constraint_type_name(def)) + "; remove the constraint and add a new one");
  const BodyPair before = constraint_bodies(now.def), after = constraint_bodies(def);
  if (before.a != after.a || before.b != after.b)
    return invalid_argument("bodies", "a constraint's bodies cannot change; remove it and add a new one");
  Result<Resolved> r = resolve(*p_->model, p_->data, def);
  if (!r) return r.error();
  WorldModel& m = p_->edit_model();
  m.constraints[static_cast<std::size_t>(i)].def = r.value().def;
  ++m.model_version;  // the step looks for dependent rows again: new anchors or lengths may make them
  return ok_status();
}

Status World::set_softness(ConstraintId id, const Softness& softness) {
  const int i = p_->model->constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  if (Status s = validate_softness(p_->model->constraints[static_cast<std::size_t>(i)].def, softness); !s) return s;
  WorldModel& m = p_->edit_model();
  m.constraints[static_cast<std::size_t>(i)].softness = softness;
  ++m.model_version;
  return ok_status();
}

Status World::remove_constraint(ConstraintId id) {
  const int i = p_->model->constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  WorldModel& m = p_->edit_model();
  m.constraints.erase(m.constraints.begin() + i);
  p_->data.constraints.erase(p_->data.constraints.begin() + i);
  m.constraint_ids.erase(id);
  for (std::size_t k = static_cast<std::size_t>(i); k < m.constraints.size(); ++k)
    m.constraint_ids.set_dense(m.constraints[k].id, static_cast<int>(k));
  ++m.topology_version;
  ++m.model_version;
  return ok_status();
}

Status World::remove_constraints(std::span<const ConstraintId> ids) {
  std::vector<char> gone(p_->model->constraints.size(), 0);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const int i = p_->model->constraint_ids.find(ids[k]);
    if (i < 0 || gone[static_cast<std::size_t>(i)]) return not_found("ids[" + std::to_string(k) + "]", "constraint", ids[k]);
    gone[static_cast<std::size_t>(i)] = 1;
  }
  if (ids.empty()) return ok_status();
  WorldModel& m = p_->edit_model();
  erase_records(m.constraints, p_->data.constraints, m.constraint_ids,
                [&, i = std::size_t{0}](const ConstraintRecord&) mutable { return gone[i++] != 0; });
  ++m.topology_version;
  ++m.model_version;
  return ok_status();
}

Result<ConstraintInfo> World::constraint(ConstraintId id) const {
  const WorldModel& m = *p_->model;
  const WorldData& d = p_->data;
  const int i = m.constraint_ids.find(id);
  if (i < 0) return not_found("id", "constraint", id);
  const ConstraintRecord& c = m.constraints[static_cast<std::size_t>(i)];
  const ConstraintState& state = d.constraints[static_cast<std::size_t>(i)];
  const BodyView a = body_view(m, d, c.body_a), b = body_view(m, d, c.body_b);
  Rows rows;
  evaluate_constraint(c.def, a, b, d.time, m.settings.dimension, rows);
  ConstraintInfo info;
  info.id = c.id;
  info.def = c.def;
  info.softness = c.softness;
  info.rows = c.rows;
  for (int r = 0; r < c.rows; ++r) {
    info.lambda.push_back(state.lambda[r]);
    info.error.push_back(rows.velocity_level ? rows.Cdot[r] : rows.C[r]);
    info.error_rate.push_back(rows.Cdot[r]);
    info.jdot_qdot.push_back(rows.jdot_qdot[r]);
    for (int k = 0; k < a.dof; ++k) info.jacobian_a.push_back(rows.Ja(r, k));
    for (int k = 0; k < b.dof; ++k) info.jacobian_b.push_back(rows.Jb(r, k));
  }
  info.on_a = state.on_a;
  info.on_b = state.on_b;
  return info;
}

}  // namespace linkage
