#include "services.hpp"

#include <google/protobuf/descriptor.h>

#include "abandoned_calls.hpp"
#include "access/guard.hpp"
#include "linkage/v1/service.grpc.pb.h"

namespace linkage::server {

Services::Services(Registry& registry, WorldSettings defaults, ServiceOptions options)
    : metrics_(options.metrics), close_connection_(std::move(options.close_connection)) {
  const auto add = [&](std::unique_ptr<grpc::Service> service, const char* name) {
    if (options.tokens) {
      const auto* descriptor = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
      service = access::guard_service(std::move(service), *descriptor, options.tokens);
    }
    services_.push_back(std::move(service));
  };
  add(make_world_service(registry, defaults), v1::WorldService::service_full_name());
  add(make_body_service(registry), v1::BodyService::service_full_name());
  add(make_constraint_service(registry), v1::ConstraintService::service_full_name());
  add(make_force_service(registry), v1::ForceService::service_full_name());
}

void Services::register_with(grpc::ServerBuilder& builder) {
  for (auto& s : services_) builder.RegisterService(s.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> factories;
  factories.push_back(malformed_request_interceptor());
  if (close_connection_) factories.push_back(abandoned_calls_interceptor(close_connection_));
  factories.push_back(access::refusal_interceptor());
  // Last: a server's interceptors see the status in order, so this one
  // counts the status those before it may have put in.
  if (metrics_) factories.push_back(metrics_->rpc_interceptor());
  builder.experimental().SetInterceptorCreators(std::move(factories));
}

}  // namespace linkage::server
