#pragma once
// linkaged's own accept loop for TCP addresses. gRPC 1.51's listener ends
// its accept loop for good the first time accept() finds no file
// descriptor left (tcp_server_posix: EMFILE is not retried), so enough
// connections, even idle ones that later closed, made the server
// unreachable until a restart. Here the server accepts, and hands each
// connection to gRPC (ExternalConnectionAcceptor, with the server's
// credentials: TLS as on any port). The loop never stops on an error of
// accept(); and connections past `max_connections`, or past
// `max_per_peer` from one address, are closed as they come, so that they
// cannot take the descriptors the server needs for its own files (a data
// directory's journals) nor all the places other clients need.

#include <grpcpp/server_builder.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "linkage/result.hpp"

namespace linkage::server {

struct ListenerLimits {
  int max_connections = 1;  // open at once, at least 1 (connection_limit() makes it from --max-connections)
  int max_per_peer = 0;     // open at once from one address; 0: no limit
};

// Descriptors kept for the server's own files (journals, checkpoints,
// scene files, gRPC's own) when max_connections follows the file limit.
inline constexpr int kReservedFiles = 256;

// Connections handed to gRPC and refused (and why) since the listener
// started, and those open now (handed and not yet closed). Shared, so that
// a reader (the metrics' scrape) may outlive the listener.
struct ListenerCounters {
  std::atomic<std::uint64_t> accepted{0}, over_limit{0}, over_peer_limit{0}, out_of_files{0};
  std::atomic<std::uint64_t> closed{0};  // by close_connection
  std::atomic<int> open{0};
};

class Listener {
 public:
  // Binds and listens on `address` (host:port, [v6]:port; port 0 picks
  // one). Not for unix: addresses.
  static Result<std::unique_ptr<Listener>> open(const std::string& address);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int port() const { return port_; }
  // Accepts on a thread of its own until stop(), handing connections to
  // `acceptor` (whose server must have started).
  void start(grpc::experimental::ExternalConnectionAcceptor* acceptor, ListenerLimits limits);
  void stop();
  // Closes the connection gRPC calls `grpc_peer` ("ipv4:10.0.0.7:51234",
  // "ipv6:[::1]:51234"), if this listener handed it over: its socket is
  // shut down under gRPC, which ends its calls and closes it. `why` goes to
  // the log. Any thread; done on the listener's.
  void close_connection(const std::string& grpc_peer, const std::string& why);
  std::shared_ptr<const ListenerCounters> counters() const { return counters_; }

 private:
  Listener() = default;
  void run(grpc::experimental::ExternalConnectionAcceptor* acceptor, ListenerLimits limits);

  std::vector<int> sockets_;  // listening
  int wake_ = -1;             // an eventfd: stop() or close_connection()
  std::atomic<bool> stopping_{false};
  std::mutex closing_mutex_;
  std::vector<std::pair<std::string, std::string>> closing_;  // (grpc peer, why) for the loop to close
  int port_ = 0;
  std::thread thread_;
  std::shared_ptr<ListenerCounters> counters_ = std::make_shared<ListenerCounters>();
};

// The effective connection limit for a file limit of `files` descriptors.
int connection_limit(int max_connections, std::uint64_t files);

}  // namespace linkage::server
