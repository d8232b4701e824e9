#include "convert/scene_io.hpp"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <numbers>
#include <unordered_map>
#include <unordered_set>

#include "convert/convert.hpp"

namespace linkage::server {
namespace {

std::string indexed(std::string_view list, int i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// The path a trajectory will follow from t = 0 in a reloaded world, so that
// it continues from where it was at time `now`: g'(t) = g(t + now).
Path shifted(const Path& p, double now) {
  Path out = p;
  out.origin = p.origin + p.velocity * now;
  for (int i = 0; i < 3; ++i)
    out.phase[i] = std::fmod(p.phase[i] + 2.0 * std::numbers::pi * p.frequency[i] * now, 2.0 * std::numbers::pi);
  return out;
}

// A name for every body: its own, or "body-<index>" (a live body's index is
// unique), with "-<k>" added if a named body has it, so that it clashes with
// no other body's (given or generated). At most kGeneratedNameLength
// characters: k is at most the number of bodies.
std::unordered_map<BodyId, std::string> scene_names(const World& world, const Names& names) {
  std::unordered_set<std::string> taken;
  for (BodyId id : world.bodies())
    if (!names.body_name(id).empty()) taken.emplace(names.body_name(id));
  std::unordered_map<BodyId, std::string> out;
  for (BodyId id : world.bodies()) {
    std::string name(names.body_name(id));
    if (name.empty()) {
      const std::string stem = "body-" + std::to_string(id.index);
      name = stem;
      for (int k = 2; taken.contains(name); ++k) name = stem + "-" + std::to_string(k);
      taken.insert(name);
    }
    out.emplace(id, std::move(name));
  }
  return out;
}

}  // namespace

Result<v1::Scene> parse_scene_json(std::string_view json) {
  v1::Scene scene;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), &scene);
  if (!status.ok()) {
    const auto message = status.message();
    return field_error(ErrorCode::invalid_argument, "scene", "not a valid scene in JSON: " +
                                                  std::string(message.data(), message.size()));
  }
  return scene;
}

std::string scene_to_json(const v1::Scene& scene) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  std::string out;
  // Printing a well-formed message cannot fail.
  (void)google::protobuf::util::MessageToJsonString(scene, &out, options);
  return out;
}

Result<LoadedScene> load_scene(const v1::Scene& scene, const WorldSettings& base, const SceneLimits& limits) {
  // Counted before anything is built, so that refusing a huge scene costs nothing.
  auto too_many = [](const char* list, int count, int limit, const char* flag) {
    return field_error(ErrorCode::resource_exhausted, std::string(list), "the scene holds " + std::to_string(count) +
                                                    ", over the world's limit of " + std::to_string(limit) +
                                                    " (its limits." + flag + ", or the server's --max-" + list + ")");
  };
  if (scene.bodies_size() > limits.bodies) return too_many("bodies", scene.bodies_size(), limits.bodies, "max_bodies");
  if (scene.constraints_size() > limits.constraints)
    return too_many("constraints", scene.constraints_size(), limits.constraints, "max_constraints");
  if (scene.forces_size() > limits.forces) return too_many("forces", scene.forces_size(), limits.forces, "max_forces");

  Result<WorldSettings> settings = settings_from_proto(scene.settings(), base, "settings");
  if (!settings) return settings.error();
  Result<World> created = World::create(settings.value());
  if (!created) return settings_error(created.error(), "settings");
  LoadedScene out{std::move(created.value()), Names{}, Footprint{}};
  World& world = out.world;
  Names& names = out.names;

  for (int i = 0; i < scene.bodies_size(); ++i) {
    const v1::BodyDef& proto = scene.bodies(i);
    const std::string path = indexed("bodies", i);
    if (Status s = names.check_body_name(proto.name()); !s) return prefixed(s.error(), path);
    Result<BodyDef> def = body_from_proto(proto, path);
    if (!def) return def.error();
    Result<BodyId> id = world.add_body(def.value());
    if (!id) return body_error(id.error(), path);
    if (Status s = names.add_body(proto.name(), id.value()); !s) return prefixed(s.error(), path);
  }

  const BodyResolver resolve = resolver(world, names);
  for (int i = 0; i < scene.constraints_size(); ++i) {
    const v1::ConstraintDef& proto = scene.constraints(i);
    const std::string path = indexed("constraints", i);
    if (Status s = names.check_constraint_name(proto.name()); !s) return prefixed(s.error(), path);
    Result<ConstraintDef> def = constraint_from_proto(proto, resolve, path);
    if (!def) return def.error();
    Result<ConstraintId> id = world.add_constraint(def.value(), softness_from_proto(proto));
    if (!id) return constraint_error(id.error(), proto, path);
    if (Status s = names.add_constraint(proto.name(), id.value()); !s) return prefixed(s.error(), path);
  }

  for (int i = 0; i < scene.forces_size(); ++i) {
    const v1::ForceDef& proto = scene.forces(i);
    const std::string path = indexed("forces", i);
    Result<ForceDefAny> def = force_from_proto(proto, resolve, path);
    if (!def) return def.error();
    Result<ForceId> id = std::holds_alternative<SpringDef>(def.value())
                             ? world.add_spring(std::get<SpringDef>(def.value()))
                             : world.apply_force(std::get<ForceDef>(def.value()));
    if (!id) return force_error(id.error(), proto, path);
  }
  out.footprint = Footprint::of(world, names);
  if (out.footprint.bytes() > limits.bytes)
    return Error{ErrorCode::resource_exhausted, footprint_exceeded(out.footprint.bytes(), limits.bytes)};
  return out;
}

v1::Scene save_scene(const World& world, const Names& names, bool include_applied_forces) {
  v1::Scene scene;
  settings_to_proto(world.settings(), scene.mutable_settings());
  const std::unordered_map<BodyId, std::string> scene_name = scene_names(world, names);
  const BodyRefWriter by_name = [&](BodyId id, v1::BodyRef* out) {
    if (!id.is_null()) out->set_name(scene_name.at(id));
  };

  for (BodyId id : world.bodies())
    body_def_to_proto(world.body(id).value(), scene_name.at(id), scene.add_bodies());

  for (ConstraintId id : world.constraints()) {
    ConstraintInfo info = world.constraint(id).value();
    if (auto* t = std::get_if<TrajectoryDef>(&info.def)) t->path = shifted(t->path, world.time());
    constraint_def_to_proto(info.def, info.softness, names.constraint_name(id), by_name, scene.add_constraints());
  }

  for (ForceId id : world.forces()) {
    const ForceInfo info = world.force(id).value();
    if (std::holds_alternative<SpringDef>(info.def) || include_applied_forces)
      force_def_to_proto(info.def, by_name, scene.add_forces());
  }
  return scene;
}

}  // namespace linkage::server
