#pragma once
// Mapping between the linkage.v1 messages and the core's def structs.
//
// *_from_proto validates only what the core cannot see (a proto field the
// core has no notion of, an enum value out of range, a tick rate, an unknown
// body name) and fills the core def; the world validates the rest when the
// def is added. Every error message starts with the proto field path, given
// by the caller as `path` ("constraint", "bodies[3]", ...). The core's own
// errors name the def's field only ("length: must be > 0"); the *_error
// helpers below turn them into the same paths ("constraint.distance.length:
// ...") so that a client sees one style whichever layer refused.
//
// proto3 JSON and binary both map unset messages to their defaults, so an
// unset Vec3 is (0, 0, 0) except where noted (axis: x, normal: z).

#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "convert/names.hpp"
#include "linkage/linkage.hpp"
#include "linkage/v1/body.pb.h"
#include "linkage/v1/constraint.pb.h"
#include "linkage/v1/force.pb.h"
#include "linkage/v1/types.pb.h"
#include "linkage/v1/world.pb.h"

namespace linkage::server {

// --- errors ---

// `error` with "<path>." put in front of its message ("<path>: " if the
// message has no field of its own). The code is kept.
Error prefixed(Error error, std::string_view path);
// A core error from World::add_body / update_body for a body def found at
// `path`: core field names become proto paths ("shape.radius" →
// "<path>.shape.disk.radius").
Error body_error(Error error, std::string_view path = "body");
// A core error from add_constraint / update_constraint / set_softness for
// `def` at `path`: "length: ..." → "<path>.distance.length: ...",
// "softness.frequency: ..." → "<path>.softness.frequency: ...".
Error constraint_error(Error error, const v1::ConstraintDef& def, std::string_view path = "constraint");
// A core error from add_spring / update_spring / apply_force for `def`.
Error force_error(Error error, const v1::ForceDef& def, std::string_view path = "force");
// A core error from World::create / set_settings.
Error settings_error(Error error, std::string_view path = "settings");

// --- ids and vectors ---

Vec3 vec_from_proto(const v1::Vec3& v);
void vec_to_proto(const Vec3& v, v1::Vec3* out);
template <class Tag>
Id<Tag> id_from_proto(const v1::Id& id) {
  return {id.index(), id.generation()};
}
template <class Tag>
void id_to_proto(Id<Tag> id, v1::Id* out) {
  out->set_index(id.index);
  out->set_generation(id.generation);
}

// --- settings ---

// Unset fields keep `base`; *_UNSPECIFIED enums keep base's value. Checks the
// tick rate (> 0 and ≤ 10000 Hz) and enum ranges; the rest is for
// World::create / set_settings (wrap their error in settings_error).
Result<WorldSettings> settings_from_proto(const v1::WorldSettings& proto, const WorldSettings& base,
                                          std::string_view path = "settings");
// Fills every field. tick_rate is 1/dt, rounded to an integer rate when that
// maps back to exactly the same dt (so 60 Hz saves as 60, not 59.99999999).
void settings_to_proto(const WorldSettings& settings, v1::WorldSettings* out);

// --- bodies ---

// The most vertices a polygon may have: the server's cap, so that a body's
// size in every answer is bounded (a disk is the round shape).
inline constexpr int kMaxPolygonVertices = 64;

// density 0 → 1; unset shape → none; polygon vertices from x, y (z must be 0,
// at most kMaxPolygonVertices). Every number must be finite.
Result<BodyDef> body_from_proto(const v1::BodyDef& proto, std::string_view path = "body");
// The def carries the current state and the resolved mass and inertia (and
// density 0), so body_from_proto(def) recreates the same body exactly.
void body_to_proto(const BodyInfo& info, std::string_view name, v1::Body* out);
void body_def_to_proto(const BodyInfo& info, std::string_view name, v1::BodyDef* out);

// --- body references ---

// Maps a reference at proto field `field` to a body id: the empty reference
// (and the null id, and the empty name) is the null id, i.e. the world.
using BodyResolver = std::function<Result<BodyId>(const v1::BodyRef& ref, std::string_view field)>;
// Resolves ids against `world` (NOT_FOUND if it does not hold them) and names
// against `names` (NOT_FOUND "<field>: no body named 'x'"). Keeps references
// to both: use it while they live.
BodyResolver resolver(const World& world, const Names& names);
// Writes a body as a reference; save_scene writes names, the services ids.
using BodyRefWriter = std::function<void(BodyId id, v1::BodyRef* out)>;
BodyRefWriter ids_as_refs();

// --- constraints ---

// All 12 types. Unset optional numbers → kCurrent (measured when added),
// unset max_force → unlimited, unset axis → x, unset normal → z. An empty
// oneof is INVALID_ARGUMENT "<path>: no type set". Softness is separate:
// World::add_constraint(def, softness_from_proto(proto)).
Result<ConstraintDef> constraint_from_proto(const v1::ConstraintDef& proto, const BodyResolver& resolve,
                                            std::string_view path = "constraint");
Softness softness_from_proto(const v1::ConstraintDef& proto);
// "distance", "point_on_line", ...: the oneof field's name ("" if none is set).
std::string_view constraint_type_field(const v1::ConstraintDef& proto);
// The def (every value set, max_force left unset when unlimited), softness
// and name; bodies written by `ref`.
void constraint_def_to_proto(const ConstraintDef& def, const Softness& softness, std::string_view name,
                             const BodyRefWriter& ref, v1::ConstraintDef* out);
// The whole constraint as the services answer it: bodies as ids, name, softness,
// λ, error, error rate and reactions. A trajectory's one body is its first, so
// its reaction is in force_on_a / torque_on_a.
void constraint_to_proto(const ConstraintInfo& info, const World& world, const Names& names, v1::Constraint* out);
// The same, named `name`.
void constraint_to_proto(const ConstraintInfo& info, std::string_view name, v1::Constraint* out);

// --- forces ---

// A spring (unset rest_length → the distance when added; a set one must be
// ≥ 0) or an applied force (ticks → ForceDef::steps; 0: until removed).
Result<ForceDefAny> force_from_proto(const v1::ForceDef& proto, const BodyResolver& resolve,
                                     std::string_view path = "force");
Result<ImpulseDef> impulse_from_proto(const v1::Impulse& proto, const BodyResolver& resolve,
                                      std::string_view path = "impulse");
void force_def_to_proto(const ForceDefAny& def, const BodyRefWriter& ref, v1::ForceDef* out);
// Bodies as ids; an applied force's ticks and ticks_left are the steps it
// still has to act (0: until removed).
void force_to_proto(const ForceInfo& info, v1::Force* out);

}  // namespace linkage::server
