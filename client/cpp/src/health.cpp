// The standard gRPC health check (grpc.health.v1.Health/Check).
#include "grpc/health/v1/health.grpc.pb.h"
#include "linkage/client/client.hpp"
#include "call.hpp"

namespace linkage::client {

Result<bool> Client::serving(const std::string& service) const {
  namespace health = grpc::health::v1;
  // A stub of its own: Client keeps stubs for linkage.v1 only.
  auto stub = health::Health::NewStub(channel_);
  health::HealthCheckRequest request;
  request.set_service(service);
  Result<health::HealthCheckResponse> response = detail::call<health::HealthCheckResponse>(
      options_, true, [&](grpc::ClientContext* ctx, health::HealthCheckResponse* r) {
        return stub->Check(ctx, request, r);
      });
  if (!response) return response.error();
  return response.value().status() == health::HealthCheckResponse::SERVING;
}

}  // namespace linkage::client
