// World: bodies.
#include <algorithm>

#include "body_view.hpp"
#include "linkage/world.hpp"
#include "mass.hpp"
#include "world_internal.hpp"

namespace linkage {
namespace {

int dof_of(BodyKind kind, int dim) { return kind == BodyKind::rigid ? 3 : dim; }

void fill_record(BodyRecord& r, const BodyDef& def, const MassProperties& mp) {
  r.kind = def.kind;
  r.motion = def.motion;
  r.mass = mp.mass;
  r.inertia = mp.inertia;
  const bool dynamic = def.motion == Motion::dynamic;
  r.inv_mass = dynamic ? 1.0 / mp.mass : 0.0;
  r.inv_inertia = dynamic && def.kind == BodyKind::rigid ? 1.0 / mp.inertia : 0.0;
  r.shape = mp.shape;
  r.linear_damping = def.linear_damping;
  r.angular_damping = def.angular_damping;
  r.material = def.material;
  r.filter = def.filter;
}

void write_state(const WorldModel& m, WorldData& d, const BodyRecord& r, const BodyState& state) {
  for (int i = 0; i < m.settings.dimension; ++i) {
    d.q[r.offset + i] = state.position[i];
    d.v[r.offset + i] = state.velocity[i];
  }
  if (r.kind == BodyKind::rigid) {
    d.q[r.offset + 2] = state.angle;
    d.v[r.offset + 2] = state.angular_velocity;
  }
}

BodyState state_of(const BodyDef& def) { return {def.position, def.angle, def.velocity, def.angular_velocity}; }

}  // namespace

Result<int> body_index(const WorldModel& m, BodyId id, const char* field) {
  if (id.is_null()) return -1;
  const int i = m.body_ids.find(id);
  if (i < 0) return not_found(field, "body", id);
  return i;
}

void relayout(WorldModel& m, WorldData& d, const std::vector<int>& old_offsets) {
  Eigen::VectorXd q, v;
  int dof = 0;
  for (const BodyRecord& r : m.bodies) dof += r.dof;
  q.resize(dof);
  v.resize(dof);
  int offset = 0;
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    BodyRecord& r = m.bodies[i];
    q.segment(offset, r.dof) = d.q.segment(old_offsets[i], r.dof);
    v.segment(offset, r.dof) = d.v.segment(old_offsets[i], r.dof);
    r.offset = offset;
    offset += r.dof;
    m.body_ids.set_dense(r.id, static_cast<int>(i));
  }
  d.q = std::move(q);
  d.v = std::move(v);
  for (ConstraintRecord& c : m.constraints) {
    const BodyPair p = constraint_bodies(c.def);
    c.body_a = p.a.is_null() ? -1 : m.body_ids.find(p.a);
    c.body_b = p.b.is_null() ? -1 : m.body_ids.find(p.b);
  }
  for (ForceRecord& f : m.forces) {
    BodyId a, b;
    if (const auto* s = std::get_if<SpringDef>(&f.def)) {
      a = s->a;
      b = s->b;
    } else {
      a = std::get<ForceDef>(f.def).body;
    }
    f.body_a = a.is_null() ? -1 : m.body_ids.find(a);
    f.body_b = b.is_null() ? -1 : m.body_ids.find(b);
  }
}

Result<BodyId> World::add_body(const BodyDef& def) {
  const int dimension = p_->model->settings.dimension;
  Result<MassProperties> mp = body_mass_properties(def, dimension);
  if (!mp) return mp.error();
  WorldModel& m = p_->edit_model();
  WorldData& d = p_->data;
  BodyRecord r;
  fill_record(r, def, mp.value());
  r.dof = dof_of(def.kind, dimension);
  r.offset = d.dof();
  r.id = m.body_ids.insert(static_cast<int>(m.bodies.size()));
  d.q.conservativeResize(r.offset + r.dof);
  d.v.conservativeResize(r.offset + r.dof);
  d.q.segment(r.offset, r.dof).setZero();
  d.v.segment(r.offset, r.dof).setZero();
  write_state(m, d, r, state_of(def));
  m.bodies.push_back(std::move(r));
  ++m.topology_version;
  ++m.model_version;
  return m.bodies.back().id;
}

Status World::update_body(BodyId id, const BodyDef& def) {
  if (id.is_null()) return invalid_argument("id", "must name a body");
  Result<int> i = body_index(*p_->model, id, "id");
  if (!i) return i.error();
  const auto at = static_cast<std::size_t>(i.value());
  if (def.kind != p_->model->bodies[at].kind)
    return invalid_argument("kind", "a body's kind cannot change; remove it and add a new one");
  Result<MassProperties> mp = body_mass_properties(def, p_->model->settings.dimension);
  if (!mp) return mp.error();
  WorldModel& m = p_->edit_model();
  BodyRecord& r = m.bodies[at];
  fill_record(r, def, mp.value());
  write_state(m, p_->data, r, state_of(def));
  ++m.model_version;
  return ok_status();
}

