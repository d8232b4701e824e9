#pragma once
// A world's footprint: an upper bound on the bytes its bodies, constraints and
// forces take in the largest answers that carry them all, so that the server
// can refuse whatever would make a world too big to list, save or stream.
//
// The answers: a full StreamState frame (every body's definition and its
// state columns, every constraint whole with its λ and error columns, every
// spring), SaveScene (every definition, bodies referred to by name), and
// ListBodies, ListConstraints, ListForces. One object's bound is the most it
// takes in any of them. It is measured on the message the converters build
// for the object as it is (its kind, shape, name, which numbers of its
// definition are zero) but with its state at its worst: every position,
// velocity, angle, λ, error and reaction non-zero and every id at its
// longest. So the bound holds whatever the world does next, and a world whose
// footprint is within `max message bytes − kAnswerOverhead` can always be
// answered whole (the choice over paging: every answer stays one message).
//
// Bounds are computed once per object, when it is created or changed, and
// kept by id index, so that removing a body gives back what the constraints
// and forces removed with it took.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convert/names.hpp"
#include "linkage/linkage.hpp"

namespace linkage::server {

// The longest name SaveScene gives a body that has none: "body-<index>-<k>",
// index and k each at most 10 digits (scene_io.cpp). A body is counted under
// the name it would have in a world loaded from its saved scene, so that such
// a world is never bigger than the one saved.
inline constexpr std::size_t kGeneratedNameLength = 26;

// Room an answer needs besides its objects (a frame's world name, counters,
// diagnostics, settings and column headers; a scene's settings).
inline constexpr std::uint64_t kAnswerOverhead = 4096;

// The footprint a world may reach when answers may be `max_message_bytes` long.
std::uint64_t footprint_limit(std::uint64_t max_message_bytes);
// The message of the RESOURCE_EXHAUSTED that refuses a change which would take
// a world's footprint to `bytes`, over its `limit`.
std::string footprint_exceeded(std::uint64_t bytes, std::uint64_t limit);

class Footprint {
 public:
  // The bound of every object `world` holds (after a scene is loaded or a world restored).
  static Footprint of(const World& world, const Names& names);

  // Bounds of single objects. A body's or constraint's before it is added
  // (from its def; the body's resolved mass, inertia and re-centred polygon
  // taken at their worst) or as it is; a name of `name_length` characters
  // (0: none).
  static std::uint32_t body(const BodyDef& def, std::size_t name_length, int dimension);
  static std::uint32_t body(const BodyInfo& info, std::size_t name_length, int dimension);
  static std::uint32_t constraint(const ConstraintDef& def, const Softness& softness, std::size_t name_length,
                                  int dimension);
  static std::uint32_t force(const ForceDefAny& def);
  // Rows of a constraint of this type in a world of `dimension` (as the core counts them).
  static int rows(const ConstraintDef& def, int dimension);

  std::uint64_t bytes() const { return total_; }
  // The bound recorded for an object (0 if none).
  std::uint32_t of(BodyId id) const { return get(bodies_, id.index); }
  std::uint32_t of(ConstraintId id) const { return get(constraints_, id.index); }
  std::uint32_t of(ForceId id) const { return get(forces_, id.index); }
  // Records an object's bound (replacing what it had), or forgets it.
  void set(BodyId id, std::uint32_t bytes) { put(bodies_, id.index, bytes); }
  void set(ConstraintId id, std::uint32_t bytes) { put(constraints_, id.index, bytes); }
  void set(ForceId id, std::uint32_t bytes) { put(forces_, id.index, bytes); }
  void erase(BodyId id) { put(bodies_, id.index, 0); }
  void erase(ConstraintId id) { put(constraints_, id.index, 0); }
  void erase(ForceId id) { put(forces_, id.index, 0); }
  // Forgets a removed body and everything World::remove_body took with it.
  void erase(BodyId id, const Removed& removed);

 private:
  // Ids are (index, generation) and a live index has one generation, so a
  // table by index holds one bound per live object.
  static std::uint32_t get(const std::vector<std::uint32_t>& table, std::uint32_t index) {
    return index < table.size() ? table[index] : 0;
  }
  void put(std::vector<std::uint32_t>& table, std::uint32_t index, std::uint32_t bytes);

  std::vector<std::uint32_t> bodies_, constraints_, forces_;
  std::uint64_t total_ = 0;
};

}  // namespace linkage::server
