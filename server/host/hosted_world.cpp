#include "hosted_world.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "durable/contents.hpp"

namespace linkage::server {
namespace {

Error exhausted(const char* what, int limit) {
  return {ErrorCode::resource_exhausted, std::string("the world holds its maximum of ") + std::to_string(limit) + " " +
                                             what + "; remove some first (or raise --max-" + what + ")"};
}

std::string indexed(const char* field, int i) { return std::string(field) + "[" + std::to_string(i) + "]"; }

// Creates every def in order with `create`, stopping at the first error,
// which names the def as `field[i]`.
template <class Defs, class Create>
Status create_each(const Defs& defs, const char* field, Create create, Repeated<v1::Id>* ids) {
  for (int i = 0; i < defs.size(); ++i) {
    auto id = create(defs.Get(i));
    if (!id) {
      ids->Clear();
      return prefixed(id.error(), indexed(field, i));
    }
    id_to_proto(id.value(), ids->Add());
  }
  return ok_status();
}

}  // namespace

void limits_to_proto(const Limits& limits, v1::WorldLimits* out) {
  out->set_max_bodies(limits.max_bodies);
  out->set_max_constraints(limits.max_constraints);
  out->set_max_forces(limits.max_forces);
  out->set_max_error(limits.max_error);
}

HostedWorld::HostedWorld(World world, Names names, Limits limits)
    : world_(std::move(world)), names_(std::move(names)), limits_(limits) {
  footprint_ = Footprint::of(world_, names_);
}

// --- reads ---

Result<BodyId> HostedWorld::find_body(const v1::BodyRef& ref, std::string_view field) const {
  Result<BodyId> id = resolve()(ref, field);
  if (!id) return id.error();
  if (id.value().is_null()) return field_error(ErrorCode::invalid_argument, std::string(field), "must name a body");
  return id;
}

void HostedWorld::describe(BodyId id, v1::Body* out) const {
  body_to_proto(world_.body(id).value(), names_.body_name(id), out);
}

Status HostedWorld::describe(ConstraintId id, v1::Constraint* out) const {
  Result<ConstraintInfo> info = world_.constraint(id);
  if (!info) return info.error();
  constraint_to_proto(info.value(), world_, names_, out);
  return ok_status();
}

Status HostedWorld::describe(ForceId id, v1::Force* out) const {
  Result<ForceInfo> info = world_.force(id);
  if (!info) return info.error();
  force_to_proto(info.value(), out);
  return ok_status();
}

// --- checks ---

Status HostedWorld::fits(std::uint32_t old_bytes, std::uint32_t new_bytes) {
  if (new_bytes <= old_bytes) return ok_status();
  const std::uint64_t after = footprint_.bytes() - old_bytes + new_bytes;
  if (after > limits_.max_bytes) return Error{ErrorCode::resource_exhausted, footprint_exceeded(after, limits_.max_bytes)};
  return memory_.grow(new_bytes - old_bytes);
}

Status HostedWorld::grows_to(std::uint64_t bytes) {
  return bytes > footprint_.bytes() ? memory_.grow(bytes - footprint_.bytes()) : ok_status();
}

// Whether `n` more of `what` fit beside `count` under `limit`; if not, the
// error names the first that does not, checked before any is made, so that
// refusing a huge list costs nothing.
Status HostedWorld::room(std::size_t count, int limit, const char* what, int n, const char* field) const {
  const std::int64_t left = std::max<std::int64_t>(limit - static_cast<std::int64_t>(count), 0);
  if (n <= left) return ok_status();
  return prefixed(exhausted(what, limit), indexed(field, static_cast<int>(left)));
}

template <class R, class Make>
R HostedWorld::recorded(R result, Make make) {
  if (!result) {
    memory_.undo();
    return result;
  }
  memory_.keep();
  if (sink_) {
    durable::Record record;
    make(record);
    sink_->changed(std::move(record));
  }
  return result;
}

// --- the recorded changes ---

Result<BodyId> HostedWorld::create_body(const v1::BodyDef& def) {
  return recorded(do_create_body(def), [&](durable::Record& r) { *r.mutable_command()->mutable_create_body() = def; });
}

Status HostedWorld::create_bodies(const Repeated<v1::BodyDef>& defs, Repeated<v1::Id>* ids) {
  if (Status ok = room(world_.body_count(), limits_.max_bodies, "bodies", defs.size(), "bodies"); !ok) return ok;
  return recorded(atomically([&] {
                    return create_each(defs, "bodies", [this](const v1::BodyDef& d) { return do_create_body(d); }, ids);
                  }),
                  [&](durable::Record& r) {
                    for (const v1::BodyDef& d : defs) *r.mutable_batch()->add_commands()->mutable_create_body() = d;
                  });
}

Result<BodyId> HostedWorld::update_body(const v1::BodyRef& body, const v1::BodyDef& def,
                                        const google::protobuf::FieldMask& mask) {
  return recorded(do_update_body(body, def, mask), [&](durable::Record& r) {
    v1::UpdateBodyRequest* u = r.mutable_command()->mutable_update_body();
    *u->mutable_body() = body;
    *u->mutable_def() = def;
    *u->mutable_update_mask() = mask;
  });
}

Result<Removed> HostedWorld::remove_body(const v1::BodyRef& body) {
  return recorded(do_remove_body(body), [&](durable::Record& r) { *r.mutable_command()->mutable_remove_body() = body; });
}

Result<ConstraintId> HostedWorld::add_constraint(const v1::ConstraintDef& def) {
  return recorded(do_add_constraint(def),
                  [&](durable::Record& r) { *r.mutable_command()->mutable_add_constraint() = def; });
}

Status HostedWorld::add_constraints(const Repeated<v1::ConstraintDef>& defs, Repeated<v1::Id>* ids) {
  if (Status ok = room(world_.constraint_count(), limits_.max_constraints, "constraints", defs.size(), "constraints");
      !ok)
    return ok;
  return recorded(atomically([&] {
                    return create_each(defs, "constraints",
                                       [this](const v1::ConstraintDef& d) { return do_add_constraint(d); }, ids);
                  }),
                  [&](durable::Record& r) {
                    for (const v1::ConstraintDef& d : defs)
                      *r.mutable_batch()->add_commands()->mutable_add_constraint() = d;
                  });
}

Status HostedWorld::update_constraint(const v1::Id& id, const v1::ConstraintDef& def,
                                      const google::protobuf::FieldMask& mask) {
  // Atomically here, not in do_update_constraint: a batch is atomic as a
  // whole already, and a copy of the world for each of its updates would
  // make a batch of them cost its length times the world.
  return recorded(atomically([&] { return do_update_constraint(id, def, mask); }), [&](durable::Record& r) {
    v1::UpdateConstraintRequest* u = r.mutable_command()->mutable_update_constraint();
    *u->mutable_id() = id;
    *u->mutable_constraint() = def;
    *u->mutable_update_mask() = mask;
  });
}

Status HostedWorld::remove_constraint(const v1::Id& id) {
  return recorded(do_remove_constraint(id),
                  [&](durable::Record& r) { *r.mutable_command()->mutable_remove_constraint() = id; });
}

Result<ForceId> HostedWorld::add_force(const v1::ForceDef& def) {
  return recorded(do_add_force(def), [&](durable::Record& r) { *r.mutable_command()->mutable_add_force() = def; });
}

Status HostedWorld::update_force(const v1::Id& id, const v1::ForceDef& def, const google::protobuf::FieldMask& mask) {
  return recorded(do_update_force(id, def, mask), [&](durable::Record& r) {
    v1::UpdateForceRequest* u = r.mutable_update_force();
    *u->mutable_id() = id;
    *u->mutable_force() = def;
    *u->mutable_update_mask() = mask;
  });
}

Status HostedWorld::remove_force(const v1::Id& id) {
  return recorded(do_remove_force(id), [&](durable::Record& r) { *r.mutable_command()->mutable_remove_force() = id; });
}

Status HostedWorld::apply_impulse(const v1::Impulse& impulse) {
  return recorded(do_apply_impulse(impulse),
                  [&](durable::Record& r) { *r.mutable_command()->mutable_apply_impulse() = impulse; });
}

Status HostedWorld::atomically(const std::function<Status()>& body) {
  const WorldState world = world_.save();
  const Names names = names_;
  const ChangeLog changes = changes_;
  const Footprint footprint = footprint_;
  Status result = body();
  if (!result) {
    world_.restore(world);
    names_ = names;
    changes_ = changes;
    footprint_ = footprint;
  }
  return result;
}

// --- bodies ---

Result<BodyId> HostedWorld::do_create_body(const v1::BodyDef& def) {
  if (static_cast<int>(world_.body_count()) >= limits_.max_bodies) return exhausted("bodies", limits_.max_bodies);
  if (!def.name().empty()) {
    if (Status ok = names_.check_body_name(def.name()); !ok) return prefixed(ok.error(), "body");
  }
  Result<BodyDef> core = body_from_proto(def);
  if (!core) return core.error();
  const std::uint32_t bytes = Footprint::body(core.value(), def.name().size(), dimension());
  if (Status ok = fits(0, bytes); !ok) return ok.error();
  Result<BodyId> id = world_.add_body(core.value());
  if (!id) return body_error(id.error());
  if (!def.name().empty()) names_.add_body(def.name(), id.value()).value();
  footprint_.set(id.value(), bytes);
  changes_.added(id.value());
  return id;
}

namespace {

// Whether every path of a non-empty mask names part of a body's state.
bool names_state_only(const google::protobuf::FieldMask& mask) {
  if (mask.paths_size() == 0) return false;
  for (const std::string& path : mask.paths()) {
    const std::string_view field = std::string_view(path).substr(0, path.find('.'));
    if (field != "position" && field != "velocity" && field != "angle" && field != "angular_velocity") return false;
  }
  return true;
}

}  // namespace

Result<BodyId> HostedWorld::do_update_body(const v1::BodyRef& body, const v1::BodyDef& given,
                                        const google::protobuf::FieldMask& mask) {
  Result<BodyId> id = find_body(body);
  if (!id) return id.error();
  v1::BodyDef def = given;
  if (mask.paths_size() > 0) {
    def.Clear();
    body_def_to_proto(world_.body(id.value()).value(), names_.body_name(id.value()), &def);
    if (Status ok = merge_masked(given, mask, &def); !ok) return ok.error();
  }
  Result<BodyDef> core = body_from_proto(def, "def");
  if (!core) return core.error();
  // An empty name keeps the body's name.
  const bool rename = !def.name().empty() && def.name() != names_.body_name(id.value());
  if (rename) {
    if (Status ok = names_.check_body_name(def.name()); !ok) return prefixed(ok.error(), "def");
  }
  const std::size_t name = rename ? def.name().size() : names_.body_name(id.value()).size();
  const std::uint32_t bytes = Footprint::body(core.value(), name, dimension());
  if (Status ok = fits(footprint_.of(id.value()), bytes); !ok) return prefixed(ok.error(), "def");
  // A mask of state alone moves the body and leaves its model (and all the
  // world derived from it) as it is.
  const BodyDef& d = core.value();
  const Status changed = names_state_only(mask)
                             ? world_.set_body_state(id.value(), {d.position, d.angle, d.velocity, d.angular_velocity})
                             : world_.update_body(id.value(), d);
  if (!changed) return body_error(changed.error(), "def");
  if (rename) names_.add_body(def.name(), id.value()).value();
  footprint_.set(id.value(), bytes);
  changes_.updated(id.value());
  return id;
}

Result<Removed> HostedWorld::do_remove_body(const v1::BodyRef& body) {
  Result<BodyId> id = find_body(body);
  if (!id) return id.error();
  // Streams know springs only: note which of the forces it may take are
  // springs while they are there to ask.
  std::vector<ForceId> springs;
  for (const ForceId f : world_.forces()) {
    const ForceInfo info = world_.force(f).value();
    if (const auto* s = std::get_if<SpringDef>(&info.def); s && (s->a == id.value() || s->b == id.value()))
      springs.push_back(f);
  }
  Result<Removed> removed = world_.remove_body(id.value());
  if (!removed) return removed.error();
  // What the body took with it goes from the streams' pictures too.
  for (const ConstraintId c : removed.value().constraints) changes_.removed(c);
  for (const ForceId f : removed.value().forces)
    if (std::find(springs.begin(), springs.end(), f) != springs.end()) changes_.removed_spring(f);
  changes_.removed(id.value());
  names_.remove(id.value(), removed.value());
  footprint_.erase(id.value(), removed.value());
  return removed;
}

// --- constraints ---

Result<ConstraintId> HostedWorld::do_add_constraint(const v1::ConstraintDef& def) {
  if (static_cast<int>(world_.constraint_count()) >= limits_.max_constraints)
    return exhausted("constraints", limits_.max_constraints);
  if (!def.name().empty()) {
    if (Status ok = names_.check_constraint_name(def.name()); !ok) return prefixed(ok.error(), "constraint");
  }
  Result<ConstraintDef> core = constraint_from_proto(def, resolve());
  if (!core) return core.error();
  const Softness softness = softness_from_proto(def);
  const std::uint32_t bytes = Footprint::constraint(core.value(), softness, def.name().size(), dimension());
  if (Status ok = fits(0, bytes); !ok) return ok.error();
  Result<ConstraintId> id = world_.add_constraint(core.value(), softness);
  if (!id) return constraint_error(id.error(), def);
  if (!def.name().empty()) names_.add_constraint(def.name(), id.value()).value();
  footprint_.set(id.value(), bytes);
  changes_.added(id.value());
  return id;
}

Status HostedWorld::do_update_constraint(const v1::Id& id, const v1::ConstraintDef& given,
                                      const google::protobuf::FieldMask& mask) {
  const ConstraintId cid = id_from_proto<ConstraintTag>(id);
  if (!world_.contains(cid))
    return field_error(ErrorCode::not_found, "id", "constraint " + std::to_string(cid.index) + ":" +
                                           std::to_string(cid.generation) + " does not exist (never created, or removed)");
  v1::ConstraintDef def = given;
  if (mask.paths_size() > 0) {
    const ConstraintInfo info = world_.constraint(cid).value();
    def.Clear();
    constraint_def_to_proto(info.def, info.softness, names_.constraint_name(cid), ids_as_refs(), &def);
    if (Status ok = merge_masked(given, mask, &def); !ok) return ok;
  }
  // An empty name keeps the constraint's name; another one renames it.
  const bool rename = !def.name().empty() && def.name() != names_.constraint_name(cid);
  if (rename) {
    if (Status ok = names_.check_constraint_name(def.name()); !ok) return prefixed(ok.error(), "constraint");
  }
  Result<ConstraintDef> core = constraint_from_proto(def, resolve());
  if (!core) return core.error();
  const Softness softness = softness_from_proto(def);
  const std::size_t name = rename ? def.name().size() : names_.constraint_name(cid).size();
  const std::uint32_t bytes = Footprint::constraint(core.value(), softness, name, dimension());
  if (Status ok = fits(footprint_.of(cid), bytes); !ok) return prefixed(ok.error(), "constraint");
  // A mask of the name and the softness alone leaves the definition as it
  // is: it is not checked again (its bodies may have become fixed since it
  // was added, which the world allows; a rename must not fail on that).
  const bool def_given = mask.paths_size() == 0 || std::any_of(mask.paths().begin(), mask.paths().end(), [](const std::string& p) {
                           return p != "name" && p != "softness" && !p.starts_with("softness.");
                         });
  if (def_given) {
    if (Status ok = world_.update_constraint(cid, core.value()); !ok) return constraint_error(ok.error(), def);
  }
  if (Status ok = world_.set_softness(cid, softness); !ok) return constraint_error(ok.error(), def);
  if (rename) names_.add_constraint(def.name(), cid).value();
  footprint_.set(cid, bytes);
  changes_.updated(cid);
  return ok_status();
}

Status HostedWorld::do_remove_constraint(const v1::Id& id) {
  const ConstraintId cid = id_from_proto<ConstraintTag>(id);
  if (Status ok = world_.remove_constraint(cid); !ok) return ok;
  changes_.removed(cid);
  names_.remove_constraint(cid);
  footprint_.erase(cid);
  return ok_status();
}

// --- forces ---

Result<ForceId> HostedWorld::do_add_force(const v1::ForceDef& def) {
  if (static_cast<int>(world_.force_count()) >= limits_.max_forces) return exhausted("forces", limits_.max_forces);
  Result<ForceDefAny> core = force_from_proto(def, resolve());
  if (!core) return core.error();
  const std::uint32_t bytes = Footprint::force(core.value());
  if (Status ok = fits(0, bytes); !ok) return ok.error();
  const auto* spring = std::get_if<SpringDef>(&core.value());
  Result<ForceId> id = spring ? world_.add_spring(*spring) : world_.apply_force(std::get<ForceDef>(core.value()));
  if (!id) return force_error(id.error(), def);
  footprint_.set(id.value(), bytes);
  if (spring) changes_.added_spring(id.value());
  return id;
}

Status HostedWorld::do_update_force(const v1::Id& id, const v1::ForceDef& given, const google::protobuf::FieldMask& mask) {
  const ForceId fid = id_from_proto<ForceTag>(id);
  v1::ForceDef def = given;
  if (mask.paths_size() > 0) {
    Result<ForceInfo> info = world_.force(fid);
    if (!info) return info.error();
    if (!std::holds_alternative<SpringDef>(info.value().def))
      return field_error(ErrorCode::failed_precondition, "force", std::to_string(fid.index) + ":" +
                                                       std::to_string(fid.generation) +
                                                       " is an applied force; only springs can be updated (remove "
                                                       "it and apply another)");
    def.Clear();
    force_def_to_proto(info.value().def, ids_as_refs(), &def);
    if (Status ok = merge_masked(given, mask, &def); !ok) return ok;
  }
  Result<ForceDefAny> core = force_from_proto(def, resolve());
  if (!core) return core.error();
  const auto* spring = std::get_if<SpringDef>(&core.value());
  if (!spring) return field_error(ErrorCode::invalid_argument, "force", "only springs can be updated; remove an applied force and add another");
  const std::uint32_t bytes = Footprint::force(core.value());
  if (Status ok = fits(footprint_.of(fid), bytes); !ok) return prefixed(ok.error(), "force");
  if (Status ok = world_.update_spring(fid, *spring); !ok) return force_error(ok.error(), def);
  footprint_.set(fid, bytes);
  changes_.updated_spring(fid);
  return ok_status();
}

Status HostedWorld::do_remove_force(const v1::Id& id) {
  const ForceId fid = id_from_proto<ForceTag>(id);
  Result<ForceInfo> info = world_.force(fid);
  if (!info) return info.error();
  const bool spring = std::holds_alternative<SpringDef>(info.value().def);
  if (Status ok = world_.remove_force(fid); !ok) return ok;
  if (spring) changes_.removed_spring(fid);
  footprint_.erase(fid);
  return ok_status();
}

Status HostedWorld::do_apply_impulse(const v1::Impulse& impulse) {
  Result<ImpulseDef> core = impulse_from_proto(impulse, resolve());
  if (!core) return core.error();
  // A velocity change: state, which every frame's columns carry.
  if (Status ok = world_.apply_impulse(core.value()); !ok) return prefixed(ok.error(), "impulse");
  return ok_status();
}

// --- the world as a whole ---

Status HostedWorld::run_command(const v1::Command& c, v1::CommandResult* out) {
  auto created = [&](auto result) -> Status {
    if (!result) return result.error();
    id_to_proto(result.value(), out->mutable_created());
    return ok_status();
  };
  switch (c.command_case()) {
    case v1::Command::kCreateBody: return created(do_create_body(c.create_body()));
    case v1::Command::kUpdateBody: {
      Result<BodyId> id = do_update_body(c.update_body().body(), c.update_body().def(), c.update_body().update_mask());
      return id ? ok_status() : Status(id.error());
    }
    case v1::Command::kRemoveBody: {
      Result<Removed> removed = do_remove_body(c.remove_body());
      if (!removed) return removed.error();
      for (const ConstraintId id : removed.value().constraints) id_to_proto(id, out->add_removed_constraints());
      for (const ForceId id : removed.value().forces) id_to_proto(id, out->add_removed_forces());
      return ok_status();
    }
    case v1::Command::kAddConstraint: return created(do_add_constraint(c.add_constraint()));
    case v1::Command::kUpdateConstraint:
      return do_update_constraint(c.update_constraint().id(), c.update_constraint().constraint(),
                               c.update_constraint().update_mask());
    case v1::Command::kRemoveConstraint: return do_remove_constraint(c.remove_constraint());
    case v1::Command::kAddForce: return created(do_add_force(c.add_force()));
    case v1::Command::kRemoveForce: return do_remove_force(c.remove_force());
    case v1::Command::kApplyImpulse: return do_apply_impulse(c.apply_impulse());
    case v1::Command::COMMAND_NOT_SET: break;
  }
  return field_error(ErrorCode::invalid_argument, "command", "no command set");
}

namespace {

// How many commands from `first` remove things of one kind (bodies, or
// constraints): 0 where commands[first] removes neither.
int removal_run(const Repeated<v1::Command>& commands, int first) {
  const v1::Command::CommandCase kind = commands.Get(first).command_case();
  if (kind != v1::Command::kRemoveBody && kind != v1::Command::kRemoveConstraint) return 0;
  int n = 1;
  while (first + n < commands.size() && commands.Get(first + n).command_case() == kind) ++n;
  return n;
}

}  // namespace

Status HostedWorld::apply_batch(const Repeated<v1::Command>& commands, Repeated<v1::CommandResult>* results) {
  return recorded(atomically([&]() -> Status {
                    for (int i = 0; i < commands.size();) {
                      int failed = i;
                      const int run = std::max(1, removal_run(commands, i));
                      const Status ok = run > 1 ? run_removals(commands, i, run, results, &failed)
                                                : run_command(commands.Get(i), results->Add());
                      i += run;
                      if (!ok) {
                        results->Clear();
                        return prefixed(ok.error(), indexed("commands", failed));
                      }
                    }
                    return ok_status();
                  }),
                  [&](durable::Record& r) { *r.mutable_batch()->mutable_commands() = commands; });
}

Status HostedWorld::run_removals(const Repeated<v1::Command>& commands, int first, int count,
                                 Repeated<v1::CommandResult>* results, int* failed) {
  const bool bodies = commands.Get(first).command_case() == v1::Command::kRemoveBody;
  const int end = first + count;
  // The removals before the first one that would fail go at once; that one
  // then runs alone, for the error it gives after them.
  while (first < end) {
    std::vector<BodyId> body_ids;
    std::vector<ConstraintId> constraint_ids;
    std::unordered_set<std::uint32_t> seen;  // indices: a live index has one generation
    int next = first;
    for (; next < end; ++next) {
      const v1::Command& c = commands.Get(next);
      if (bodies) {
        const Result<BodyId> id = find_body(c.remove_body());
        if (!id || !seen.insert(id.value().index).second) break;
        body_ids.push_back(id.value());
      } else {
        const ConstraintId id = id_from_proto<ConstraintTag>(c.remove_constraint());
        if (!world_.contains(id) || !seen.insert(id.index).second) break;
        constraint_ids.push_back(id);
      }
    }
    if (Status ok = bodies ? remove_bodies_at_once(body_ids, results) : remove_constraints_at_once(constraint_ids, results);
        !ok) {
      *failed = first;
      return ok;
    }
    if (next == end) break;
    if (Status ok = run_command(commands.Get(next), results->Add()); !ok) {
      *failed = next;
      return ok;
    }
    first = next + 1;
  }
  return ok_status();
}

Status HostedWorld::remove_bodies_at_once(const std::vector<BodyId>& ids, Repeated<v1::CommandResult>* results) {
  if (ids.empty()) return ok_status();
  // Streams know springs only: note which forces are springs while they are there to ask.
  std::unordered_set<ForceId> springs;
  for (const ForceId f : world_.forces())
    if (std::holds_alternative<SpringDef>(world_.force(f).value().def)) springs.insert(f);
  Result<std::vector<Removed>> removed = world_.remove_bodies(ids);
  if (!removed) return removed.error();
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Removed& r = removed.value()[k];
    v1::CommandResult* out = results->Add();
    for (const ConstraintId c : r.constraints) {
      changes_.removed(c);
      id_to_proto(c, out->add_removed_constraints());
    }
    for (const ForceId f : r.forces) {
      if (springs.contains(f)) changes_.removed_spring(f);
      id_to_proto(f, out->add_removed_forces());
    }
    changes_.removed(ids[k]);
    names_.remove(ids[k], r);
    footprint_.erase(ids[k], r);
  }
  return ok_status();
}

