#pragma once
// The linkage.v1 services over the callback API. Each unary call is turned
// into a command on its world's tick thread, which finishes the call when
// the command has run; no gRPC thread ever waits for a world.

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/service_type.h>

#include <memory>
#include <vector>

#include "host/registry.hpp"
#include "malformed.hpp"

namespace linkage::server {

std::unique_ptr<grpc::Service> make_world_service(Registry& registry, WorldSettings defaults);
std::unique_ptr<grpc::Service> make_body_service(Registry& registry);
std::unique_ptr<grpc::Service> make_constraint_service(Registry& registry);
std::unique_ptr<grpc::Service> make_force_service(Registry& registry);

class Services {
 public:
  // `defaults`: the settings of a world created with none given.
  Services(Registry& registry, WorldSettings defaults) {
    services_.push_back(make_world_service(registry, defaults));
    services_.push_back(make_body_service(registry));
    services_.push_back(make_constraint_service(registry));
    services_.push_back(make_force_service(registry));
  }
  // Registers the services, and the interceptor that answers requests that
  // cannot be parsed with INVALID_ARGUMENT (malformed.hpp).
  void register_with(grpc::ServerBuilder& builder) {
    for (auto& s : services_) builder.RegisterService(s.get());
    refuse_malformed_requests(builder);
  }

 private:
  std::vector<std::unique_ptr<grpc::Service>> services_;
};

}  // namespace linkage::server
