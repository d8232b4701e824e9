// The server's life: start-up, the default world, and a clean shutdown on
// SIGTERM or SIGINT (streams are ended with a status, then gRPC drains).
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "convert/scene_io.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "options.hpp"
#include "rpc/services.hpp"

namespace linkage::server {
namespace {

Result<LoadedScene> read_scene_file(const std::string& path, const WorldSettings& base, const Limits& limits) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::not_found, "scene: cannot read " + path};
  std::stringstream text;
  text << in.rdbuf();
  Result<v1::Scene> scene = parse_scene_json(text.str());
  if (!scene) return Error{scene.error().code, path + ": " + scene.error().message};
  Result<LoadedScene> loaded =
      load_scene(scene.value(), base, {limits.max_bodies, limits.max_constraints, limits.max_forces, limits.max_bytes});
  if (!loaded) return Error{loaded.error().code, path + ": " + loaded.error().message};
  return loaded;
}

}  // namespace

int serve(const ServeOptions& options) {
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  // Signals are taken by one thread with sigwait, never by a handler.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  WorldSettings defaults;
  defaults.dt = 1.0 / options.tick_rate;
  ServerLimits limits = options.limits;
  // Every world stays small enough to be listed, saved and streamed whole.
  limits.world.max_bytes = footprint_limit(static_cast<std::uint64_t>(options.max_message_bytes));
  Registry registry(limits);
  {
    World world = World::create(defaults).value();
    Names names;
    if (!options.scene.empty()) {
      Result<LoadedScene> loaded = read_scene_file(options.scene, defaults, limits.world);
      if (!loaded) {
        spdlog::critical("{}", loaded.error().message);
        return 2;
      }
      world = std::move(loaded.value().world);
      names = std::move(loaded.value().names);
    }
    auto host = registry.create("default", std::move(world), std::move(names), limits.world, false);
    if (!host) {
      spdlog::critical("{}", host.error().message);
      return 2;
    }
    if (!options.scene.empty())
      host.value()->post(
          [](WorldHost::State& s) {
            s.reset_point = std::make_shared<WorldHost::State::ResetPoint>(WorldHost::State::ResetPoint{s.world.save(), s.names});
          },
          [] {});
  }

  Services services(registry, defaults);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  services.register_with(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    spdlog::critical("cannot listen on {}", options.listen);
    return 2;
  }
  // Probes may name a service (Kubernetes' grpc probe takes one); the
  // server as a whole ("") is SERVING by default.
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  for (const char* name : {v1::WorldService::service_full_name(), v1::BodyService::service_full_name(),
                           v1::ConstraintService::service_full_name(), v1::ForceService::service_full_name()})
    health->SetServingStatus(name, true);
  spdlog::info("linkaged listening on {} (port {}); worlds tick at {} Hz by default{}", options.listen, port,
               options.tick_rate, options.scene.empty() ? "" : "; default world: " + options.scene);

  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    spdlog::info("{}: ending streams and shutting down", signal == SIGTERM ? "SIGTERM" : "SIGINT");
    // NOT_SERVING first, so that health checks and load balancers stop
    // sending work while the server drains.
    health->Shutdown();
    registry.stop_all("the server is shutting down");
    // The streams are ended already; what is left are unary calls in flight
    // and idle connections, which gRPC would otherwise wait on.
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  });
  server->Wait();
  waiter.join();
  spdlog::info("stopped");
  return 0;
}

}  // namespace linkage::server
