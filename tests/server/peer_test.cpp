// gRPC's peer strings (server/host/peer.hpp): the address an unread answer
// counts against, and the socket address the listener matches.
#include "host/peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

namespace linkage::server {
namespace {

TEST(PeerAddress, IsTheAddressWithoutItsPort) {
  EXPECT_EQ(peer_address("ipv4:10.0.0.7:51234"), "10.0.0.7");
  EXPECT_EQ(peer_address("ipv6:[::1]:51234"), "::1");
  EXPECT_EQ(peer_address("ipv6:%5B::1%5D:51234"), "::1");  // as gRPC 1.51 writes it
  EXPECT_EQ(peer_address("ipv6:%5Bfe80::1%2511%5D:7"), "fe80::1%11");
  EXPECT_EQ(peer_address("ipv6:[2001:db8::5]:1"), "2001:db8::5");
  EXPECT_EQ(peer_address("ipv6:[::ffff:10.0.0.7]:1"), "10.0.0.7");  // as the listener counts it
  EXPECT_EQ(peer_address("unix:/run/linkage.sock"), "unix");
  EXPECT_EQ(peer_address("unix:"), "unix");
}

TEST(PeerAddress, PercentEscapesAreDecodedAndBrokenOnesKept) {
  EXPECT_EQ(decoded_peer("ipv6:%5B::1%5d:1"), "ipv6:[::1]:1");
  EXPECT_EQ(decoded_peer("a%2"), "a%2");
  EXPECT_EQ(decoded_peer("a%zz"), "a%zz");
}

TEST(PeerAddress, ANameThatIsNoAddressIsItself) {
  EXPECT_EQ(peer_address("ipv4:10.0.0.300:1"), "ipv4:10.0.0.300:1");
  EXPECT_EQ(peer_address("ipv6:%5B::1"), "ipv6:[::1");
  EXPECT_EQ(peer_address("ipv4:10.0.0.7:65536"), "ipv4:10.0.0.7:65536");
}

TEST(ParseGrpcPeer, GivesTheSocketAddressAndPort) {
  sockaddr_storage a{};
  ASSERT_TRUE(parse_grpc_peer("ipv4:10.0.0.7:51234", a));
  ASSERT_EQ(a.ss_family, AF_INET);
  const auto& in = reinterpret_cast<const sockaddr_in&>(a);
  EXPECT_EQ(ntohs(in.sin_port), 51234);
  EXPECT_EQ(ntohl(in.sin_addr.s_addr), 0x0a000007u);
  ASSERT_TRUE(parse_grpc_peer("ipv6:%5B::1%5D:7", a));
  ASSERT_EQ(a.ss_family, AF_INET6);
  const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
  EXPECT_EQ(ntohs(in6.sin6_port), 7);
  EXPECT_TRUE(IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr));
  ASSERT_TRUE(parse_grpc_peer("ipv6:[fe80::1%2511]:7", a));
  EXPECT_EQ(reinterpret_cast<const sockaddr_in6&>(a).sin6_scope_id, 11u);
  for (const char* bad : {"unix:/run/linkage.sock", "ipv4:10.0.0.7", "ipv4:10.0.0.7:", "ipv4:10.0.0.7:x1",
                          "ipv4:10.0.0.7:70000", "ipv6:[::1]", "ipv6:::1:5", "ipv4:nowhere:5", ""})
    EXPECT_FALSE(parse_grpc_peer(bad, a)) << bad;
}

}  // namespace
}  // namespace linkage::server
