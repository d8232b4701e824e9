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

#include <cstdint>

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

// A connection may have this many calls open at once beyond the server's
// --max-streams (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS: clients wait for
// a place, and a stream past it is refused): room for every state stream
// the server allows (a gateway's one connection carries all its viewers')
// and for calls beside them. Without it one connection held as many calls
// as it opened (50,000 unanswered GetWorld: 500 MB); the calls of the
// linkage.v1 services are bounded by what they hold unread too
// (host/unread.hpp), gRPC's own (health, reflection) by this alone.
inline constexpr int kCallsBesideStreams = 1024;

// What gRPC may hold for its connections (read buffers, requests still
// arriving, calls), as its resource quota: under that pressure it shrinks
// the windows it grants, and at it cancels calls ("Buffers full") until it
// is under again. Without it a client could send the start of many large
// requests and never finish them: 200 unfinished 16 MB LoadScene requests
// on one connection held 1.9 GB after 30 s, and a connection may have
// 1,280 such calls. <= 0: no quota (gRPC's default).
inline constexpr std::int64_t kDefaultTransportBytes = std::int64_t{512} << 20;

// The connection limits above, on the server's channel arguments.
void limit_connections(grpc::ServerBuilder& builder, int max_streams, std::int64_t max_transport_bytes);

}  // namespace linkage::server
