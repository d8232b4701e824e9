// The server's life: start-up, the default world, and a clean shutdown on
// SIGTERM or SIGINT (streams are ended with a status, then gRPC drains),
// within a bounded time whatever the worlds are doing.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "access/server_access.hpp"
#include "connections.hpp"
#include "convert/scene_io.hpp"
#include "durable/data_dir.hpp"
#include "host/memory_trim.hpp"
#include "listener.hpp"
#include "host/policy.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "log/grpc_lines.hpp"
#include "log/log.hpp"
#include "metrics/metrics.hpp"
#include "options.hpp"
#include "rpc/services.hpp"

namespace linkage::server {
namespace {

// How long after SIGTERM the worlds' threads may take to end their last
// step; one that has not by then is left behind (the process exits anyway).
constexpr std::chrono::seconds kShutdownGrace{2};

Result<LoadedScene> read_scene_file(const std::string& path, const WorldSettings& base, const Limits& limits) {
  std::ifstream in(path);
  if (!in) return field_error(ErrorCode::not_found, "scene", "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  Result<v1::Scene> scene = parse_scene_json(text.str());
  if (!scene) return Error{scene.error().code, path + ": " + scene.error().message};
  Result<LoadedScene> loaded =
      load_scene(scene.value(), base, {limits.max_bodies, limits.max_constraints, limits.max_forces, limits.max_bytes});
  if (!loaded) return Error{loaded.error().code, path + ": " + loaded.error().message};
  return loaded;
}

// Start-up stops here: the reason, and linkaged exits 2.
int refuse(const std::string& message) {
  log::event(spdlog::level::critical, "server.refused", "", message);
  return 2;
}

}  // namespace

int serve(const ServeOptions& options) {
  log::Format format = log::Format::text;
  if (!log::parse_format(options.log_format, &format)) return refuse("--log-format: text or json, got " + options.log_format);
  log::set_format(format);
  if (format == log::Format::json) log::route_grpc_lines();
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  // Signals are taken by one thread with sigwait, never by a handler.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);  // reads the token file again
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Result<access::ServerAccess> access = access::prepare_access(options.access, options.listen);
  if (!access) return refuse(access.error().message);
  const FileLimit files = raise_file_limit();
  log::event(spdlog::level::info, "server.file_limit", "",
             fmt::format("open files: up to {} (the soft limit was {}; each connection takes one)", files.now,
                         files.before),
             {{"before", files.before}, {"now", files.now}, {"hard", files.hard}});

  // The flags keep to the rules the API keeps to.
  if (Status ok = check_policy(options.limits.settings); !ok) return refuse(ok.error().message);
  if (options.limits.min_stream_rate > options.limits.max_stream_rate)
    return refuse(fmt::format("--min-stream-rate: must be at most --max-stream-rate ({} Hz), got {} Hz",
                              options.limits.max_stream_rate, options.limits.min_stream_rate));
  if (Status ok = check_tick_rate(options.tick_rate, options.limits.settings, "--tick-rate"); !ok)
    return refuse(ok.error().message);
  // The largest answer must fit what one client may hold unread, or no client could ever have it.
  const std::int64_t least_unread = std::int64_t{options.max_message_bytes} + std::int64_t{Unread::kCallBytes};
  for (const auto& [flag, value] : {std::pair{"--max-unread-bytes", options.limits.unread.total},
                                    std::pair{"--max-unread-bytes-per-peer", options.limits.unread.per_peer}})
    if (value != 0 && value < least_unread)
      return refuse(fmt::format("{}: must be 0 (no limit) or at least --max-message-bytes plus 8 KiB ({} bytes), so "
                                "that the largest answer can be sent; got {}",
                                flag, least_unread, value));
  const MemoryTrimmer trimmer;
  WorldSettings defaults;
  defaults.dt = 1.0 / options.tick_rate;
  ServerLimits limits = options.limits;
  // Every world stays small enough to be listed, saved and streamed whole.
  limits.world.max_bytes = footprint_limit(static_cast<std::uint64_t>(options.max_message_bytes));
  // Declared before the registry: its worlds write into it until they stop.
  std::unique_ptr<durable::DataDir> data;
  if (!options.data_dir.empty()) {
    Result<std::unique_ptr<durable::DataDir>> opened = durable::DataDir::open(options.data_dir, options.durability);
    if (!opened) return refuse("--data-dir: " + opened.error().message);
    data = std::move(opened.value());
  }
  Registry registry(limits);
  // Before any world is made: each takes its meters when it is.
  std::unique_ptr<metrics::Metrics> metrics;
  if (!options.metrics_listen.empty()) {
    Result<std::unique_ptr<metrics::Metrics>> served = metrics::Metrics::serve(options.metrics_listen, registry);
    if (!served) return refuse(served.error().message);
    metrics = std::move(served.value());
    set_world_meter_factory(metrics.get());
    log::event(spdlog::level::info, "server.metrics", "",
               fmt::format("metrics on http://{}/metrics (port {})", options.metrics_listen, metrics->port()),
               {{"listen", options.metrics_listen}, {"port", metrics->port()}});
  }
  if (data) {
    registry.set_data_dir(data.get());
    for (durable::DataDir::Restored& r : data->restore_all(limits.world))
      registry.adopt(r.name, std::move(r.state), std::move(r.store));
  }
  // A restored default world is the one that was; --scene makes a new one only.
  if (!registry.find("default")) {
    World world = World::create(defaults).value();
    Names names;
    if (!options.scene.empty()) {
      Result<LoadedScene> loaded = read_scene_file(options.scene, defaults, limits.world);
      if (!loaded) return refuse(loaded.error().message);
      if (Status ok = check_settings(loaded.value().world.settings(), limits.settings, options.scene + ": settings"); !ok)
        return refuse(ok.error().message);
      world = std::move(loaded.value().world);
      names = std::move(loaded.value().names);
    }
    auto host = registry.create("default", std::move(world), std::move(names), limits.world, false);
    if (!host) return refuse(host.error().message);
    if (!options.scene.empty())
      (void)host.value()->post(  // the first command of a new world: nothing waits before it
          [](WorldHost::State& s) { s.world.mark_reset_point(); },
          [] {});
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  // TCP through the server's own accept loop (listener.hpp); a unix:
  // socket, local only, through gRPC's.
  std::unique_ptr<Listener> listener;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor;
  if (options.listen.starts_with("unix:")) {
    builder.AddListeningPort(options.listen, access.value().credentials, &port);
  } else {
    Result<std::unique_ptr<Listener>> opened = Listener::open(options.listen);
    if (!opened) return refuse(opened.error().message);
    listener = std::move(opened.value());
    port = listener->port();
    acceptor = builder.experimental().AddExternalConnectionAcceptor(
        grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD, access.value().credentials);
  }
  ServiceOptions service_options{access.value().tokens, metrics.get()};
  if (listener)
    service_options.close_connection = [l = listener.get()](const std::string& peer, const std::string& why) {
      l->close_connection(peer, why);
    };
  Services services(registry, defaults, std::move(service_options));
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  limit_connections(builder, options.limits.max_streams, options.max_transport_bytes);
  services.register_with(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) return refuse("cannot listen on " + options.listen);
  const ListenerLimits connection_limits{connection_limit(options.max_connections, files.now),
                                         options.max_connections_per_peer};
  if (listener) {
    listener->start(acceptor.get(), connection_limits);
    if (metrics)
      metrics->count_connections([counters = listener->counters()] {
        return metrics::ConnectionCounts{counters->accepted,     counters->over_limit, counters->over_peer_limit,
                                         counters->out_of_files, counters->open,       counters->closed};
      });
  }
  // Probes may name a service (Kubernetes' grpc probe takes one); the
  // server as a whole ("") is SERVING by default.
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  for (const char* name : {v1::WorldService::service_full_name(), v1::BodyService::service_full_name(),
                           v1::ConstraintService::service_full_name(), v1::ForceService::service_full_name()})
    health->SetServingStatus(name, true);
  log::event(spdlog::level::info, "server.access", "", "access: " + access.value().summary,
             {{"tls", !options.access.tls_cert.empty()}, {"tokens", access.value().tokens != nullptr}});
  log::event(spdlog::level::info, "server.listening", "",
             fmt::format("linkaged listening on {} (port {}); worlds tick at {} Hz by default{}{}", options.listen, port,
                         options.tick_rate, options.scene.empty() ? "" : "; default world: " + options.scene,
                         data ? "; worlds kept in " + options.data_dir : ""),
             {{"listen", options.listen},
              {"port", port},
              {"max_connections", listener ? connection_limits.max_connections : 0},
              {"max_connections_per_peer", listener ? connection_limits.max_per_peer : 0},
              {"max_unread_bytes", options.limits.unread.total},
              {"max_unread_bytes_per_peer", options.limits.unread.per_peer},
              {"max_transport_bytes", options.max_transport_bytes},
              {"max_memory", options.limits.max_memory},
              {"tick_rate", options.tick_rate},
              {"scene", options.scene},
              {"data_dir", options.data_dir}});

  Registry::Clock::time_point worlds_deadline;
  std::thread waiter([&] {
    int signal = 0;
    while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
      if (access.value().tokens)
        access.value().tokens->reload();
      else
        spdlog::info("SIGHUP: nothing to read again (no --tokens)");
    }
    const char* name = signal == SIGTERM ? "SIGTERM" : "SIGINT";
    log::event(spdlog::level::info, "server.stopping", "", fmt::format("{}: ending streams and shutting down", name),
               {{"signal", name}});
    worlds_deadline = Registry::Clock::now() + kShutdownGrace;
    if (listener) listener->stop();  // no new connections while the server drains
    // NOT_SERVING first, so that health checks and load balancers stop
    // sending work while the server drains.
    health->Shutdown();
    // Without waiting for any world: streams end and every call waiting on a
    // world (a Step under way too) is answered now.
    registry.request_stop_all("the server is shutting down");
    // What is left are unary calls in flight and idle connections, which
    // gRPC would otherwise wait on.
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  });
  server->Wait();
  waiter.join();
  if (!registry.wait_stopped(worlds_deadline)) {
    // A world inside one very long step: nothing waits on it any more, and
    // its state dies with the process either way. Exit without joining it
    // (and without destructors, which would free what it is using).
    log::event(spdlog::level::warn, "server.stopped_without_a_world", "",
               fmt::format("a world is still inside a step {} s after the signal; exiting without it",
                           kShutdownGrace.count()));
    spdlog::default_logger()->flush();
    std::_Exit(0);
  }
  log::event(spdlog::level::info, "server.stopped", "", "stopped");
  return 0;
}

}  // namespace linkage::server
