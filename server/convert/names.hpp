#pragma once
// Names of a world's bodies and constraints. The core knows only ids; clients
// and scene files also name things, so the server keeps one Names per world
// beside its World, and updates it with every create and remove.
//
// A name is optional (the empty name means "none") and unique per world among
// bodies, and separately among constraints. Allowed: letters, digits, '-',
// '_' and '.', 1 to 64 characters, like world names; but not digits alone
// (`3` reads as an index in linkctl and the clients, as `3:1` reads as an id)
// nor `world` (the fixed frame where a body reference allows it).
//
// Errors name the field "name" only; callers prefix the path of the message
// the name came from (e.g. "body.name: ..."), see prefixed() in convert.hpp.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "linkage/ids.hpp"
#include "linkage/result.hpp"

namespace linkage {
class World;
struct Removed;
}  // namespace linkage

namespace linkage::server {

// INVALID_ARGUMENT "name: ..." unless `name` is 1–64 allowed characters and
// reads as nothing else.
Status check_name(std::string_view name);

// `text` for an error message: in single quotes, cut to its first 64
// characters (with how long it was) so that a long name cannot turn the
// real error into an oversized status, and with anything but printable
// ASCII written as \xNN.
std::string quote(std::string_view text);

class Names {
 public:
  // --- bodies ---
  // Whether `name` could be given to a new body: empty (no name) or valid and
  // unused. Does not change anything; for checking a batch before applying it.
  Status check_body_name(std::string_view name) const;
  // Names body `id`; an empty name does nothing. Fails with INVALID_ARGUMENT
  // for a malformed name and FAILED_PRECONDITION for a name already in use.
  Status add_body(std::string_view name, BodyId id);
  void remove_body(BodyId id);
  std::optional<BodyId> find_body(std::string_view name) const;
  // The body's name, or "" if it has none. Valid until the next change.
  std::string_view body_name(BodyId id) const;

  // --- constraints ---
  Status check_constraint_name(std::string_view name) const;
  Status add_constraint(std::string_view name, ConstraintId id);
  void remove_constraint(ConstraintId id);
  std::optional<ConstraintId> find_constraint(std::string_view name) const;
  std::string_view constraint_name(ConstraintId id) const;

  // Forgets a removed body and everything World::remove_body took with it.
  void remove(BodyId id, const Removed& removed);
  // Forgets every name whose id the world no longer holds (a safety net after
  // a restore or any change made behind the names' back).
  void prune(const World& world);
  void clear();

  std::size_t named_bodies() const { return bodies_.by_name.size(); }
  std::size_t named_constraints() const { return constraints_.by_name.size(); }

 private:
  // One bidirectional map per kind of thing named; they differ only in the id type.
  template <class Id>
  struct NameMap {
    std::unordered_map<std::string, Id> by_name;
    std::unordered_map<Id, std::string> by_id;

    Status check(std::string_view name) const;
    Status add(std::string_view name, Id id);
    void remove(Id id);
    std::optional<Id> find(std::string_view name) const;
    std::string_view name(Id id) const;
  };
  NameMap<BodyId> bodies_;
  NameMap<ConstraintId> constraints_;
};

}  // namespace linkage::server
