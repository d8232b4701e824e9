#pragma once
// The linkage.v1 services over the callback API. Each unary call is turned
// into a command on its world's tick thread, which finishes the call when
// the command has run; no gRPC thread ever waits for a world.

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/service_type.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "access/tokens.hpp"
#include "host/registry.hpp"
#include "malformed.hpp"
#include "metrics/metrics.hpp"

namespace linkage::server {

std::unique_ptr<grpc::Service> make_world_service(Registry& registry, WorldSettings defaults);
std::unique_ptr<grpc::Service> make_body_service(Registry& registry);
std::unique_ptr<grpc::Service> make_constraint_service(Registry& registry);
std::unique_ptr<grpc::Service> make_force_service(Registry& registry);

struct ServiceOptions {
  // Tokens every call must bring (access/guard.hpp); null: no tokens asked.
  std::shared_ptr<access::TokenStore> tokens{};
  // Counts every call (metrics/metrics.hpp); null: no metrics.
  metrics::Metrics* metrics = nullptr;
  // Closes a connection by gRPC's name of its peer (Listener); set, a
  // connection that abandons calls too fast is closed (abandoned_calls.hpp).
  std::function<void(const std::string&, const std::string&)> close_connection{};
};

class Services {
 public:
  // `defaults`: the settings of a world created with none given.
  Services(Registry& registry, WorldSettings defaults, ServiceOptions options = {});
  // Registers the services and the interceptors every call goes through:
  // requests that cannot be parsed are answered INVALID_ARGUMENT
  // (malformed.hpp), refused calls with their refusal (access/guard.hpp),
  // and then, with the status as sent, each call is counted.
  void register_with(grpc::ServerBuilder& builder);

 private:
  std::vector<std::unique_ptr<grpc::Service>> services_;
  metrics::Metrics* metrics_;
  std::function<void(const std::string&, const std::string&)> close_connection_;
};

}  // namespace linkage::server
