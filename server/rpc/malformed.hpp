#pragma once
// Requests that cannot be parsed (truncated, not protobuf at all, trailing
// garbage, a string that is not UTF-8).
//
// gRPC's callback API never runs a method whose request fails to parse: it
// answers UNIMPLEMENTED with an empty message, which reads as "this server
// has no such method". A server interceptor sees every call of every
// service: when the request arrived but did not parse, it turns that answer
// into INVALID_ARGUMENT with a message naming the request's type, and counts
// the call for a log line written at most once per interval. No method needs
// code of its own for it.

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include <chrono>
#include <memory>
#include <string>

namespace linkage::server {

// The status a request of `method` ("/linkage.v1.BodyService/CreateBody")
// that could not be parsed is answered with.
grpc::Status malformed_request(const std::string& method);

// The interceptor (register it for every service); also sends protobuf's
// own log lines (it logs one per request with a string that is not UTF-8)
// through the same rate limit. `interval`: the least time between two log
// lines about malformed requests.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> malformed_request_interceptor(
    std::chrono::seconds interval = std::chrono::seconds(10));

}  // namespace linkage::server
