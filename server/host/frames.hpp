#pragma once
// Snapshots as streams send them: the tick's columns, built once per tick
// for everyone who asked, and each subscriber's changes.

#include <memory>
#include <string>

#include "contact_log.hpp"
#include "linkage/v1/snapshot.pb.h"
#include "world_host.hpp"

namespace linkage::server {

// The most bytes one contact point takes in a frame's columns: four ids'
// varints (5 bytes each at most) and 2 × 3 + 3 doubles.
inline constexpr std::uint64_t kContactPointBytes = 4 * 5 + 9 * 8;

// The columns of this tick; constraint rows, diagnostics and contact points
// only if asked. A frame fits in one message as every answer about the world
// does (its footprint is within the world's max_bytes): the contact points
// are sent up to the room that limit leaves beside the footprint, and
// `contacts_truncated` says when some were left out.
std::shared_ptr<v1::Snapshot> build_frame(const WorldHost::State& s, const std::string& world, bool constraints,
                                          bool diagnostics, bool contacts = false);

// The pairs that began and ended touching, as a subscriber is owed them.
void fill_contact_events(const ContactDelta& delta, v1::Snapshot* out);

// The bodies, constraints and springs a delta names, as they are now (all
// of them for a full delta): added, updated (new definitions and names) and
// removed ones.
void fill_changes(const WorldHost::State& s, const TopologyDelta& delta, v1::TopologyChanges* out);

}  // namespace linkage::server
