#pragma once
// Which body pairs touch, and when that changed, numbered, so that each
// stream that asked for contacts is told every pair that began or ended
// touching since the last frame it received, however many frames it skipped
// (a pair that touched for one tick between two of its frames is a begin
// and an end in the second). Kept like the change records (change_log.hpp):
// one log per world, each subscriber remembers the version it has seen.
//
// A pair touches while World::contacts() lists a point of it (found within
// the world's contact margin, so a begin comes as the bodies are about to
// meet). Tick thread only.

#include <cstdint>
#include <deque>
#include <vector>

#include "linkage/ids.hpp"
#include "linkage/world.hpp"

namespace linkage::server {

// Two bodies that touch, the lower id first (by index, then generation):
// the core may list a pair either way round from one step to the next.
struct ContactPair {
  BodyId a, b;
  friend bool operator==(const ContactPair&, const ContactPair&) = default;
  friend auto operator<=>(const ContactPair&, const ContactPair&) = default;
};

struct ContactEvent {
  std::uint64_t tick = 0;  // the world's tick after which the pair began (or ended) touching
  bool begin = true;       // false: ended
  ContactPair pair;
};

struct ContactDelta {
  // true: the subscriber's version is older than the log keeps (or it has
  // none): `events` are a begin for every pair touching now, with the tick it
  // began, and replace whatever the subscriber knew.
  bool full = false;
  std::vector<ContactEvent> events;  // in the order they happened
};

class ContactLog {
 public:
  ContactLog() = default;
  explicit ContactLog(std::size_t capacity) : capacity_(capacity) {}

  std::uint64_t version() const { return version_; }
  // Records the pairs of `contacts` that were not there at the last call
  // (begins) and those gone since (ends), at `tick`.
  void observe(std::uint64_t tick, const std::vector<ContactInfo>& contacts);
  // No stream wants contacts: forgets the pairs and the history (so a world
  // no one follows pays nothing), and later subscribers start afresh.
  void clear();
  // What happened after `version` (0: nothing seen yet).
  ContactDelta since(std::uint64_t version) const;

 private:
  struct Touching {
    ContactPair pair;
    std::uint64_t since;  // the tick it began
  };
  struct Entry {
    std::uint64_t version;
    ContactEvent event;
  };

  std::size_t capacity_ = 1 << 16;
  std::vector<Touching> touching_;  // sorted by pair
  std::deque<Entry> entries_;
  std::uint64_t version_ = 1;
  // Versions below this are not all in the log: asking for one gets a full delta.
  std::uint64_t horizon_ = 1;
  std::vector<Touching> scratch_;  // the pairs of the call under way
};

}  // namespace linkage::server
