// The BodyService, ConstraintService and ForceService helpers.
#include <algorithm>

#include "call.hpp"
#include "linkage/client/client.hpp"

namespace linkage::client {
namespace {

template <class Ids>
std::vector<Id> ids_of(const Ids& ids) {
  std::vector<Id> out;
  out.reserve(ids.size());
  for (const v1::Id& id : ids) out.push_back(from_proto(id));
  return out;
}

}  // namespace

// --- bodies ---

Result<Id> Client::create_body(const std::string& world, const BodyDef& def) const {
  return create_body(world, to_proto(def));
}

Result<Id> Client::create_body(const std::string& world, const v1::BodyDef& def) const {
  v1::CreateBodyRequest req;
  req.set_world(world);
  *req.mutable_body() = def;
  auto r = LINKAGE_CALL(false, bodies_, CreateBody, v1::CreateBodyResponse, req);
  if (!r) return r.error();
  return from_proto(r->id());
}

Result<std::vector<Id>> Client::create_bodies(const std::string& world, const std::vector<BodyDef>& defs) const {
  std::vector<v1::BodyDef> protos;
  protos.reserve(defs.size());
  for (const BodyDef& def : defs) protos.push_back(to_proto(def));
  return create_bodies(world, protos);
}

Result<std::vector<Id>> Client::create_bodies(const std::string& world, const std::vector<v1::BodyDef>& defs) const {
  v1::CreateBodiesRequest req;
  req.set_world(world);
  for (const v1::BodyDef& def : defs) *req.add_bodies() = def;
  auto r = LINKAGE_CALL(false, bodies_, CreateBodies, v1::CreateBodiesResponse, req);
  if (!r) return r.error();
  return ids_of(r->ids());
}

Result<v1::Body> Client::get_body(const std::string& world, const BodyRef& body) const {
  v1::GetBodyRequest req;
  req.set_world(world);
  *req.mutable_body() = to_proto(body);
  auto r = LINKAGE_CALL(true, bodies_, GetBody, v1::GetBodyResponse, req);
  if (!r) return r.error();
  return r->body();
}

Result<std::vector<v1::Body>> Client::list_bodies(const std::string& world) const {
  v1::ListBodiesRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, bodies_, ListBodies, v1::ListBodiesResponse, req);
  if (!r) return r.error();
  return std::vector<v1::Body>(r->bodies().begin(), r->bodies().end());
}

Result<v1::Body> Client::update_body(const std::string& world, const BodyRef& body, const BodyDef& def) const {
  return update_body(world, body, to_proto(def));
}

Result<v1::Body> Client::update_body(const std::string& world, const BodyRef& body, const v1::BodyDef& def) const {
  return update_body(world, body, def, {});
}

Result<v1::Body> Client::update_body(const std::string& world, const BodyRef& body, const v1::BodyDef& def,
                                     const std::vector<std::string>& mask) const {
  v1::UpdateBodyRequest req;
  for (const std::string& path : mask) req.mutable_update_mask()->add_paths(path);
  req.set_world(world);
  *req.mutable_body() = to_proto(body);
  // A rename of a body named by its old name goes by id instead: linkaged
  // looks the reference up again after renaming, and the old name is gone.
  const bool renames = mask.empty() || std::find(mask.begin(), mask.end(), "name") != mask.end();
  if (const auto* name = std::get_if<std::string>(&body.ref);
      name && renames && !def.name().empty() && def.name() != *name) {
    Result<v1::Body> current = get_body(world, body);
    if (!current) return current.error();
    *req.mutable_body()->mutable_id() = current->id();
  }
  *req.mutable_def() = def;
  auto r = LINKAGE_CALL(true, bodies_, UpdateBody, v1::UpdateBodyResponse, req);
  if (!r) return r.error();
  return r->body();
}

Result<Removed> Client::remove_body(const std::string& world, const BodyRef& body) const {
  v1::RemoveBodyRequest req;
  req.set_world(world);
  *req.mutable_body() = to_proto(body);
  auto r = LINKAGE_CALL(false, bodies_, RemoveBody, v1::RemoveBodyResponse, req);
  if (!r) return r.error();
  return Removed{ids_of(r->removed_constraints()), ids_of(r->removed_forces())};
}

// --- constraints ---

Result<Id> Client::add_constraint(const std::string& world, const ConstraintDef& def,
                                  const ConstraintOptions& options) const {
  return add_constraint(world, to_proto(def, options));
}

Result<Id> Client::add_constraint(const std::string& world, const v1::ConstraintDef& def) const {
  v1::AddConstraintRequest req;
  req.set_world(world);
  *req.mutable_constraint() = def;
  auto r = LINKAGE_CALL(false, constraints_, AddConstraint, v1::AddConstraintResponse, req);
  if (!r) return r.error();
  return from_proto(r->id());
}

