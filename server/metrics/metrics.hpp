#pragma once
// linkaged's Prometheus metrics, served as text on their own port
// (--metrics-listen) by prometheus-cpp's Exposer:
//
//   per world (label world)       ticks, the tick rate set, overruns, watchdog pauses,
//                                 divergences, bodies, constraints, forces, subscribers,
//                                 paused; the step time and each stage's as histograms;
//                                 frames built, sent and skipped, bytes sent
//   per RPC (labels method, code) calls answered, and their latency as a histogram
//   connections (listener.hpp)    open, accepted, refused (label reason), closed
//
// The worlds' counts and counters are read from the summaries the worlds
// publish (at scrape time, without waiting for any world); the step and
// frame events come from the worlds' threads through WorldMeters.

#include <grpcpp/support/server_interceptor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "host/registry.hpp"
#include "host/world_meters.hpp"
#include "linkage/result.hpp"

namespace linkage::server::metrics {

// What the server's accept loop counts, read at each scrape.
struct ConnectionCounts {
  std::uint64_t accepted = 0, over_limit = 0, over_peer_limit = 0, out_of_files = 0;
  int open = 0;
  std::uint64_t closed = 0;  // by the server, their client abandoning calls too fast
};

class Metrics final : public WorldMeterFactory {
 public:
  // Serves /metrics on `listen` (host:port; port 0: any free one) with the
  // worlds of `worlds`, which must outlive it; an error if it cannot listen.
  static Result<std::unique_ptr<Metrics>> serve(const std::string& listen, const Registry& worlds);
  ~Metrics() override;

  int port() const;
  std::shared_ptr<WorldMeters> meters(const std::string& world) override;
  // Counts every call by method and status code, with its latency.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> rpc_interceptor();
  // The connections' series, from `read` (called on the exposer's threads).
  void count_connections(std::function<ConnectionCounts()> read);

  struct Impl;

 private:
  explicit Metrics(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace linkage::server::metrics