Status HostedWorld::remove_constraints_at_once(const std::vector<ConstraintId>& ids,
                                               Repeated<v1::CommandResult>* results) {
  if (ids.empty()) return ok_status();
  if (Status ok = world_.remove_constraints(ids); !ok) return ok;
  for (const ConstraintId id : ids) {
    results->Add();
    changes_.removed(id);
    names_.remove_constraint(id);
    footprint_.erase(id);
  }
  return ok_status();
}

Status HostedWorld::update(const WorldSettings& settings, const Limits& limits) {
  v1::WorldSettings now, asked;
  settings_to_proto(world_.settings(), &now);
  settings_to_proto(settings, &asked);
  if (asked.SerializeAsString() != now.SerializeAsString() || settings.dt != world_.settings().dt) {
    if (Status ok = memory_.grow(footprint_.bytes()); !ok) return prefixed(ok.error(), "settings");
  }
  if (Status ok = world_.set_settings(settings); !ok) {
    memory_.undo();
    return prefixed(ok.error(), "settings");
  }
  limits_ = limits;
  changes_.settings_changed();
  return recorded(ok_status(), [&](durable::Record& r) {
    durable::Settings* s = r.mutable_settings();
    settings_to_proto(settings, s->mutable_settings());
    s->set_dt(settings.dt);
    limits_to_proto(limits, s->mutable_limits());
  });
}

