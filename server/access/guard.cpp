#include "guard.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <mutex>
#include <unordered_map>

#include "authorize.hpp"

namespace linkage::server::access {
namespace {

using grpc::internal::MethodHandler;
using grpc::internal::RpcMethod;
using grpc::internal::RpcServiceMethod;

// The statuses of refused calls whose answer is not sent yet, by call (its
// server context, which the handler and the call's interceptor both see).
class Refusals {
 public:
  void put(const void* call, grpc::Status status) {
    std::lock_guard lock(mutex_);
    statuses_.insert_or_assign(call, std::move(status));
  }
  std::optional<grpc::Status> take(const void* call) {
    std::lock_guard lock(mutex_);
    auto it = statuses_.find(call);
    if (it == statuses_.end()) return std::nullopt;
    grpc::Status status = std::move(it->second);
    statuses_.erase(it);
    return status;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, grpc::Status> statuses_;
};

Refusals& refusals() {
  static Refusals r;
  return r;
}

// grpc::Service keeps its handlers to itself and its subclasses; a pointer
// to its protected member, formed in a subclass, reads any service's.
struct HandlerAccess : grpc::Service {
  static MethodHandler* handler(grpc::Service& service, int index) {
    return (service.*&HandlerAccess::GetHandler)(index);
  }
};

std::optional<std::string_view> header(const grpc::ServerContextBase& ctx, std::string_view key) {
  const auto& md = ctx.client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

class GuardHandler final : public MethodHandler {
 public:
  GuardHandler(MethodHandler* inner, const std::string& method, std::shared_ptr<TokenStore> tokens)
      : inner_(inner), method_(method), rule_(method_rule(method)), tokens_(std::move(tokens)) {}

  void RunHandler(const HandlerParameter& param) override {
    if (!param.status.ok() || param.request == nullptr) return inner_->RunHandler(param);
    // Every request of linkage.v1 is a generated protobuf message, whose
    // one base is google::protobuf::Message.
    const auto& request = *static_cast<const google::protobuf::Message*>(param.request);
    const grpc::Status verdict =
        authorize(*tokens_->table(), method_, rule_, header(*param.server_context, "authorization"), worlds(request));
    if (verdict.ok()) return inner_->RunHandler(param);
    spdlog::debug("refused {}: {}", method_, verdict.error_message());
    refusals().put(param.server_context, verdict);
    inner_->RunHandler(HandlerParameter(param.call, param.server_context, param.request, verdict,
                                        param.internal_data, param.call_requester));
  }

  void* Deserialize(grpc_call* call, grpc_byte_buffer* req, grpc::Status* status, void** handler_data) override {
    return inner_->Deserialize(call, req, status, handler_data);
  }

 private:
  // The worlds the request names, by its rule's fields.
  std::vector<std::string> worlds(const google::protobuf::Message& request) const {
    std::vector<std::string> names;
    if (!rule_) return names;
    for (const std::string_view name : {rule_->world_field, rule_->new_world_field}) {
      if (name.empty()) continue;
      const auto* field = request.GetDescriptor()->FindFieldByName(std::string(name));
      if (field != nullptr && field->type() == google::protobuf::FieldDescriptor::TYPE_STRING && !field->is_repeated())
        names.push_back(request.GetReflection()->GetString(request, field));
    }
    return names;
  }

  MethodHandler* const inner_;  // owned by the inner service
  const std::string method_;
  const std::optional<MethodRule> rule_;
  const std::shared_ptr<TokenStore> tokens_;
};

class GuardedService final : public grpc::Service {
 public:
  GuardedService(std::unique_ptr<grpc::Service> inner, const google::protobuf::ServiceDescriptor& descriptor,
                 std::shared_ptr<TokenStore> tokens)
      : inner_(std::move(inner)) {
    for (int i = 0; i < descriptor.method_count(); ++i) {
      const google::protobuf::MethodDescriptor& m = *descriptor.method(i);
      // gRPC keeps the name's pointer: the deque never moves its strings.
      const std::string& name = names_.emplace_back("/" + descriptor.full_name() + "/" + m.name());
      const RpcMethod::RpcType type = m.client_streaming()
                                          ? (m.server_streaming() ? RpcMethod::BIDI_STREAMING
                                                                  : RpcMethod::CLIENT_STREAMING)
                                          : (m.server_streaming() ? RpcMethod::SERVER_STREAMING
                                                                  : RpcMethod::NORMAL_RPC);
      auto* method = new RpcServiceMethod(
          name.c_str(), type, new GuardHandler(HandlerAccess::handler(*inner_, i), name, tokens));
      method->SetServerApiType(RpcServiceMethod::ApiType::CALL_BACK);
      AddMethod(method);
    }
  }

 private:
  std::unique_ptr<grpc::Service> inner_;
  std::deque<std::string> names_;
};

class RefusalInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit RefusalInterceptor(const void* call) : call_(call) {}
  // A call that ended before its answer went out (the client left).
  ~RefusalInterceptor() override { refusals().take(call_); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS))
      if (std::optional<grpc::Status> status = refusals().take(call_)) methods->ModifySendStatus(*status);
    methods->Proceed();
  }

 private:
  const void* const call_;
};

class RefusalFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new RefusalInterceptor(info->server_context());
  }
};

}  // namespace

std::unique_ptr<grpc::Service> guard_service(std::unique_ptr<grpc::Service> inner,
                                             const google::protobuf::ServiceDescriptor& descriptor,
                                             std::shared_ptr<TokenStore> tokens) {
  return std::make_unique<GuardedService>(std::move(inner), descriptor, std::move(tokens));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> refusal_interceptor() {
  return std::make_unique<RefusalFactory>();
}

}  // namespace linkage::server::access
