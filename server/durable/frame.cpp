#include "frame.hpp"

#include "crc32.hpp"

namespace linkage::server::durable {
namespace {

void put_u32(std::uint32_t v, std::string& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}

std::uint32_t get_u32(std::string_view b) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[i])) << (8 * i);
  return v;
}

}  // namespace

void append_frame(std::string_view payload, std::string& out) {
  put_u32(static_cast<std::uint32_t>(payload.size()), out);
  put_u32(crc32(payload), out);
  out.append(payload);
}

FrameReader::FrameReader(std::string_view bytes, std::string_view magic) : bytes_(bytes) {
  if (bytes_.substr(0, magic.size()) == magic) {
    good_ = magic.size();
  } else {
    damage_ = "the file does not start with " + std::string(magic);
    bytes_ = {};
  }
}

FrameReader::Next FrameReader::damaged(std::string what) {
  damage_ = std::move(what) + " at byte " + std::to_string(good_) + " (" + std::to_string(bytes_.size() - good_) +
            " bytes from there on are not used)";
  return Next::damaged;
}

FrameReader::Next FrameReader::next(std::string_view& payload) {
  if (!damage_.empty()) return Next::damaged;
  if (good_ == bytes_.size()) return Next::end;
  const std::string_view rest = bytes_.substr(good_);
  if (rest.size() < kFrameHeader) return damaged("a record header cut short");
  const std::uint32_t length = get_u32(rest);
  if (length > kMaxRecord) return damaged("a record length of " + std::to_string(length) + " bytes");
  if (rest.size() - kFrameHeader < length) return damaged("a record cut short");
  const std::string_view body = rest.substr(kFrameHeader, length);
  if (crc32(body) != get_u32(rest.substr(4))) return damaged("a record whose checksum does not match");
  payload = body;
  good_ += kFrameHeader + length;
  return Next::record;
}

}  // namespace linkage::server::durable
