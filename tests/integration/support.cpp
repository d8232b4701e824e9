#include "support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace linkage::itest {

std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds timeout) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + timeout);
  return ctx;
}

std::string status_text(const grpc::Status& s) {
  return std::to_string(static_cast<int>(s.error_code())) + " " + s.error_message();
}

Client::Client(const std::string& target) {
  grpc::ChannelArguments args;
  // A connection of its own, as a separate client process would have.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  worlds = v1::WorldService::NewStub(channel);
  bodies = v1::BodyService::NewStub(channel);
  constraints = v1::ConstraintService::NewStub(channel);
  forces = v1::ForceService::NewStub(channel);
}

v1::World Client::get_world(const std::string& world) {
  v1::GetWorldRequest req;
  req.set_world(world);
  v1::GetWorldResponse resp;
  const grpc::Status s = worlds->GetWorld(context().get(), req, &resp);
  EXPECT_TRUE(s.ok()) << "GetWorld " << world << ": " << status_text(s);
  return resp.world();
}

v1::World Client::create_world(const v1::CreateWorldRequest& request) {
  v1::CreateWorldResponse resp;
  const grpc::Status s = worlds->CreateWorld(context().get(), request, &resp);
  EXPECT_TRUE(s.ok()) << "CreateWorld " << request.name() << ": " << status_text(s);
  return resp.world();
}

v1::ListBodiesResponse Client::list_bodies(const std::string& world) {
  v1::ListBodiesRequest req;
  req.set_world(world);
  v1::ListBodiesResponse resp;
  const grpc::Status s = bodies->ListBodies(context().get(), req, &resp);
  EXPECT_TRUE(s.ok()) << "ListBodies " << world << ": " << status_text(s);
  return resp;
}

v1::ListConstraintsResponse Client::list_constraints(const std::string& world) {
  v1::ListConstraintsRequest req;
  req.set_world(world);
  v1::ListConstraintsResponse resp;
  const grpc::Status s = constraints->ListConstraints(context().get(), req, &resp);
  EXPECT_TRUE(s.ok()) << "ListConstraints " << world << ": " << status_text(s);
  return resp;
}

v1::ListForcesResponse Client::list_forces(const std::string& world) {
  v1::ListForcesRequest req;
  req.set_world(world);
  v1::ListForcesResponse resp;
  const grpc::Status s = forces->ListForces(context().get(), req, &resp);
  EXPECT_TRUE(s.ok()) << "ListForces " << world << ": " << status_text(s);
  return resp;
}

v1::ApplyBatchResponse Client::apply_batch(const v1::ApplyBatchRequest& request) {
  v1::ApplyBatchResponse resp;
  const grpc::Status s = worlds->ApplyBatch(context().get(), request, &resp);
  EXPECT_TRUE(s.ok()) << "ApplyBatch " << request.world() << ": " << status_text(s);
  return resp;
}

v1::World Client::step(const std::string& world, std::uint32_t ticks) {
  v1::StepRequest req;
  req.set_world(world);
  req.set_ticks(ticks);
  v1::StepResponse resp;
  const grpc::Status s = worlds->Step(context().get(), req, &resp);
  EXPECT_TRUE(s.ok()) << "Step " << world << ": " << status_text(s);
  return resp.world();
}

InProcessServer::InProcessServer(ServerOptions options) {
  server::ServerLimits limits = options.limits;
  if (options.max_message_bytes > 0)
    limits.world.max_bytes = server::footprint_limit(static_cast<std::uint64_t>(options.max_message_bytes));
  registry_ = std::make_unique<server::Registry>(limits);
  WorldSettings defaults;
  defaults.dt = 1.0 / options.tick_rate;
  // The default world, as serve.cpp makes it.
  auto host = registry_->create("default", World::create(defaults).value(), server::Names{}, limits.world, false);
  EXPECT_TRUE(host.ok());
  services_ = std::make_unique<server::Services>(*registry_, defaults);
  grpc::EnableDefaultHealthCheckService(true);  // as serve.cpp does
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
  if (options.max_receive_bytes > 0) builder.SetMaxReceiveMessageSize(options.max_receive_bytes);
  if (options.max_message_bytes > 0) builder.SetMaxSendMessageSize(options.max_message_bytes);
  services_->register_with(builder);
  server_ = builder.BuildAndStart();
  EXPECT_TRUE(server_ != nullptr);
  EXPECT_NE(port_, 0);
  target_ = "127.0.0.1:" + std::to_string(port_);
}

InProcessServer::~InProcessServer() {
  registry_->stop_all("the test server is stopping");
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + 2s);
    server_->Wait();
    server_.reset();
  }
  services_.reset();
  registry_.reset();
}

v1::Vec3 vec(double x, double y, double z) {
  v1::Vec3 v;
  v.set_x(x);
  v.set_y(y);
  v.set_z(z);
  return v;
}

v1::BodyDef particle(const std::string& name, double x, double y, double mass) {
  v1::BodyDef b;
  b.set_name(name);
  b.set_kind(v1::BODY_KIND_PARTICLE);
  *b.mutable_position() = vec(x, y);
  b.set_mass(mass);
  return b;
}

v1::ConstraintDef rod(const std::string& a, const std::string& b, const std::string& name) {
  v1::ConstraintDef c;
  c.set_name(name);
  v1::Distance* d = c.mutable_distance();
  if (!a.empty()) d->mutable_a()->set_name(a);
  d->mutable_b()->set_name(b);
  return c;
}

v1::ApplyBatchRequest chain_batch(const std::string& world, int n, double spacing, double dx, double dy) {
  v1::ApplyBatchRequest req;
  req.set_world(world);
  for (int i = 1; i <= n; ++i)
    *req.add_commands()->mutable_create_body() =
        particle("link-" + std::to_string(i), spacing * i * dx, spacing * i * dy);
  for (int i = 1; i <= n; ++i)
    *req.add_commands()->mutable_add_constraint() =
        rod(i == 1 ? "" : "link-" + std::to_string(i - 1), "link-" + std::to_string(i), "rod-" + std::to_string(i));
  return req;
}

v1::ApplyBatchResponse create_hanging_chain(Client& c, const std::string& world, int n, double rate,
                                            v1::Dynamics dynamics) {
  v1::CreateWorldRequest create;
  create.set_name(world);
  create.set_paused(true);
  create.mutable_settings()->set_tick_rate(rate);
  create.mutable_settings()->set_dynamics(dynamics);
  c.create_world(create);
  return c.apply_batch(chain_batch(world, n, 0.1, 0.0, -1.0));
}

std::set<IdKey> body_ids(const v1::ListBodiesResponse& r) {
  std::set<IdKey> out;
  for (const v1::Body& b : r.bodies()) out.insert(key(b.id()));
  return out;
}

std::set<IdKey> constraint_ids(const v1::ListConstraintsResponse& r) {
  std::set<IdKey> out;
  for (const v1::Constraint& c : r.constraints()) out.insert(key(c.id()));
  return out;
}

std::int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace linkage::itest
