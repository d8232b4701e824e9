#pragma once
// CRC-32 (IEEE 802.3, the polynomial of zlib, PNG and gzip): the checksum of
// every journal record and checkpoint, which tells a torn or corrupt tail
// from a good one.

#include <cstdint>
#include <string_view>

namespace linkage::server::durable {

std::uint32_t crc32(std::string_view bytes);

}  // namespace linkage::server::durable
