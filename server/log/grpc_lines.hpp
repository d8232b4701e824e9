#pragma once
// gRPC's own log lines (which it writes to stderr in a format of its own)
// through spdlog, as the event "grpc" with the file and line, so that a json
// log (--log-format json) stays one object a line. Apart from log.hpp, whose
// users (the worlds' library) must not link gRPC.

namespace linkage::server::log {

void route_grpc_lines();

}  // namespace linkage::server::log