Status HostedWorld::load_scene(LoadedScene scene) {
  // The contents it replaces are freed: only growth claims.
  const std::uint64_t bytes = scene.footprint.bytes();
  if (Status ok = grows_to(bytes); !ok) return prefixed(ok.error(), "scene");
  reset_point_ = std::make_shared<const ResetPoint>(ResetPoint{scene.world.save(), scene.names, bytes});
  // Assignment keeps the World where it is: references to it stay valid.
  world_ = std::move(scene.world);
  world_.clear_caches();
  names_ = std::move(scene.names);
  footprint_ = std::move(scene.footprint);
  changes_.replaced();
  return recorded(ok_status(), [&](durable::Record& r) { durable::contents_to_proto(world_, names_, r.mutable_scene()); });
}

void HostedWorld::mark_reset_point() {
  reset_point_ = std::make_shared<const ResetPoint>(ResetPoint{world_.save(), names_, footprint_.bytes()});
  recorded(ok_status(), [](durable::Record& r) { r.set_mark_reset_point(true); });
}

Status HostedWorld::reset() {
  if (Status ok = grows_to(reset_point_ ? reset_point_->footprint : 0); !ok) return ok;
  if (reset_point_) {
    world_.restore(reset_point_->world);
    names_ = reset_point_->names;
  } else {
    world_ = World::create(world_.settings()).value();
    names_ = Names{};
  }
  world_.clear_caches();
  footprint_ = Footprint::of(world_, names_);
  changes_.replaced();
  return recorded(ok_status(), [](durable::Record& r) { r.set_reset(true); });
}

void HostedWorld::roll_back(const World& checkpoint) {
  world_ = checkpoint;
  footprint_ = Footprint::of(world_, names_);
}

}  // namespace linkage::server
