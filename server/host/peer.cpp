#include "peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstdint>

namespace linkage::server {
namespace {

// A decimal number of at most `max` that is all of `text`.
bool number(std::string_view text, unsigned long max, unsigned long& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && error == std::errc{} && end == text.data() + text.size() && out <= max;
}

}  // namespace

std::string decoded_peer(std::string_view peer) {
  std::string out;
  out.reserve(peer.size());
  const auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  for (std::size_t i = 0; i < peer.size(); ++i) {
    if (peer[i] == '%' && i + 2 < peer.size() && hex(peer[i + 1]) >= 0 && hex(peer[i + 2]) >= 0) {
      out += static_cast<char>(hex(peer[i + 1]) * 16 + hex(peer[i + 2]));
      i += 2;
    } else {
      out += peer[i];
    }
  }
  return out;
}

bool parse_grpc_peer(std::string_view encoded, sockaddr_storage& out) {
  out = {};
  const std::string peer = decoded_peer(encoded);
  const std::string_view name = peer;
  std::string host;
  std::string_view port;
  if (name.starts_with("ipv4:")) {
    const std::size_t colon = name.rfind(':');
    host = name.substr(5, colon - 5);
    port = name.substr(colon + 1);
    auto& in = reinterpret_cast<sockaddr_in&>(out);
    in.sin_family = AF_INET;
    if (::inet_pton(AF_INET, host.c_str(), &in.sin_addr) != 1) return false;
  } else if (name.starts_with("ipv6:[")) {
    const std::size_t close = name.find("]:");
    if (close == std::string_view::npos) return false;
    host = name.substr(6, close - 6);
    port = name.substr(close + 2);
    auto& in6 = reinterpret_cast<sockaddr_in6&>(out);
    in6.sin6_family = AF_INET6;
    const std::size_t zone = host.find('%');
    if (unsigned long scope = 0; zone != std::string::npos && number(std::string_view(host).substr(zone + 1), UINT32_MAX, scope))
      in6.sin6_scope_id = static_cast<std::uint32_t>(scope);
    if (::inet_pton(AF_INET6, host.substr(0, zone).c_str(), &in6.sin6_addr) != 1) return false;
  } else {
    return false;
  }
  unsigned long number_of_port = 0;
  if (!number(port, 65535, number_of_port)) return false;
  const std::uint16_t net = htons(static_cast<std::uint16_t>(number_of_port));
  if (out.ss_family == AF_INET) reinterpret_cast<sockaddr_in&>(out).sin_port = net;
  else reinterpret_cast<sockaddr_in6&>(out).sin6_port = net;
  return true;
}

std::string peer_address(std::string_view peer) {
  if (peer.starts_with("unix:")) return "unix";
  sockaddr_storage address{};
  if (!parse_grpc_peer(peer, address)) return decoded_peer(peer);
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
    return text;
  }
  const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
  if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
    ::inet_ntop(AF_INET, reinterpret_cast<const char*>(&in6.sin6_addr) + 12, text, sizeof text);
    return text;
  }
  ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
  return in6.sin6_scope_id ? std::string(text) + "%" + std::to_string(in6.sin6_scope_id) : std::string(text);
}

}  // namespace linkage::server
