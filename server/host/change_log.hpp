#pragma once
// The topology (and settings) changes of one world, numbered, so that each subscriber can
// be told exactly what changed since the last frame it received, however
// many frames it skipped. Ids are never reused, so an id added and removed
// within one span nets to nothing.

#include <cstdint>
#include <deque>
#include <vector>

#include "linkage/ids.hpp"

namespace linkage::server {

struct TopologyDelta {
  // true: the subscriber must replace its picture with the whole topology
  // (its version is older than the log keeps, or the world was replaced).
  bool full = false;
  std::vector<BodyId> added_bodies{}, removed_bodies{};
  std::vector<ConstraintId> added_constraints{}, removed_constraints{};
  std::vector<ForceId> added_springs{}, removed_springs{};
  bool settings = false;  // the world's settings changed
};

class ChangeLog {
 public:
  ChangeLog() = default;
  explicit ChangeLog(std::size_t capacity) : capacity_(capacity) {}

  std::uint64_t version() const { return version_; }

  void added(BodyId id) { record(Kind::body, true, id.index, id.generation); }
  void removed(BodyId id) { record(Kind::body, false, id.index, id.generation); }
  void added(ConstraintId id) { record(Kind::constraint, true, id.index, id.generation); }
  void removed(ConstraintId id) { record(Kind::constraint, false, id.index, id.generation); }
  void added_spring(ForceId id) { record(Kind::spring, true, id.index, id.generation); }
  void removed_spring(ForceId id) { record(Kind::spring, false, id.index, id.generation); }
  void settings_changed() { record(Kind::settings, true, 0, 0); }
  // The whole world was replaced (a scene loaded, a reset).
  void replaced();

  // What changed after `version`.
  TopologyDelta since(std::uint64_t version) const;

 private:
  enum class Kind : std::uint8_t { body, constraint, spring, settings };
  struct Entry {
    std::uint64_t version;
    Kind kind;
    bool added;
    std::uint32_t index, generation;
  };
  void record(Kind kind, bool added, std::uint32_t index, std::uint32_t generation);

  std::size_t capacity_ = 4096;
  std::deque<Entry> entries_;
  std::uint64_t version_ = 1;
  // Versions up to here are not in the log: asking for one gets a full delta.
  std::uint64_t horizon_ = 1;
};

}  // namespace linkage::server
