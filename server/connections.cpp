#include "connections.hpp"

#include <grpc/grpc.h>
#include <grpcpp/resource_quota.h>

namespace linkage::server {

FileLimit raise_file_limit() {
  FileLimit out;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return out;
  out.before = out.now = limit.rlim_cur;
  out.hard = limit.rlim_max;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) == 0) out.now = limit.rlim_cur;
  }
  return out;
}

void limit_connections(grpc::ServerBuilder& builder, int max_streams, std::int64_t max_transport_bytes) {
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, max_streams + kCallsBesideStreams);
  if (max_transport_bytes > 0) {
    grpc::ResourceQuota quota("linkaged");
    quota.Resize(static_cast<std::size_t>(max_transport_bytes));
    builder.SetResourceQuota(quota);  // the builder holds its own reference
  }
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, kHandshakeTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, kMaxConnectionIdleMs);
}

}  // namespace linkage::server