Status World::set_body_state(BodyId id, const BodyState& state) {
  if (id.is_null()) return invalid_argument("id", "must name a body");
  Result<int> i = body_index(*p_->model, id, "id");
  if (!i) return i.error();
  const WorldModel& m = *p_->model;
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(i.value())];
  if (Status s = validate_body_state(state, r.kind, r.motion, m.settings.dimension); !s) return s;
  // The model is untouched: nothing the step keeps for it goes stale, and a
  // saved state keeps sharing it.
  write_state(m, p_->data, r, state);
  return ok_status();
}

namespace {

// Erases the bodies whose `first[index]` is set (≥ 0) and everything on
// them, in one pass over each kind of record: out[first[i]] gets what body
// i took, a constraint or force on two of them going to the lower `first`.
// The later bodies' DOF move down: the direct solver's kept order follows
// them (DirectSolver::columns_moved).
void erase_bodies(WorldParts& p, const std::vector<int>& first, std::vector<Removed>& out) {
  WorldModel& m = p.edit_model();
  WorldData& d = p.data;
  // Which of the bodies a record on `a` and `b` goes with, or −1.
  auto taker = [&](int a, int b) {
    const int fa = a < 0 ? -1 : first[static_cast<std::size_t>(a)], fb = b < 0 ? -1 : first[static_cast<std::size_t>(b)];
    return fa < 0 ? fb : fb < 0 ? fa : std::min(fa, fb);
  };
  erase_records(m.constraints, d.constraints, m.constraint_ids, [&](const ConstraintRecord& c) {
    const int k = taker(c.body_a, c.body_b);
    if (k >= 0) out[static_cast<std::size_t>(k)].constraints.push_back(c.id);
    return k >= 0;
  });
  erase_records(m.forces, d.steps_left, m.force_ids, [&](const ForceRecord& f) {
    const int k = taker(f.body_a, f.body_b);
    if (k >= 0) out[static_cast<std::size_t>(k)].forces.push_back(f.id);
    return k >= 0;
  });
  std::erase_if(d.contacts, [&](const ContactRecord& c) {
    const int a = m.body_ids.find(c.a), b = m.body_ids.find(c.b);
    return (a >= 0 && first[static_cast<std::size_t>(a)] >= 0) || (b >= 0 && first[static_cast<std::size_t>(b)] >= 0);
  });

  std::vector<int> offsets;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < m.bodies.size(); ++i) {
    if (first[i] >= 0) {
      m.body_ids.erase(m.bodies[i].id);
      continue;
    }
    offsets.push_back(m.bodies[i].offset);
    m.bodies[kept++] = std::move(m.bodies[i]);
  }
  m.bodies.resize(kept);
  const int old_dof = d.dof();
  relayout(m, d, offsets);
  if (p.ws) {  // a cold workspace keeps no order to move
    std::vector<int> new_column(static_cast<std::size_t>(old_dof), -1);
    for (std::size_t i = 0; i < m.bodies.size(); ++i)
      for (int k = 0; k < m.bodies[i].dof; ++k) new_column[static_cast<std::size_t>(offsets[i] + k)] = m.bodies[i].offset + k;
    p.edit_workspace().direct.columns_moved(new_column);
  }
  ++m.topology_version;
  ++m.model_version;
}

}  // namespace

Result<Removed> World::remove_body(BodyId id) {
  if (id.is_null()) return invalid_argument("id", "must name a body");
  const int index = p_->model->body_ids.find(id);
  if (index < 0) return not_found("id", "body", id);
  std::vector<int> first(p_->model->bodies.size(), -1);
  first[static_cast<std::size_t>(index)] = 0;
  std::vector<Removed> removed(1);
  erase_bodies(*p_, first, removed);
  return std::move(removed.front());
}

Result<std::vector<Removed>> World::remove_bodies(std::span<const BodyId> ids) {
  std::vector<int> first(p_->model->bodies.size(), -1);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    auto field = [k] { return "ids[" + std::to_string(k) + "]"; };
    if (ids[k].is_null()) return invalid_argument(field(), "must name a body");
    const int index = p_->model->body_ids.find(ids[k]);
    if (index < 0 || first[static_cast<std::size_t>(index)] >= 0) return not_found(field(), "body", ids[k]);
    first[static_cast<std::size_t>(index)] = static_cast<int>(k);
  }
  std::vector<Removed> removed(ids.size());
  if (!ids.empty()) erase_bodies(*p_, first, removed);
  return removed;
}

Result<BodyInfo> World::body(BodyId id) const {
  const WorldModel& m = *p_->model;
  const WorldData& d = p_->data;
  if (id.is_null()) return invalid_argument("id", "must name a body");
  const int i = m.body_ids.find(id);
  if (i < 0) return not_found("id", "body", id);
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(i)];
  const BodyView b = body_view(m, d, i);
  BodyInfo info;
  info.id = r.id;
  info.kind = r.kind;
  info.motion = r.motion;
  info.position = b.x;
  info.angle = b.theta;
  info.velocity = b.v;
  info.angular_velocity = b.omega;
  info.mass = r.mass;
  info.inertia = r.inertia;
  info.shape = r.shape;
  info.linear_damping = r.linear_damping;
  info.angular_damping = r.angular_damping;
  info.material = r.material;
  info.filter = r.filter;
  return info;
}

}  // namespace linkage
