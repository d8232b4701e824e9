#include "malformed.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/stubs/logging.h>
#include <spdlog/spdlog.h>

#include <mutex>

#include "log/log.hpp"

namespace linkage::server {
namespace {

using grpc::experimental::InterceptionHookPoints;
using Clock = std::chrono::steady_clock;

// One log line per interval at most, with how many requests it stands for.
class LogLimit {
 public:
  void set_interval(std::chrono::seconds interval) {
    std::lock_guard lock(mutex_);
    interval_ = interval;
  }

  void note(const std::string& what) {
    std::lock_guard lock(mutex_);
    ++count_;
    const Clock::time_point now = Clock::now();
    if (logged_ != Clock::time_point{} && now - logged_ < interval_) return;
    log::event(spdlog::level::warn, "rpc.malformed", "",
               fmt::format("refused {} malformed request{} since the last such line (the latest: {}); one line every "
                           "{} s at most",
                           count_, count_ == 1 ? "" : "s", what, interval_.count()),
               {{"refused", count_}, {"latest", what}});
    logged_ = now;
    count_ = 0;
  }

 private:
  std::mutex mutex_;
  std::chrono::seconds interval_{10};
  Clock::time_point logged_{};
  long count_ = 0;
};

LogLimit& log_limit() {
  static LogLimit limit;
  return limit;
}

// Protobuf logs an ERROR line for every message with a string that is not
// UTF-8 that it is asked to parse; a client could fill the log with them.
// Those go through the rate limit; anything else protobuf says goes to spdlog.
void protobuf_log(google::protobuf::LogLevel level, const char* file, int line, const std::string& message) {
  if (message.find("invalid UTF-8") != std::string::npos) {
    log_limit().note("protobuf: " + message.substr(0, message.find(". ")));
    return;
  }
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO: spdlog::info("protobuf {}:{}: {}", file, line, message); break;
    case google::protobuf::LOGLEVEL_WARNING: spdlog::warn("protobuf {}:{}: {}", file, line, message); break;
    default: spdlog::error("protobuf {}:{}: {}", file, line, message); break;
  }
}

class Interceptor final : public grpc::experimental::Interceptor {
 public:
  explicit Interceptor(grpc::experimental::ServerRpcInfo* info) : method_(info->method()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // The library leaves the request null when it could not parse it.
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr)
      malformed_ = true;
    if (malformed_ && methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = malformed_request(method_);
      methods->ModifySendStatus(status);
      log_limit().note(method_);
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  bool malformed_ = false;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new Interceptor(info);
  }
};

}  // namespace

grpc::Status malformed_request(const std::string& method) {
  // "/linkage.v1.BodyService/CreateBody" → the method "linkage.v1.BodyService.CreateBody".
  std::string full = method.substr(method.empty() || method[0] != '/' ? 0 : 1);
  if (const auto slash = full.rfind('/'); slash != std::string::npos) full[slash] = '.';
  const auto* descriptor = google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(full);
  const std::string type = descriptor ? descriptor->input_type()->full_name() : "the request of " + method;
  return {grpc::StatusCode::INVALID_ARGUMENT,
          "request: not a valid " + type +
              ": the bytes are truncated or corrupt, or a string field is not UTF-8 (are client and server built "
              "from the same proto files?)"};
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> malformed_request_interceptor(
    std::chrono::seconds interval) {
  log_limit().set_interval(interval);
  google::protobuf::SetLogHandler(protobuf_log);
  return std::make_unique<Factory>();
}

}  // namespace linkage::server
