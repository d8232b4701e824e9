#pragma once
// What a connection may hold of the server. Every connection holds a file
// descriptor, and gRPC 1.51's listener stops accepting for good the first
// time accept() finds none left (tcp_server_posix: EMFILE ends its accept
// loop without re-arming it): about a thousand idle TCP connections under
// the usual soft limit of 1024 made the server unreachable until it was
// restarted, though they had closed. So the server takes all the
// descriptors its hard limit allows, and connections that do not speak
// HTTP/2, or stop speaking it, are closed.

#include <grpcpp/server_builder.h>
#include <sys/resource.h>

namespace linkage::server {

// A connection that has not finished its handshake (TLS, the HTTP/2
// preface) by then is closed: gRPC's default waits two minutes.
inline constexpr int kHandshakeTimeoutMs = 10'000;
// A connection with calls under way that does not answer a ping within
// kKeepaliveTimeoutMs of it, sent after kKeepaliveTimeMs without data, is
// dropped (a peer that vanished), and one without any call for
// kMaxConnectionIdleMs is asked to go (GOAWAY: clients reconnect on their
// next call).
inline constexpr int kKeepaliveTimeMs = 60'000;
inline constexpr int kKeepaliveTimeoutMs = 20'000;
inline constexpr int kMaxConnectionIdleMs = 600'000;

struct FileLimit {
  rlim_t before = 0, now = 0, hard = 0;  // RLIMIT_NOFILE's soft limit before and after, and its hard one
};

// Raises the soft limit on open files to the hard one.
FileLimit raise_file_limit();

// The connection limits above, on the server's channel arguments.
void limit_connections(grpc::ServerBuilder& builder);

}  // namespace linkage::server
