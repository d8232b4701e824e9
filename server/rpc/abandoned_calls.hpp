#pragma once
// Connections whose client abandons calls as fast as it opens them.
//
// HTTP/2 lets a client open a call and reset it at once, over and over
// ("rapid reset", CVE-2023-44487), and gRPC 1.51 (Debian 12's) has no
// defence: each such call is still created, queued for a callback thread
// and run through the interceptors, so a client that resets calls faster
// than those threads run them builds a queue without bound. One connection
// resetting 10,000 calls a second for 30 s grew linkaged to 6.3 GB and kept
// it busy 90 s after it went, while other clients' calls waited over 5 s.
// So every call that ends cancelled (reset by its client, or past its
// deadline) or whose request never arrived counts against its connection,
// and a connection past `burst` such calls at once, given back at
// `per_second`, is closed (Listener::close_connection), which ends its
// queued calls at once. A client that cancels now and then never comes near.

#include <grpcpp/support/server_interceptor.h>

#include <functional>
#include <memory>
#include <string>

namespace linkage::server {

struct AbandonLimit {
  double burst = 2000;       // abandoned calls a connection may have made at once
  double per_second = 200;   // and the rate it may go on at
};

// `close(grpc_peer, why)` closes a connection (called once per connection
// past the limit, from gRPC's threads).
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> abandoned_calls_interceptor(
    std::function<void(const std::string&, const std::string&)> close, AbandonLimit limit = {});

}  // namespace linkage::server
