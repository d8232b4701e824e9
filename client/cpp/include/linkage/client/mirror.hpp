#pragma once
// A local picture of a world built from its StreamState frames alone.
//
// Each Snapshot carries the topology changes since the subscriber's previous
// frame (the whole topology when `changes.full` is set: the first frame, or
// after falling behind the server's change history): objects added, updated
// (a new definition or name, from UpdateBody, UpdateConstraint, UpdateForce
// or a batch, by any client) and removed. Applying them in order keeps
// bodies, constraints and springs by id without polling ListBodies; the
// frame's columns then refresh each known body's position, angle and
// velocities, so the picture is the world at the frame's tick.
//
// With contacts asked for (SubscribeOptions::contacts), each frame also
// carries its tick's contact points and the pairs that began or ended
// touching since the previous frame: the mirror keeps the points, the
// frame's events and the set of pairs touching, so a client can play a sound
// or score a goal from the events without polling.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "linkage/client/defs.hpp"
#include "linkage/v1/snapshot.pb.h"

namespace linkage::client {

namespace v1 = linkage::v1;

// A contact point of the frame's tick.
struct ContactPoint {
  Id a, b;
  Vec3 point;   // m, world frame, midway between the surfaces
  Vec3 normal;  // unit, from a to b
  double separation = 0.0;       // m (< 0: overlapping)
  double normal_impulse = 0.0;   // N·s along the normal (≥ 0)
  double tangent_impulse = 0.0;  // N·s of friction, along the normal turned +90°
};

// Two bodies that began (or stopped) touching after the world's step (or a
// command) at `tick`; the lower id first.
struct ContactChange {
  bool begin = true;
  std::uint64_t tick = 0;
  Id a, b;
};

class WorldMirror {
 public:
  // Applies one frame, in stream order.
  void apply(const v1::Snapshot& frame);

  const std::map<Id, v1::Body>& bodies() const { return bodies_; }
  const std::map<Id, v1::Constraint>& constraints() const { return constraints_; }
  const std::map<Id, v1::Force>& springs() const { return springs_; }
  std::optional<Id> body_named(const std::string& name) const;
  // The world's settings as the stream last sent them (every stream's
  // first frame carries them, and every frame after a change).
  const v1::WorldSettings& settings() const { return settings_; }

  std::uint64_t tick() const { return tick_; }
  double time() const { return time_; }
  std::uint64_t topology_version() const { return topology_version_; }
  std::uint64_t frames() const { return frames_; }

  // The last frame's contact points (empty without contacts asked for).
  const std::vector<ContactPoint>& contacts() const { return contacts_; }
  // The last frame's begin and end events, in the order they happened.
  const std::vector<ContactChange>& contact_changes() const { return contact_changes_; }
  // The pairs touching as of the last frame, lower id first, kept from the events.
  const std::set<std::pair<Id, Id>>& touching() const { return touching_; }
  // Changes that did not fit the picture (a body added twice, an unknown one
  // removed or updated, a pair beginning twice or ending untouched): 0
  // unless the stream and this mirror disagree.
  std::uint64_t inconsistencies() const { return inconsistencies_; }

 private:
  void apply_contacts(const v1::Snapshot& frame);

  std::map<Id, v1::Body> bodies_;
  std::map<Id, v1::Constraint> constraints_;
  std::map<Id, v1::Force> springs_;
  v1::WorldSettings settings_;
  std::vector<ContactPoint> contacts_;
  std::vector<ContactChange> contact_changes_;
  std::set<std::pair<Id, Id>> touching_;
  std::uint64_t tick_ = 0, topology_version_ = 0, frames_ = 0, inconsistencies_ = 0;
  double time_ = 0.0;
};

}  // namespace linkage::client
