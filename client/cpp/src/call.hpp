#pragma once
// The one way the helpers call a unary RPC: a fresh context per attempt, one
// deadline over all attempts, UNAVAILABLE retried with a doubling pause when
// the call is safe to repeat (see client.hpp for which are).

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "linkage/client/client.hpp"

namespace linkage::client::detail {

using Clock = std::chrono::system_clock;

template <class Response, class Rpc>
Result<Response> call(const ConnectOptions& options, bool retry, Rpc&& rpc) {
  const auto deadline = Clock::now() + options.call_timeout;
  auto pause = options.backoff;
  while (true) {
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline);
    Response response;
    const grpc::Status status = rpc(&ctx, &response);
    if (status.ok()) return response;
    const bool again = retry && status.error_code() == grpc::StatusCode::UNAVAILABLE && Clock::now() + pause < deadline;
    if (!again) return Error::from(status);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, options.max_backoff);
  }
}

}  // namespace linkage::client::detail

// Calls stub->method(ctx, req, resp) through detail::call inside a Client member.
#define LINKAGE_CALL(retry, stub, method, Response, req)                                     \
  ::linkage::client::detail::call<Response>(options_, retry,                                 \
                                            [&](grpc::ClientContext* ctx, Response* resp) {  \
                                              return (stub)->method(ctx, req, resp);         \
                                            })
