#pragma once
// gRPC's names for its peers ("ipv4:10.0.0.7:5123", "ipv6:%5B::1%5D:5123",
// "unix:/run/linkage.sock"), read once for everything the server keys by
// client: the address an unread answer counts against and the connection
// the listener closes.

#include <sys/socket.h>

#include <string>
#include <string_view>

namespace linkage::server {

// gRPC's name of a peer as written: its peer strings are URIs, with the
// brackets of an IPv6 address percent-encoded ("ipv6:%5B::1%5D:5123").
std::string decoded_peer(std::string_view peer);

// A TCP peer's socket address ("ipv4:A:PORT", "ipv6:[A]:PORT", encoded or
// not; a numeric IPv6 zone, "%11", as its scope id); false for anything
// else ("unix:", a malformed name).
bool parse_grpc_peer(std::string_view peer, sockaddr_storage& out);

// The address in a gRPC peer string, without the port: "ipv4:10.0.0.7:5123"
// is "10.0.0.7", "ipv6:%5B::1%5D:5123" (or "ipv6:[::1]:5123") is "::1", an
// IPv4 address mapped into IPv6 is the IPv4 address (as the listener counts
// connections), every "unix:" peer is "unix", and a name that is none of
// these is itself, decoded.
std::string peer_address(std::string_view peer);

}  // namespace linkage::server
