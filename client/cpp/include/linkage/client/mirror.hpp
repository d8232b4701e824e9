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

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "linkage/client/defs.hpp"
#include "linkage/v1/snapshot.pb.h"

namespace linkage::client {

namespace v1 = linkage::v1;

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
  // Changes that did not fit the picture (a body added twice, an unknown one
  // removed or updated): 0 unless the stream and this mirror disagree.
  std::uint64_t inconsistencies() const { return inconsistencies_; }

 private:
  std::map<Id, v1::Body> bodies_;
  std::map<Id, v1::Constraint> constraints_;
  std::map<Id, v1::Force> springs_;
  v1::WorldSettings settings_;
  std::uint64_t tick_ = 0, topology_version_ = 0, frames_ = 0, inconsistencies_ = 0;
  double time_ = 0.0;
};

}  // namespace linkage::client
