#include "abandoned_calls.hpp"

#include <grpcpp/server_context.h>

#include <chrono>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

namespace linkage::server {
namespace {

using grpc::experimental::InterceptionHookPoints;
using Clock = std::chrono::steady_clock;

// A token bucket per connection, by gRPC's peer string (address and port).
class Buckets {
 public:
  Buckets(std::function<void(const std::string&, const std::string&)> close, AbandonLimit limit)
      : close_(std::move(close)), limit_(limit) {}

  void abandoned(const std::string& peer) {
    const Clock::time_point now = Clock::now();
    {
      std::lock_guard lock(mutex_);
      // Buckets full again hold nothing worth keeping: swept now and then.
      if (++notes_ % 4096 == 0) std::erase_if(buckets_, [&](const auto& b) { return level(b.second, now) >= limit_.burst; });
      auto [it, made] = buckets_.try_emplace(peer, Bucket{limit_.burst, now, false});
      Bucket& b = it->second;
      b.tokens = level(b, now) - 1;
      b.at = now;
      if (b.tokens >= 0 || b.closed) return;
      b.closed = true;
    }
    close_(peer, fmt::format("it abandoned calls (reset by the client, past their deadline, or with no request) "
                             "faster than {:.0f} a second, after {:.0f} at once (HTTP/2 rapid reset)",
                             limit_.per_second, limit_.burst));
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point at;
    bool closed;
  };
  double level(const Bucket& b, Clock::time_point now) const {
    return std::min(limit_.burst, b.tokens + limit_.per_second * std::chrono::duration<double>(now - b.at).count());
  }

  const std::function<void(const std::string&, const std::string&)> close_;
  const AbandonLimit limit_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::uint64_t notes_ = 0;
};

class Interceptor final : public grpc::experimental::Interceptor {
 public:
  Interceptor(grpc::experimental::ServerRpcInfo* info, Buckets& buckets) : info_(info), buckets_(buckets) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr)
      no_request_ = true;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      grpc::ServerContextBase* ctx = info_->server_context();
      if (no_request_ || (ctx && ctx->IsCancelled())) buckets_.abandoned(ctx ? ctx->peer() : std::string());
    }
    methods->Proceed();
  }

 private:
  grpc::experimental::ServerRpcInfo* const info_;
  Buckets& buckets_;
  bool no_request_ = false;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  Factory(std::function<void(const std::string&, const std::string&)> close, AbandonLimit limit)
      : buckets_(std::move(close), limit) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new Interceptor(info, buckets_);
  }

 private:
  Buckets buckets_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> abandoned_calls_interceptor(
    std::function<void(const std::string&, const std::string&)> close, AbandonLimit limit) {
  return std::make_unique<Factory>(std::move(close), limit);
}

}  // namespace linkage::server