Result<std::vector<Id>> Client::add_constraints(const std::string& world,
                                                const std::vector<v1::ConstraintDef>& defs) const {
  v1::AddConstraintsRequest req;
  req.set_world(world);
  for (const v1::ConstraintDef& def : defs) *req.add_constraints() = def;
  auto r = LINKAGE_CALL(false, constraints_, AddConstraints, v1::AddConstraintsResponse, req);
  if (!r) return r.error();
  return ids_of(r->ids());
}

Result<v1::Constraint> Client::get_constraint(const std::string& world, Id id) const {
  v1::GetConstraintRequest req;
  req.set_world(world);
  *req.mutable_id() = to_proto(id);
  auto r = LINKAGE_CALL(true, constraints_, GetConstraint, v1::GetConstraintResponse, req);
  if (!r) return r.error();
  return r->constraint();
}

Result<std::vector<v1::Constraint>> Client::list_constraints(const std::string& world) const {
  v1::ListConstraintsRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, constraints_, ListConstraints, v1::ListConstraintsResponse, req);
  if (!r) return r.error();
  return std::vector<v1::Constraint>(r->constraints().begin(), r->constraints().end());
}

Result<v1::Constraint> Client::update_constraint(const std::string& world, Id id, const ConstraintDef& def,
                                                 const ConstraintOptions& options) const {
  return update_constraint(world, id, to_proto(def, options));
}

Result<v1::Constraint> Client::update_constraint(const std::string& world, Id id,
                                                 const v1::ConstraintDef& def) const {
  return update_constraint(world, id, def, {});
}

Result<v1::Constraint> Client::update_constraint(const std::string& world, Id id, const v1::ConstraintDef& def,
                                                 const std::vector<std::string>& mask) const {
  v1::UpdateConstraintRequest req;
  for (const std::string& path : mask) req.mutable_update_mask()->add_paths(path);
  req.set_world(world);
  *req.mutable_id() = to_proto(id);
  *req.mutable_constraint() = def;
  auto r = LINKAGE_CALL(true, constraints_, UpdateConstraint, v1::UpdateConstraintResponse, req);
  if (!r) return r.error();
  return r->constraint();
}

Status Client::remove_constraint(const std::string& world, Id id) const {
  v1::RemoveConstraintRequest req;
  req.set_world(world);
  *req.mutable_id() = to_proto(id);
  auto r = LINKAGE_CALL(false, constraints_, RemoveConstraint, v1::RemoveConstraintResponse, req);
  if (!r) return r.error();
  return {};
}

// --- forces ---

Result<Id> Client::add_spring(const std::string& world, const SpringDef& def) const {
  return add_force(world, to_proto(def));
}

Result<Id> Client::apply_force(const std::string& world, const ForceDef& def) const {
  return add_force(world, to_proto(def));
}

Result<Id> Client::add_force(const std::string& world, const v1::ForceDef& def) const {
  v1::AddForceRequest req;
  req.set_world(world);
  *req.mutable_force() = def;
  auto r = LINKAGE_CALL(false, forces_, AddForce, v1::AddForceResponse, req);
  if (!r) return r.error();
  return from_proto(r->id());
}

Result<v1::Force> Client::update_spring(const std::string& world, Id id, const SpringDef& def) const {
  return update_force(world, id, to_proto(def));
}

Result<v1::Force> Client::update_force(const std::string& world, Id id, const v1::ForceDef& def) const {
  return update_force(world, id, def, {});
}

Result<v1::Force> Client::update_force(const std::string& world, Id id, const v1::ForceDef& def,
                                       const std::vector<std::string>& mask) const {
  v1::UpdateForceRequest req;
  for (const std::string& path : mask) req.mutable_update_mask()->add_paths(path);
  req.set_world(world);
  *req.mutable_id() = to_proto(id);
  *req.mutable_force() = def;
  auto r = LINKAGE_CALL(true, forces_, UpdateForce, v1::UpdateForceResponse, req);
  if (!r) return r.error();
  return r->force();
}

Status Client::remove_force(const std::string& world, Id id) const {
  v1::RemoveForceRequest req;
  req.set_world(world);
  *req.mutable_id() = to_proto(id);
  auto r = LINKAGE_CALL(false, forces_, RemoveForce, v1::RemoveForceResponse, req);
  if (!r) return r.error();
  return {};
}

Result<std::vector<v1::Force>> Client::list_forces(const std::string& world) const {
  v1::ListForcesRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, forces_, ListForces, v1::ListForcesResponse, req);
  if (!r) return r.error();
  return std::vector<v1::Force>(r->forces().begin(), r->forces().end());
}

Status Client::apply_impulse(const std::string& world, const ImpulseDef& def) const {
  v1::ApplyImpulseRequest req;
  req.set_world(world);
  *req.mutable_impulse() = to_proto(def);
  auto r = LINKAGE_CALL(false, forces_, ApplyImpulse, v1::ApplyImpulseResponse, req);
  if (!r) return r.error();
  return {};
}

}  // namespace linkage::client
