#pragma once
// A world's limits as CreateWorld and UpdateWorld take them: each set field
// within the server's (its flags), and an update never below what the world
// holds now.

#include "host/registry.hpp"
#include "linkage/v1/world.pb.h"

namespace linkage::server {

// The server's per-world limits with the fields `asked` sets; INVALID_ARGUMENT
// "limits.<field>: ..." for a value out of range.
Result<Limits> limits_from_proto(const v1::WorldLimits& asked, const ServerLimits& server);

// The world's limits with the fields `asked` sets; FAILED_PRECONDITION for a
// count below what it holds.
Result<Limits> updated_limits(const v1::WorldLimits& asked, const ServerLimits& server, const HostedWorld& world);

}  // namespace linkage::server
