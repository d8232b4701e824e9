#pragma once
// Bytes as the server's refusals say them: whole MiB, rounded up, so that a
// little held never reads as nothing.

#include <cstdint>
#include <string>

namespace linkage::server {

inline std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace linkage::server
