#pragma once
// What the integration tests share: an in-process server on a loopback port,
// clients with their own connection each, deadlines, and small helpers.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "host/registry.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "rpc/services.hpp"

namespace linkage::itest {

namespace v1 = linkage::v1;
using namespace std::chrono_literals;

// Every unary call's deadline.
inline constexpr std::chrono::milliseconds kRpcTimeout = 5s;

// A context whose call fails with DEADLINE_EXCEEDED after `timeout`.
std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds timeout = kRpcTimeout);

// A client: its own channel (and TCP connection: the subchannel pool is not
// shared) and a stub per service.
struct Client {
  explicit Client(const std::string& target);

  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::WorldService::Stub> worlds;
  std::unique_ptr<v1::BodyService::Stub> bodies;
  std::unique_ptr<v1::ConstraintService::Stub> constraints;
  std::unique_ptr<v1::ForceService::Stub> forces;

  // Calls with a deadline; the test fails (and the result is empty) unless OK.
  v1::World get_world(const std::string& world);
  v1::World create_world(const v1::CreateWorldRequest& request);
  v1::ListBodiesResponse list_bodies(const std::string& world);
  v1::ListConstraintsResponse list_constraints(const std::string& world);
  v1::ListForcesResponse list_forces(const std::string& world);
  v1::ApplyBatchResponse apply_batch(const v1::ApplyBatchRequest& request);
  v1::World step(const std::string& world, std::uint32_t ticks);
};

struct ServerOptions {
  server::ServerLimits limits{};
  double tick_rate = 60.0;      // of the default world and of worlds created without one
  int max_receive_bytes = -1;   // the ServerBuilder's; -1: gRPC's default (4 MB)
  // > 0: linkaged's --max-message-bytes: the largest answer, and so the worlds' footprint limit.
  int max_message_bytes = -1;
};

// A Registry with a "default" world, the services, and a grpc::Server on
// 127.0.0.1 at a port the system chose; stopped like serve.cpp stops
// (streams ended, then gRPC shut down with a deadline).
class InProcessServer {
 public:
  explicit InProcessServer(ServerOptions options = {});
  ~InProcessServer();
  InProcessServer(const InProcessServer&) = delete;
  InProcessServer& operator=(const InProcessServer&) = delete;

  const std::string& target() const { return target_; }
  int port() const { return port_; }
  server::Registry& registry() { return *registry_; }

 private:
  std::unique_ptr<server::Registry> registry_;
  std::unique_ptr<server::Services> services_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string target_;
};

// Settings and request builders.
v1::Vec3 vec(double x, double y, double z = 0.0);
v1::BodyDef particle(const std::string& name, double x, double y, double mass = 0.1);
// A distance constraint between two bodies named in the world (an empty name: the world).
v1::ConstraintDef rod(const std::string& a, const std::string& b, const std::string& name = "");
// A batch that builds an n-link chain: bodies "link-1".."link-n" spaced `spacing` apart from
// the origin along (dx, dy), link-1 hung on the world at the origin, each link on the one before.
v1::ApplyBatchRequest chain_batch(const std::string& world, int n, double spacing = 0.1, double dx = 1.0,
                                  double dy = 0.0);
// Creates a paused world ticking at `rate` whose n-link chain hangs at rest
// straight down from the origin; answers the chain's batch.
v1::ApplyBatchResponse create_hanging_chain(Client& c, const std::string& world, int n, double rate,
                                            v1::Dynamics dynamics = v1::DYNAMICS_UNSPECIFIED);

using IdKey = std::pair<std::uint32_t, std::uint32_t>;  // (index, generation)
inline IdKey key(const v1::Id& id) { return {id.index(), id.generation()}; }
std::set<IdKey> body_ids(const v1::ListBodiesResponse& r);
std::set<IdKey> constraint_ids(const v1::ListConstraintsResponse& r);

// This process's resident set (bytes), from /proc/self/statm.
std::int64_t resident_bytes();

std::string status_text(const grpc::Status& s);

}  // namespace linkage::itest
