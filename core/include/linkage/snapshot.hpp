#pragma once
// A saved world as bytes, for a file or a message: what a checkpoint keeps.
//
// The bytes hold the model and the dynamic state (bodies, constraints with λ
// and warm starts, forces with their steps left, ids with their generations,
// time, settings, the last diagnostics), behind a header with a format
// version and a checksum. They leave out the step's caches (evaluated rows,
// factorizations), which decide the next steps' round-off: a world restored
// from them starts cold. World::clear_caches makes a running world start
// cold too, so that it and its restored copy continue bit-identically.
//
// Decoding never trusts its input: a truncated, corrupt or inconsistent
// buffer is an Error (invalid_argument) naming what is wrong, never a crash.
// The byte order is the machine's (checked on decoding).

#include <string>
#include <string_view>

#include "linkage/result.hpp"
#include "linkage/world.hpp"

namespace linkage {

// The format's version: decode reads this one only.
inline constexpr unsigned kSnapshotFormat = 2;

std::string encode(const WorldState& state);
Result<WorldState> decode(std::string_view bytes);

}  // namespace linkage
