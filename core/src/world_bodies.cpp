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
}

void write_state(WorldData& d, const BodyRecord& r, const BodyDef& def) {
  for (int i = 0; i < d.settings.dimension; ++i) {
    d.q[r.offset + i] = def.position[i];
    d.v[r.offset + i] = def.velocity[i];
  }
  if (r.kind == BodyKind::rigid) {
    d.q[r.offset + 2] = def.angle;
    d.v[r.offset + 2] = def.angular_velocity;
  }
}

}  // namespace

Result<int> body_index(const WorldData& d, BodyId id, const char* field) {
  if (id.is_null()) return -1;
  const int i = d.body_ids.find(id);
  if (i < 0) return not_found(field, "body", id);
  return i;
}

void relayout(WorldData& d, const std::vector<int>& old_offsets) {
  Eigen::VectorXd q, v;
  int dof = 0;
  for (const BodyRecord& r : d.bodies) dof += r.dof;
  q.resize(dof);
  v.resize(dof);
  int offset = 0;
  for (std::size_t i = 0; i < d.bodies.size(); ++i) {
    BodyRecord& r = d.bodies[i];
    q.segment(offset, r.dof) = d.q.segment(old_offsets[i], r.dof);
    v.segment(offset, r.dof) = d.v.segment(old_offsets[i], r.dof);
    r.offset = offset;
    offset += r.dof;
    d.body_ids.set_dense(r.id, static_cast<int>(i));
  }
  d.q = std::move(q);
  d.v = std::move(v);
  for (ConstraintRecord& c : d.constraints) {
    const BodyPair p = constraint_bodies(c.def);
    c.body_a = p.a.is_null() ? -1 : d.body_ids.find(p.a);
    c.body_b = p.b.is_null() ? -1 : d.body_ids.find(p.b);
  }
  for (ForceRecord& f : d.forces) {
    BodyId a, b;
    if (const auto* s = std::get_if<SpringDef>(&f.def)) {
      a = s->a;
      b = s->b;
    } else {
      a = std::get<ForceDef>(f.def).body;
    }
    f.body_a = a.is_null() ? -1 : d.body_ids.find(a);
    f.body_b = b.is_null() ? -1 : d.body_ids.find(b);
  }
}

Result<BodyId> World::add_body(const BodyDef& def) {
  WorldData& d = *d_;
  Result<MassProperties> mp = body_mass_properties(def, d.settings.dimension);
  if (!mp) return mp.error();
  BodyRecord r;
  fill_record(r, def, mp.value());
  r.dof = dof_of(def.kind, d.settings.dimension);
  r.offset = d.dof();
  r.id = d.body_ids.insert(static_cast<int>(d.bodies.size()));
  d.q.conservativeResize(r.offset + r.dof);
  d.v.conservativeResize(r.offset + r.dof);
  d.q.segment(r.offset, r.dof).setZero();
  d.v.segment(r.offset, r.dof).setZero();
  write_state(d, r, def);
  d.bodies.push_back(std::move(r));
  ++d.topology_version;
  ++d.model_version;
  return d.bodies.back().id;
}

Status World::update_body(BodyId id, const BodyDef& def) {
  WorldData& d = *d_;
  Result<int> i = body_index(d, id, "id");
  if (!i) return i.error();
  if (id.is_null()) return invalid_argument("id: must name a body");
  BodyRecord& r = d.bodies[static_cast<std::size_t>(i.value())];
  if (def.kind != r.kind) return invalid_argument("kind: a body's kind cannot change; remove it and add a new one");
  Result<MassProperties> mp = body_mass_properties(def, d.settings.dimension);
  if (!mp) return mp.error();
  fill_record(r, def, mp.value());
  write_state(d, r, def);
  ++d.model_version;
  d.ws.direct.recheck();  // a body moved: rows that depended on each other may no longer
  return ok_status();
}

Result<Removed> World::remove_body(BodyId id) {
  WorldData& d = *d_;
  if (id.is_null()) return invalid_argument("id: must name a body");
  const int index = d.body_ids.find(id);
  if (index < 0) return not_found("id", "body", id);
  Removed removed;
  std::erase_if(d.constraints, [&](const ConstraintRecord& c) {
    if (c.body_a != index && c.body_b != index) return false;
    removed.constraints.push_back(c.id);
    d.constraint_ids.erase(c.id);
    return true;
  });
  for (std::size_t k = 0; k < d.constraints.size(); ++k)
    d.constraint_ids.set_dense(d.constraints[k].id, static_cast<int>(k));
  std::erase_if(d.forces, [&](const ForceRecord& f) {
    if (f.body_a != index && f.body_b != index) return false;
    removed.forces.push_back(f.id);
    d.force_ids.erase(f.id);
    return true;
  });
  for (std::size_t k = 0; k < d.forces.size(); ++k) d.force_ids.set_dense(d.forces[k].id, static_cast<int>(k));

  std::vector<int> offsets;
  for (const BodyRecord& r : d.bodies) offsets.push_back(r.offset);
  offsets.erase(offsets.begin() + index);
  d.bodies.erase(d.bodies.begin() + index);
  d.body_ids.erase(id);
  relayout(d, offsets);
  ++d.topology_version;
  ++d.model_version;
  return removed;
}

Result<BodyInfo> World::body(BodyId id) const {
  const WorldData& d = *d_;
  if (id.is_null()) return invalid_argument("id: must name a body");
  const int i = d.body_ids.find(id);
  if (i < 0) return not_found("id", "body", id);
  const BodyRecord& r = d.bodies[static_cast<std::size_t>(i)];
  const BodyView b = body_view(d, i);
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
  return info;
}

}  // namespace linkage
