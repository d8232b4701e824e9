#pragma once
// The framing of the data directory's files: a file is a magic string, then
// records, each
//
//   length   4 bytes, little-endian: the payload's size (at most kMaxRecord)
//   crc      4 bytes, little-endian: CRC-32 of the payload
//   payload  `length` bytes (a serialized durable.Record or durable.Checkpoint)
//
// so that a reader finds where good data ends: a short header, a length past
// the end or beyond kMaxRecord, or a checksum that does not match is a
// damaged tail (a write torn by a crash, or a corrupt disk), and everything
// before it is good.

#include <cstdint>
#include <string>
#include <string_view>

namespace linkage::server::durable {

// The first bytes of a journal and of a checkpoint file (format version 1).
inline constexpr std::string_view kJournalMagic = "lnkjrnl1";
inline constexpr std::string_view kCheckpointMagic = "lnkckpt1";
// The largest payload a record may have: a scene at the largest
// --max-message-bytes the server takes, with room to spare.
inline constexpr std::uint32_t kMaxRecord = 1u << 30;
inline constexpr std::size_t kFrameHeader = 8;

// Appends one framed record holding `payload` to `out`.
void append_frame(std::string_view payload, std::string& out);

// Reads the records of a file's bytes one by one.
class FrameReader {
 public:
  enum class Next { record, end, damaged };

  // `bytes` must start with `magic` (else the first next() is `damaged`).
  FrameReader(std::string_view bytes, std::string_view magic);

  // The next record's payload into `payload`; `end` exactly at the end of the
  // bytes; `damaged` when what follows is not a whole, intact record (then
  // good_bytes() is where the good data ends, and damage() says what is wrong).
  Next next(std::string_view& payload);
  // Bytes from the start of the file through the last good record.
  std::size_t good_bytes() const { return good_; }
  const std::string& damage() const { return damage_; }

 private:
  Next damaged(std::string what);

  std::string_view bytes_;
  std::size_t good_ = 0;
  std::string damage_;
};

}  // namespace linkage::server::durable
