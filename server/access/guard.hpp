#pragma once
// Every call authorized before its method runs, for every method of a
// service, with no code in the methods.
//
// gRPC C++ gives a server no hook that can refuse a call before its handler
// runs: an interceptor may only watch, and an AuthMetadataProcessor needs
// TLS and never sees the request (so not the world it names). So the guard
// sits where gRPC hands a call to its method: guard_service() builds a
// service with the same methods whose handlers decide first (authorize.hpp)
// and then pass the call to the real service's handler, as it is or, when
// refused, as a request that failed to arrive, which the handler answers
// without running the method. The refusal interceptor (one per call)
// then puts the refusal's status on that answer.
//
// Requests that cannot be parsed are passed on as they are: their method
// never runs and they are answered INVALID_ARGUMENT (rpc/malformed.hpp).

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/service_type.h>
#include <grpcpp/support/server_interceptor.h>

#include <memory>

#include "tokens.hpp"

namespace google::protobuf {
class ServiceDescriptor;
}

namespace linkage::server::access {

// `inner`'s methods, in the order of `descriptor` (the service's generated
// code registers them in that order), each authorized against `tokens`.
std::unique_ptr<grpc::Service> guard_service(std::unique_ptr<grpc::Service> inner,
                                             const google::protobuf::ServiceDescriptor& descriptor,
                                             std::shared_ptr<TokenStore> tokens);

// Puts a refused call's status on its answer; register it with the guarded services.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> refusal_interceptor();

}  // namespace linkage::server::access
