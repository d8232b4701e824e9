// World: springs, dampers and applied forces.
#include <cmath>

#include "constraints/parts.hpp"
#include "body_view.hpp"
#include "linkage/world.hpp"
#include "world_internal.hpp"

namespace linkage {
namespace {

struct ResolvedSpring {
  SpringDef def;
  int a = -1, b = -1;
};

Result<ResolvedSpring> resolve_spring(const WorldModel& m, const WorldData& d, const SpringDef& def) {
  if (def.a.is_null()) return invalid_argument("a", "must name a body");
  if (def.a == def.b) return invalid_argument("a, b", "name the same body; a spring needs two different bodies");
  Result<int> a = body_index(m, def.a, "a");
  if (!a) return a.error();
  Result<int> b = body_index(m, def.b, "b");
  if (!b) return b.error();
  const int dim = m.settings.dimension;
  LINKAGE_CHECK(check_vec("anchor_a", def.anchor_a, dim));
  LINKAGE_CHECK(check_vec("anchor_b", def.anchor_b, dim));
  if (!(std::isfinite(def.stiffness) && def.stiffness >= 0.0))
    return invalid_argument("stiffness", "must be finite and ≥ 0 N/m, got " + std::to_string(def.stiffness));
  if (!(std::isfinite(def.damping) && def.damping >= 0.0))
    return invalid_argument("damping", "must be finite and ≥ 0 N·s/m, got " + std::to_string(def.damping));
  if (!std::isfinite(def.rest_length))
    return invalid_argument("rest_length", "must be finite (negative for the current distance)");
  ResolvedSpring r{def, a.value(), b.value()};
  if (r.def.rest_length < 0.0)
    r.def.rest_length =
        separation(body_view(m, d, r.a), def.anchor_a, body_view(m, d, r.b), def.anchor_b).d.norm();
  // Finite anchors can be an infinite distance apart (±1e308 m).
  if (!std::isfinite(r.def.rest_length))
    return invalid_argument("rest_length", "the anchors' current distance is not a finite number; give anchors nearer "
                                           "their bodies, or a rest_length");
  return r;
}

}  // namespace

Result<ForceId> World::add_spring(const SpringDef& def) {
  Result<ResolvedSpring> r = resolve_spring(*p_->model, p_->data, def);
  if (!r) return r.error();
  WorldModel& m = p_->edit_model();
  p_->data.steps_left.push_back(0);
  ForceRecord f{m.force_ids.insert(static_cast<int>(m.forces.size())), r.value().def, r.value().a, r.value().b};
  m.forces.push_back(std::move(f));
  ++m.topology_version;
  return m.forces.back().id;
}

Status World::update_spring(ForceId id, const SpringDef& def) {
  const int i = p_->model->force_ids.find(id);
  if (i < 0) return not_found("id", "force", id);
  const auto* now = std::get_if<SpringDef>(&p_->model->forces[static_cast<std::size_t>(i)].def);
  if (!now) return invalid_argument("id", id_text("force", id) + " is an applied force, not a spring");
  if (now->a != def.a || now->b != def.b)
    return invalid_argument("a, b", "a spring's bodies cannot change; remove it and add a new one");
  Result<ResolvedSpring> r = resolve_spring(*p_->model, p_->data, def);
  if (!r) return r.error();
  p_->edit_model().forces[static_cast<std::size_t>(i)].def = r.value().def;
  return ok_status();
}

Result<ForceId> World::apply_force(const ForceDef& def) {
  const WorldModel& model = *p_->model;
  if (def.body.is_null()) return invalid_argument("body", "must name a body");
  Result<int> b = body_index(model, def.body, "body");
  if (!b) return b.error();
  const int dim = model.settings.dimension;
  LINKAGE_CHECK(check_vec("force", def.force, dim));
  LINKAGE_CHECK(check_vec("point", def.point, dim));
  if (!std::isfinite(def.torque)) return invalid_argument("torque", "must be finite");
  if (def.torque != 0.0 && model.bodies[static_cast<std::size_t>(b.value())].kind != BodyKind::rigid)
    return invalid_argument("torque", "a particle cannot take a torque; only rigid bodies turn");
  if (def.steps < 0) return invalid_argument("steps", "must be ≥ 0 (0: until removed), got " + std::to_string(def.steps));
  WorldModel& m = p_->edit_model();
  p_->data.steps_left.push_back(def.steps);
  ForceRecord f{m.force_ids.insert(static_cast<int>(m.forces.size())), def, b.value(), -1};
  m.forces.push_back(std::move(f));
  return m.forces.back().id;
}

Status World::apply_impulse(const ImpulseDef& def) {
  const WorldModel& m = *p_->model;
  WorldData& d = p_->data;
  if (def.body.is_null()) return invalid_argument("body", "must name a body");
  Result<int> b = body_index(m, def.body, "body");
  if (!b) return b.error();
  const int dim = m.settings.dimension;
  LINKAGE_CHECK(check_vec("impulse", def.impulse, dim));
  LINKAGE_CHECK(check_vec("point", def.point, dim));
  if (!std::isfinite(def.angular_impulse)) return invalid_argument("angular_impulse", "must be finite");
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(b.value())];
  if (def.angular_impulse != 0.0 && r.kind != BodyKind::rigid)
    return invalid_argument("angular_impulse", "a particle cannot turn; only rigid bodies take one");
  if (r.motion != Motion::dynamic) return ok_status();  // nothing moves a fixed or kinematic body
  // Δq̇ = W (J_pᵀ P + angular e_θ)
  const Anchor p = anchor(body_view(m, d, b.value()), def.point);
  const Eigen::Vector3d generalized = p.jacobian_row(def.impulse).transpose();
  Eigen::Vector3d after = Eigen::Vector3d::Zero();
  for (int i = 0; i < r.dof; ++i) {
    const bool angle = r.kind == BodyKind::rigid && i == 2;
    after[i] = d.v[r.offset + i] +
               (angle ? r.inv_inertia : r.inv_mass) * (generalized[i] + (angle ? def.angular_impulse : 0.0));
  }
  // Finite numbers can still overflow here (1e308 N·s on a 0.1 kg body), and
  // no step would ever undo an infinite velocity.
  if (!after.head(r.dof).allFinite())
    return invalid_argument("impulse", "too large for this body: its velocity would not be a finite number, got " +
                                           vec_text(after) + " (give a smaller impulse, or the body more mass)");
  d.v.segment(r.offset, r.dof) = after.head(r.dof);
  return ok_status();
}

Status World::remove_force(ForceId id) {
  const int i = p_->model->force_ids.find(id);
  if (i < 0) return not_found("id", "force", id);
  WorldModel& m = p_->edit_model();
  const bool spring = std::holds_alternative<SpringDef>(m.forces[static_cast<std::size_t>(i)].def);
  m.forces.erase(m.forces.begin() + i);
  p_->data.steps_left.erase(p_->data.steps_left.begin() + i);
  m.force_ids.erase(id);
  for (std::size_t k = static_cast<std::size_t>(i); k < m.forces.size(); ++k)
    m.force_ids.set_dense(m.forces[k].id, static_cast<int>(k));
  if (spring) ++m.topology_version;
  return ok_status();
}

Result<ForceInfo> World::force(ForceId id) const {
  const int i = p_->model->force_ids.find(id);
  if (i < 0) return not_found("id", "force", id);
  const ForceRecord& f = p_->model->forces[static_cast<std::size_t>(i)];
  ForceInfo info{f.id, f.def};
  if (auto* applied = std::get_if<ForceDef>(&info.def)) applied->steps = p_->data.steps_left[static_cast<std::size_t>(i)];
  return info;
}

}  // namespace linkage
