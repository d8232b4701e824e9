#pragma once
// Scenes: a whole world as a linkage.v1.Scene, and its JSON form (the
// scenes/*.json files). In a scene, bodies are referred to by name.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "convert/footprint.hpp"
#include "convert/names.hpp"
#include "linkage/linkage.hpp"
#include "linkage/v1/scene.pb.h"

namespace linkage::server {

// Parses a scene's proto3 JSON (field names in either proto or lowerCamel
// form; unknown fields are an error, so a typo is caught rather than ignored).
// INVALID_ARGUMENT with the parser's message.
Result<v1::Scene> parse_scene_json(std::string_view json);
// Pretty-printed, fields by their proto names; fields at their defaults are left out.
std::string scene_to_json(const v1::Scene& scene);

struct LoadedScene {
  World world;
  Names names;
  Footprint footprint;
};

// The most a world loaded from a scene may hold (a server's limits); by
// default, anything.
struct SceneLimits {
  int bodies = std::numeric_limits<int>::max();
  int constraints = std::numeric_limits<int>::max();
  int forces = std::numeric_limits<int>::max();
  std::uint64_t bytes = std::numeric_limits<std::uint64_t>::max();  // its footprint
};

// A fresh world from the scene: its settings over `base`, then its bodies
// (with their names), constraints (bodies by name; names; softness) and
// forces, in order. All or nothing: the first error is returned, naming the
// element, e.g. "bodies[3].mass: ..." or "constraints[2].distance.b: no body
// named 'x'". A scene with more bodies, constraints or forces than `limits`
// allow is refused (RESOURCE_EXHAUSTED) before anything is built, one whose
// world's footprint is over them once it is built.
Result<LoadedScene> load_scene(const v1::Scene& scene, const WorldSettings& base = {},
                               const SceneLimits& limits = {});

// The world as a scene that load_scene turns back into the same bodies,
// constraints and springs in the same order and the same state, bit for bit
// (positions, angles, velocities; every "current" value written out). Every
// body gets a name in the scene: its own, or a generated unique one
// ("body-<index>", at most kGeneratedNameLength characters); references are
// by these names.
// What a scene does not carry: the world's time (a loaded scene starts at
// t = 0; trajectories are shifted so that they continue where they were),
// warm-start multipliers (an iterative solver's first steps after a load may
// differ in the last bits), and ids. Applied forces are left out unless asked
// for: they are mostly a client's passing push or drag, not part of the
// mechanism, and a scene is what Reset returns to.
v1::Scene save_scene(const World& world, const Names& names, bool include_applied_forces = false);

}  // namespace linkage::server
