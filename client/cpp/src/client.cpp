// Connecting, the retrying call, and the WorldService helpers.
#include "linkage/client/client.hpp"

#include <grpcpp/support/client_interceptor.h>

#include <algorithm>
#include <thread>

#include "call.hpp"
#include "linkage/client/subscription.hpp"

namespace linkage::client {
Client::Client(std::string target, std::shared_ptr<grpc::Channel> channel, const ConnectOptions& options)
    : target_(std::move(target)),
      options_(options),
      channel_(std::move(channel)),
      worlds_(v1::WorldService::NewStub(channel_)),
      bodies_(v1::BodyService::NewStub(channel_)),
      constraints_(v1::ConstraintService::NewStub(channel_)),
      forces_(v1::ForceService::NewStub(channel_)) {}

namespace {

// Puts the token on every call of the channel (health checks and streams
// too). An interceptor rather than call credentials: gRPC sends those over
// TLS only, and a server on loopback may ask for tokens without TLS.
class TokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit TokenInterceptor(const std::string& header) : header_(header) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA))
      methods->GetSendInitialMetadata()->emplace("authorization", header_);
    methods->Proceed();
  }

 private:
  const std::string& header_;
};

class TokenFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit TokenFactory(const std::string& token) : header_("Bearer " + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo*) override {
    return new TokenInterceptor(header_);
  }

 private:
  const std::string header_;
};

std::shared_ptr<grpc::Channel> make_channel(const std::string& target, const ConnectOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_bytes);
  // A channel of its own: gRPC shares subchannels (and their reconnect
  // backoff, seconds long after a refused connection) between channels of a
  // process unless told not to.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls || !options.tls_ca.empty() || !options.tls_cert.empty() || !options.tls_key.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_ca;
    ssl.pem_cert_chain = options.tls_cert;
    ssl.pem_private_key = options.tls_key;
    credentials = grpc::SslCredentials(ssl);
    if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  }
  if (options.token.empty()) return grpc::CreateCustomChannel(target, credentials, args);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<TokenFactory>(options.token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(target, credentials, args, std::move(interceptors));
}

}  // namespace

Result<Client> Client::connect(const std::string& target, const ConnectOptions& options) {
  // Each attempt is a ListWorlds on a fresh channel: it proves the server is
  // linkaged, not only a listening port, and a fresh channel tries to connect
  // at once, where a channel that was refused would wait out gRPC's own
  // reconnect backoff (1 s, growing) before trying again.
  using Clock = detail::Clock;
  const auto deadline = Clock::now() + options.connect_timeout;
  auto pause = options.backoff;
  grpc::Status last;
  while (true) {
    auto channel = make_channel(target, options);
    grpc::ClientContext ctx;
    ctx.set_deadline(deadline);
    v1::ListWorldsResponse resp;
    last = v1::WorldService::NewStub(channel)->ListWorlds(&ctx, v1::ListWorldsRequest(), &resp);
    // A server that wants another token is linkaged all the same: each call
    // then says so, and the health check (which needs none) works.
    const auto code = last.error_code();
    if (last.ok() || code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED)
      return Client(target, std::move(channel), options);
    if (last.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    if (Clock::now() + pause >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, options.max_backoff);
  }
  if (last.error_code() == grpc::StatusCode::UNAVAILABLE || last.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
    return Error{grpc::StatusCode::UNAVAILABLE, "cannot reach linkaged at " + target + " within " +
                                                    std::to_string(options.connect_timeout.count()) +
                                                    " ms: " + last.error_message()};
  return Error::from(last);
}

Result<v1::World> Client::create_world(const std::string& name, const CreateWorldOptions& options) const {
  v1::CreateWorldRequest req;
  req.set_name(name);
  *req.mutable_settings() = to_proto(options.settings);
  *req.mutable_limits() = to_proto(options.limits);
  req.set_paused(options.paused);
  auto r = LINKAGE_CALL(false, worlds_, CreateWorld, v1::CreateWorldResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<std::vector<v1::World>> Client::list_worlds() const {
  auto r = LINKAGE_CALL(true, worlds_, ListWorlds, v1::ListWorldsResponse, v1::ListWorldsRequest());
  if (!r) return r.error();
  return std::vector<v1::World>(r->worlds().begin(), r->worlds().end());
}

Result<v1::World> Client::get_world(const std::string& world) const {
  v1::GetWorldRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, worlds_, GetWorld, v1::GetWorldResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::World> Client::update_world(const std::string& world, const WorldSettings& settings,
                                       const WorldLimits& limits) const {
  v1::UpdateWorldRequest req;
  req.set_world(world);
  *req.mutable_settings() = to_proto(settings);
  *req.mutable_limits() = to_proto(limits);
  auto r = LINKAGE_CALL(true, worlds_, UpdateWorld, v1::UpdateWorldResponse, req);
  if (!r) return r.error();
  return r->world();
}

Status Client::delete_world(const std::string& world) const {
  v1::DeleteWorldRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(false, worlds_, DeleteWorld, v1::DeleteWorldResponse, req);
  if (!r) return r.error();
  return {};
}

Result<v1::World> Client::fork_world(const std::string& world, const std::string& name,
                                     std::optional<std::uint64_t> tick) const {
  v1::ForkWorldRequest req;
  req.set_world(world);
  req.set_name(name);
  if (tick) req.set_tick(*tick);
  auto r = LINKAGE_CALL(false, worlds_, ForkWorld, v1::ForkWorldResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::World> Client::pause(const std::string& world) const {
  v1::PauseRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, worlds_, Pause, v1::PauseResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::World> Client::resume(const std::string& world) const {
  v1::ResumeRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, worlds_, Resume, v1::ResumeResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::StepResponse> Client::step(const std::string& world, std::uint32_t ticks) const {
  v1::StepRequest req;
  req.set_world(world);
  req.set_ticks(ticks);
  return LINKAGE_CALL(false, worlds_, Step, v1::StepResponse, req);
}

Result<v1::World> Client::reset(const std::string& world) const {
  v1::ResetRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(false, worlds_, Reset, v1::ResetResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::World> Client::load_scene(const std::string& world, const v1::Scene& scene) const {
  v1::LoadSceneRequest req;
  req.set_world(world);
  *req.mutable_scene() = scene;
  auto r = LINKAGE_CALL(true, worlds_, LoadScene, v1::LoadSceneResponse, req);
  if (!r) return r.error();
  return r->world();
}

Result<v1::Scene> Client::save_scene(const std::string& world) const {
  v1::SaveSceneRequest req;
  req.set_world(world);
  auto r = LINKAGE_CALL(true, worlds_, SaveScene, v1::SaveSceneResponse, req);
  if (!r) return r.error();
  return r->scene();
}

Result<v1::ApplyBatchResponse> Client::apply_batch(const std::string& world, const Batch& batch) const {
  v1::ApplyBatchRequest req;
  req.set_world(world);
  for (const v1::Command& c : batch.commands()) *req.add_commands() = c;
  return LINKAGE_CALL(false, worlds_, ApplyBatch, v1::ApplyBatchResponse, req);
}

std::unique_ptr<Subscription> Client::subscribe(const std::string& world, SubscribeOptions options) const {
  return std::make_unique<Subscription>(*worlds_, world, std::move(options));
}

}  // namespace linkage::client

