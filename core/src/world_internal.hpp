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

inline Error not_found(std::string field, const char* noun, auto id) {
  return field_error(ErrorCode::not_found, std::move(field), id_text(noun, id) + " does not exist (never created, or removed)");
}

// Erases the records (and their data) `gone` picks (asked once a record,
// in order), keeping the order and the ids' dense indices right.
template <class Record, class Data, class Ids, class Gone>
void erase_records(std::vector<Record>& records, std::vector<Data>& data, Ids& ids, Gone gone) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (gone(records[i])) {
      ids.erase(records[i].id);
      continue;
    }
    records[kept] = std::move(records[i]);
    data[kept] = std::move(data[i]);
    ids.set_dense(records[kept].id, static_cast<int>(kept));
    ++kept;
  }
  records.resize(kept);
  data.resize(kept);
}

// Re-derives everything that hangs on the dense body order: offsets, the
// packed q and q̇, and the body indices held by constraints and forces.
// `old_q`/`old_v` are the vectors laid out by the previous offsets.
void relayout(WorldModel& m, WorldData& d, const std::vector<int>& old_offsets);

// The dense index of a body id, −1 for the null id (the world), or an error.
Result<int> body_index(const WorldModel& m, BodyId id, const char* field);

}  // namespace linkage
