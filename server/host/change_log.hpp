#pragma once
// The changes to one world's objects (and settings), numbered, so that each
// subscriber can be told exactly what changed since the last frame it
// received, however many frames it skipped. Ids are never reused, so an id
// added and removed within one span nets to nothing, and an object added or
// updated several times within one span is sent once, as it is now.

#include <cstdint>
#include <deque>
#include <vector>

#include "linkage/ids.hpp"

namespace linkage::server {

struct TopologyDelta {
  // true: the subscriber must replace its picture with the whole topology
  // (its version is older than the log keeps, or the world was replaced).
  bool full = false;
  // Each id is in at most one list of its kind: an object added and updated
  // is "added", one updated and removed is "removed".
  std::vector<BodyId> added_bodies{}, updated_bodies{}, removed_bodies{};
  std::vector<ConstraintId> added_constraints{}, updated_constraints{}, removed_constraints{};
  std::vector<ForceId> added_springs{}, updated_springs{}, removed_springs{};
  bool settings = false;  // the world's settings changed
};

class ChangeLog {
 public:
  ChangeLog() = default;
  explicit ChangeLog(std::size_t capacity) : capacity_(capacity) {}

  std::uint64_t version() const { return version_; }

  void added(BodyId id) { record(Kind::body, Op::added, id.index, id.generation); }
  // A new definition (or name) for an object that stays.
  void updated(BodyId id) { record(Kind::body, Op::updated, id.index, id.generation); }
  void removed(BodyId id) { record(Kind::body, Op::removed, id.index, id.generation); }
  void added(ConstraintId id) { record(Kind::constraint, Op::added, id.index, id.generation); }
  void updated(ConstraintId id) { record(Kind::constraint, Op::updated, id.index, id.generation); }
  void removed(ConstraintId id) { record(Kind::constraint, Op::removed, id.index, id.generation); }
  void added_spring(ForceId id) { record(Kind::spring, Op::added, id.index, id.generation); }
  void updated_spring(ForceId id) { record(Kind::spring, Op::updated, id.index, id.generation); }
  void removed_spring(ForceId id) { record(Kind::spring, Op::removed, id.index, id.generation); }
  void settings_changed() { record(Kind::settings, Op::updated, 0, 0); }
  // The whole world was replaced (a scene loaded, a reset).
  void replaced();

  // What changed after `version`.
  TopologyDelta since(std::uint64_t version) const;

 private:
  enum class Kind : std::uint8_t { body, constraint, spring, settings };
  enum class Op : std::uint8_t { added, updated, removed };
  struct Entry {
    std::uint64_t version;
    Kind kind;
    Op op;
    std::uint32_t index, generation;
  };
  void record(Kind kind, Op op, std::uint32_t index, std::uint32_t generation);

  std::size_t capacity_ = 4096;
  std::deque<Entry> entries_;
  std::uint64_t version_ = 1;
  // Versions up to here are not in the log: asking for one gets a full delta.
  std::uint64_t horizon_ = 1;
};

}  // namespace linkage::server
