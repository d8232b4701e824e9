#pragma once
// linkaged's command line: the server's flags and the simulate mode's.

#include <cstdint>
#include <optional>
#include <string>

#include "durable/world_store.hpp"
#include "access/server_access.hpp"
#include "connections.hpp"
#include "host/registry.hpp"

namespace linkage::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:50051";  // host:port; 0.0.0.0:50051 to serve other machines
  double tick_rate = 60.0;                 // Hz, of worlds created without one
  std::string scene;                       // loaded into the "default" world at start-up
  std::string log_level = "info";
  int max_message_bytes = 16 << 20;        // largest request or response
  int max_connections = 0;                 // open at once; 0: the file limit less 256 (listener.hpp)
  int max_connections_per_peer = 256;      // open at once from one address; 0: no limit
  std::int64_t max_transport_bytes = kDefaultTransportBytes;  // gRPC's resource quota; 0: none
  ServerLimits limits;
  access::AccessOptions access;            // tokens, TLS, --insecure (access/)
  std::string metrics_listen;              // host:port of /metrics (metrics/); empty: none
  std::string log_format = "text";         // text or json (log/log.hpp)
  std::string data_dir;                    // worlds kept here (durable/); empty: none
  durable::StoreOptions durability;        // checkpoints in data_dir
};

struct ReplayOptions {
  std::string dir;                       // a world's directory in a data directory
  std::optional<std::uint64_t> to_tick;  // unset: the last tick recorded
  std::string out;                       // the world as a scene JSON file; empty: none
};

struct SimulateOptions {
  std::string scene;
  double seconds = 10.0;
  std::int64_t steps = 0;  // > 0: overrides seconds
  std::string out;         // JSON Lines; empty: no output file
  int every = 1;           // write every N-th step
};

int serve(const ServeOptions& options);
int simulate(const SimulateOptions& options);
int replay(const ReplayOptions& options);

}  // namespace linkage::server
