#include "commands.hpp"

#include "convert/convert.hpp"

namespace linkage::server {
namespace {

Error exhausted(const char* what, int limit) {
  return {ErrorCode::resource_exhausted, std::string("the world holds its maximum of ") + std::to_string(limit) + " " +
                                             what + "; remove some first (or raise --max-" + what + ")"};
}

// Whether the world's footprint may go from `old_bytes` to `new_bytes` for one object.
Status fits(const State& s, std::uint32_t old_bytes, std::uint32_t new_bytes) {
  const std::uint64_t after = s.footprint.bytes() - old_bytes + new_bytes;
  if (new_bytes > old_bytes && after > s.limits.max_bytes)
    return Error{ErrorCode::resource_exhausted, footprint_exceeded(after, s.limits.max_bytes)};
  return ok_status();
}

// Records, for the streams, what removing a body took with it.
void record_removal(State& s, BodyId body, const Removed& removed) {
  for (const ConstraintId c : removed.constraints) s.changes.removed(c);
  for (const ForceId f : removed.forces) s.changes.removed_spring(f);
  s.changes.removed(body);
  s.names.remove(body, removed);
  s.footprint.erase(body, removed);
}

int dimension(const State& s) { return s.world.settings().dimension; }

// Whether `n` more of `what` fit beside `count` under `limit`; if not, the error names the first that does not.
Status room(std::size_t count, int limit, const char* what, int n, const char* field) {
  const std::int64_t left = std::max<std::int64_t>(limit - static_cast<std::int64_t>(count), 0);
  if (n <= left) return ok_status();
  return prefixed(exhausted(what, limit), std::string(field) + "[" + std::to_string(left) + "]");
}

}  // namespace

Status room_for_bodies(const State& s, int n, const char* field) {
  return room(s.world.body_count(), s.limits.max_bodies, "bodies", n, field);
}

Status room_for_constraints(const State& s, int n, const char* field) {
  return room(s.world.constraint_count(), s.limits.max_constraints, "constraints", n, field);
}

Result<BodyId> create_body(State& s, const v1::BodyDef& def) {
  if (static_cast<int>(s.world.body_count()) >= s.limits.max_bodies) return exhausted("bodies", s.limits.max_bodies);
  if (!def.name().empty()) {
    if (Status ok = s.names.check_body_name(def.name()); !ok) return prefixed(ok.error(), "body");
  }
  Result<BodyDef> core = body_from_proto(def);
  if (!core) return core.error();
  const std::uint32_t bytes = Footprint::body(core.value(), def.name().size(), dimension(s));
  if (Status ok = fits(s, 0, bytes); !ok) return ok.error();
  Result<BodyId> id = s.world.add_body(core.value());
  if (!id) return body_error(id.error());
  if (!def.name().empty()) s.names.add_body(def.name(), id.value()).value();
  s.footprint.set(id.value(), bytes);
  s.changes.added(id.value());
  return id;
}

Result<BodyId> update_body(State& s, const v1::BodyRef& body, const v1::BodyDef& def) {
  Result<BodyId> id = resolver(s.world, s.names)(body, "body");
  if (!id) return id.error();
  if (id.value().is_null()) return Error{ErrorCode::invalid_argument, "body: must name a body"};
  Result<BodyDef> core = body_from_proto(def, "def");
  if (!core) return core.error();
  // An empty name keeps the body's name.
  const bool rename = !def.name().empty() && def.name() != s.names.body_name(id.value());
  if (rename) {
    if (Status ok = s.names.check_body_name(def.name()); !ok) return prefixed(ok.error(), "def");
  }
  const std::size_t name = rename ? def.name().size() : s.names.body_name(id.value()).size();
  const std::uint32_t bytes = Footprint::body(core.value(), name, dimension(s));
  if (Status ok = fits(s, s.footprint.of(id.value()), bytes); !ok) return prefixed(ok.error(), "def");
  if (Status ok = s.world.update_body(id.value(), core.value()); !ok) return body_error(ok.error(), "def");
  if (rename) s.names.add_body(def.name(), id.value()).value();
  s.footprint.set(id.value(), bytes);
  return id;
}

Result<Removed> remove_body(State& s, const v1::BodyRef& body) {
  Result<BodyId> id = resolver(s.world, s.names)(body, "body");
  if (!id) return id.error();
  if (id.value().is_null()) return Error{ErrorCode::invalid_argument, "body: must name a body"};
  Result<Removed> removed = s.world.remove_body(id.value());
  if (!removed) return removed.error();
  record_removal(s, id.value(), removed.value());
  return removed;
}

Result<ConstraintId> add_constraint(State& s, const v1::ConstraintDef& def) {
  if (static_cast<int>(s.world.constraint_count()) >= s.limits.max_constraints)
    return exhausted("constraints", s.limits.max_constraints);
  if (!def.name().empty()) {
    if (Status ok = s.names.check_constraint_name(def.name()); !ok) return prefixed(ok.error(), "constraint");
  }
  Result<ConstraintDef> core = constraint_from_proto(def, resolver(s.world, s.names));
  if (!core) return core.error();
  const Softness softness = softness_from_proto(def);
  const std::uint32_t bytes = Footprint::constraint(core.value(), softness, def.name().size(), dimension(s));
  if (Status ok = fits(s, 0, bytes); !ok) return ok.error();
  Result<ConstraintId> id = s.world.add_constraint(core.value(), softness);
  if (!id) return constraint_error(id.error(), def);
  if (!def.name().empty()) s.names.add_constraint(def.name(), id.value()).value();
  s.footprint.set(id.value(), bytes);
  s.changes.added(id.value());
  return id;
}

Status update_constraint(State& s, const v1::Id& id, const v1::ConstraintDef& def) {
  const ConstraintId cid = id_from_proto<ConstraintTag>(id);
  if (!s.world.contains(cid))
    return Error{ErrorCode::not_found, "id: constraint " + std::to_string(cid.index) + ":" +
                                           std::to_string(cid.generation) + " does not exist (never created, or removed)"};
  // An empty name keeps the constraint's name; another one renames it.
  const bool rename = !def.name().empty() && def.name() != s.names.constraint_name(cid);
  if (rename) {
    if (Status ok = s.names.check_constraint_name(def.name()); !ok) return prefixed(ok.error(), "constraint");
  }
  Result<ConstraintDef> core = constraint_from_proto(def, resolver(s.world, s.names));
  if (!core) return core.error();
  const Softness softness = softness_from_proto(def);
  const std::size_t name = rename ? def.name().size() : s.names.constraint_name(cid).size();
  const std::uint32_t bytes = Footprint::constraint(core.value(), softness, name, dimension(s));
  if (Status ok = fits(s, s.footprint.of(cid), bytes); !ok) return prefixed(ok.error(), "constraint");
  return atomically(s, [&]() -> Status {
    if (Status ok = s.world.update_constraint(cid, core.value()); !ok) return constraint_error(ok.error(), def);
    if (Status ok = s.world.set_softness(cid, softness); !ok) return constraint_error(ok.error(), def);
    if (rename) s.names.add_constraint(def.name(), cid).value();
    s.footprint.set(cid, bytes);
    return ok_status();
  });
}

Status remove_constraint(State& s, const v1::Id& id) {
  const ConstraintId cid = id_from_proto<ConstraintTag>(id);
  if (Status ok = s.world.remove_constraint(cid); !ok) return ok;
  s.changes.removed(cid);
  s.names.remove_constraint(cid);
  s.footprint.erase(cid);
  return ok_status();
}

Result<ForceId> add_force(State& s, const v1::ForceDef& def) {
  if (static_cast<int>(s.world.force_count()) >= s.limits.max_forces) return exhausted("forces", s.limits.max_forces);
  Result<ForceDefAny> core = force_from_proto(def, resolver(s.world, s.names));
  if (!core) return core.error();
  const std::uint32_t bytes = Footprint::force(core.value());
  if (Status ok = fits(s, 0, bytes); !ok) return ok.error();
  const auto* spring = std::get_if<SpringDef>(&core.value());
  Result<ForceId> id = spring ? s.world.add_spring(*spring) : s.world.apply_force(std::get<ForceDef>(core.value()));
  if (!id) return force_error(id.error(), def);
  s.footprint.set(id.value(), bytes);
  if (spring) s.changes.added_spring(id.value());
  return id;
}

Status update_force(State& s, const v1::Id& id, const v1::ForceDef& def) {
  const ForceId fid = id_from_proto<ForceTag>(id);
  Result<ForceDefAny> core = force_from_proto(def, resolver(s.world, s.names));
  if (!core) return core.error();
  const auto* spring = std::get_if<SpringDef>(&core.value());
  if (!spring) return Error{ErrorCode::invalid_argument, "force: only springs can be updated; remove an applied force and add another"};
  const std::uint32_t bytes = Footprint::force(core.value());
  if (Status ok = fits(s, s.footprint.of(fid), bytes); !ok) return prefixed(ok.error(), "force");
  if (Status ok = s.world.update_spring(fid, *spring); !ok) return force_error(ok.error(), def);
  s.footprint.set(fid, bytes);
  return ok_status();
}

Status remove_force(State& s, const v1::Id& id) {
  const ForceId fid = id_from_proto<ForceTag>(id);
  Result<ForceInfo> info = s.world.force(fid);
  if (!info) return info.error();
  const bool spring = std::holds_alternative<SpringDef>(info.value().def);
  if (Status ok = s.world.remove_force(fid); !ok) return ok;
  if (spring) s.changes.removed_spring(fid);
  s.footprint.erase(fid);
  return ok_status();
}

Status apply_impulse(State& s, const v1::Impulse& impulse) {
  Result<ImpulseDef> core = impulse_from_proto(impulse, resolver(s.world, s.names));
  if (!core) return core.error();
  if (Status ok = s.world.apply_impulse(core.value()); !ok) return prefixed(ok.error(), "impulse");
  return ok_status();
}

Status run_command(State& s, const v1::Command& c, v1::CommandResult* out) {
  auto created = [&](auto result) -> Status {
    if (!result) return result.error();
    id_to_proto(result.value(), out->mutable_created());
    return ok_status();
  };
  switch (c.command_case()) {
    case v1::Command::kCreateBody: return created(create_body(s, c.create_body()));
    case v1::Command::kUpdateBody: {
      Result<BodyId> id = update_body(s, c.update_body().body(), c.update_body().def());
      return id ? ok_status() : Status(id.error());
    }
    case v1::Command::kRemoveBody: {
      Result<Removed> removed = remove_body(s, c.remove_body());
      if (!removed) return removed.error();
      for (const ConstraintId id : removed.value().constraints) id_to_proto(id, out->add_removed_constraints());
      for (const ForceId id : removed.value().forces) id_to_proto(id, out->add_removed_forces());
      return ok_status();
    }
    case v1::Command::kAddConstraint: return created(add_constraint(s, c.add_constraint()));
    case v1::Command::kUpdateConstraint:
      return update_constraint(s, c.update_constraint().id(), c.update_constraint().constraint());
    case v1::Command::kRemoveConstraint: return remove_constraint(s, c.remove_constraint());
    case v1::Command::kAddForce: return created(add_force(s, c.add_force()));
    case v1::Command::kRemoveForce: return remove_force(s, c.remove_force());
    case v1::Command::kApplyImpulse: return apply_impulse(s, c.apply_impulse());
    case v1::Command::COMMAND_NOT_SET: break;
  }
  return Error{ErrorCode::invalid_argument, "command: no command set"};
}

Status atomically(State& s, const std::function<Status()>& body) {
  const WorldState world = s.world.save();
  const Names names = s.names;
  const ChangeLog changes = s.changes;
  const Footprint footprint = s.footprint;
  Status result = body();
  if (!result) {
    s.world.restore(world);
    s.names = names;
    s.changes = changes;
    s.footprint = footprint;
  }
  return result;
}

}  // namespace linkage::server
