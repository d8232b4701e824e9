#pragma once
// The one place where an engine error becomes a gRPC status.

#include <grpcpp/grpcpp.h>

#include "linkage/result.hpp"

namespace linkage::server {

inline grpc::Status to_grpc(const Error& e) {
  switch (e.code) {
    case ErrorCode::invalid_argument: return {grpc::StatusCode::INVALID_ARGUMENT, e.message};
    case ErrorCode::not_found: return {grpc::StatusCode::NOT_FOUND, e.message};
    case ErrorCode::failed_precondition: return {grpc::StatusCode::FAILED_PRECONDITION, e.message};
    case ErrorCode::resource_exhausted: return {grpc::StatusCode::RESOURCE_EXHAUSTED, e.message};
  }
  return {grpc::StatusCode::INTERNAL, e.message};
}

inline grpc::Status to_grpc(const Status& s) { return s ? grpc::Status::OK : to_grpc(s.error()); }

}  // namespace linkage::server
