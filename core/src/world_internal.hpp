#pragma once
// Helpers shared by the World's member files.

#include <string>

#include "checks.hpp"
#include "world_data.hpp"

namespace linkage {

template <class Tag>
std::string id_text(const char* noun, Id<Tag> id) {
  return std::string(noun) + " " + std::to_string(id.index) + ":" + std::to_string(id.generation);
}

inline Error not_found(const char* field, const char* noun, auto id) {
  return field_error(ErrorCode::not_found, field, id_text(noun, id) + " does not exist (never created, or removed)");
}

// Re-derives everything that hangs on the dense body order: offsets, the
// packed q and q̇, and the body indices held by constraints and forces.
// `old_q`/`old_v` are the vectors laid out by the previous offsets.
void relayout(WorldModel& m, WorldData& d, const std::vector<int>& old_offsets);

// The dense index of a body id, −1 for the null id (the world), or an error.
Result<int> body_index(const WorldModel& m, BodyId id, const char* field);

}  // namespace linkage
