#pragma once
// A connection to linkaged and a typed helper for every RPC.
//
//   auto client = linkage::client::Client::connect("127.0.0.1:50051").value();
//   Id bob = client.create_body("default", {.position = {1, 0}, .mass = 1}).value();
//   Id rod = client.add_constraint("default", DistanceDef{.b = bob}).value();  // a: the world
//
// Every call has a deadline (ConnectOptions::call_timeout) and answers with a
// Result: the value, or the server's status code and message. Calls that
// change nothing or set a state outright (Get*, List*, SaveScene, Pause,
// Resume, Update*, LoadScene) are retried on UNAVAILABLE, with a growing
// pause, within their deadline; calls that create, remove or step are not,
// since an UNAVAILABLE answer does not prove the server did not act on them.
//
// A Client may be used from several threads at once (gRPC stubs are
// thread-safe); subscriptions share its channel.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "linkage/client/batch.hpp"
#include "linkage/client/constraints.hpp"
#include "linkage/client/defs.hpp"
#include "linkage/client/proto.hpp"
#include "linkage/client/result.hpp"
#include "linkage/v1/service.grpc.pb.h"

namespace linkage::client {

using namespace std::chrono_literals;

struct ConnectOptions {
  // How long connect() keeps trying to reach the server (a server that is
  // still starting answers UNAVAILABLE until it listens).
  std::chrono::milliseconds connect_timeout = 5s;
  // Each unary call's deadline, retries included.
  std::chrono::milliseconds call_timeout = 10s;
  // The first pause between attempts; it doubles up to max_backoff.
  std::chrono::milliseconds backoff = 50ms;
  std::chrono::milliseconds max_backoff = 1s;
  // The largest message received (a big world's ListBodies or SaveScene).
  int max_receive_bytes = 64 << 20;
  // Sent with every call as "authorization: Bearer <token>" (a server
  // started with --tokens wants one); empty: none.
  std::string token{};
  // TLS: on when `tls` is set or any of the PEM texts below is given.
  bool tls = false;
  // The CA that signed the server's certificate (PEM text); empty: the system's roots.
  std::string tls_ca{};
  // A client certificate and its key (PEM texts), for a server that asks for one (mTLS).
  std::string tls_cert{};
  std::string tls_key{};
  // The name the server's certificate must carry, when it is not the target's host.
  std::string tls_server_name{};
};

// What removing a body took with it.
struct Removed {
  std::vector<Id> constraints{};
  std::vector<Id> forces{};
};

struct CreateWorldOptions {
  WorldSettings settings{};
  WorldLimits limits{};
  bool paused = false;
};

class Subscription;
struct SubscribeOptions;

class Client {
 public:
  // Opens a channel to `target` ("host:port") and waits until the server
  // answers, retrying UNAVAILABLE until connect_timeout: UNAVAILABLE (with
  // the last reason) if it never does. A server that refuses the token
  // (none, or a wrong one) is connected to: its calls answer UNAUTHENTICATED
  // or PERMISSION_DENIED, and serving() needs no token.
  static Result<Client> connect(const std::string& target, const ConnectOptions& options = {});

  const std::string& target() const { return target_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  v1::WorldService::Stub& world_stub() const { return *worlds_; }
  v1::BodyService::Stub& body_stub() const { return *bodies_; }
  v1::ConstraintService::Stub& constraint_stub() const { return *constraints_; }
  v1::ForceService::Stub& force_stub() const { return *forces_; }

  // The standard gRPC health check: true if `service` ("" = the server as a
  // whole) is SERVING, false if the server says it is not; NOT_FOUND for a
  // service the server does not know.
  Result<bool> serving(const std::string& service = "") const;

  // --- worlds (WorldService) ---
  Result<v1::World> create_world(const std::string& name, const CreateWorldOptions& options = {}) const;
  Result<std::vector<v1::World>> list_worlds() const;
  Result<v1::World> get_world(const std::string& world) const;
  // Settings and limits given change; the rest keep their values.
  Result<v1::World> update_world(const std::string& world, const WorldSettings& settings,
                                 const WorldLimits& limits = {}) const;
  Status delete_world(const std::string& world) const;
  // A paused copy of `world` named `name`: as it is now, or as it was at
  // `tick` (a server with --data-dir keeps the recent ticks).
  Result<v1::World> fork_world(const std::string& world, const std::string& name,
                               std::optional<std::uint64_t> tick = std::nullopt) const;
  Result<v1::World> pause(const std::string& world) const;
  Result<v1::World> resume(const std::string& world) const;
  // Steps a paused world by `ticks` (≥ 1) and answers when they are done, or
  // with fewer (ticks(), and ended() says why) shortly before the call's
  // deadline, or when the world is resumed or pauses itself.
  Result<v1::StepResponse> step(const std::string& world, std::uint32_t ticks = 1) const;
  Result<v1::World> reset(const std::string& world) const;
  Result<v1::World> load_scene(const std::string& world, const v1::Scene& scene) const;
  Result<v1::Scene> save_scene(const std::string& world) const;
  Result<v1::ApplyBatchResponse> apply_batch(const std::string& world, const Batch& batch) const;
  // Starts streaming the world's state; see subscription.hpp.
  std::unique_ptr<Subscription> subscribe(const std::string& world, SubscribeOptions options) const;

  // --- bodies (BodyService) ---
  Result<Id> create_body(const std::string& world, const BodyDef& def) const;
  Result<Id> create_body(const std::string& world, const v1::BodyDef& def) const;
  Result<std::vector<Id>> create_bodies(const std::string& world, const std::vector<BodyDef>& defs) const;
  Result<std::vector<Id>> create_bodies(const std::string& world, const std::vector<v1::BodyDef>& defs) const;
  Result<v1::Body> get_body(const std::string& world, const BodyRef& body) const;
  Result<std::vector<v1::Body>> list_bodies(const std::string& world) const;
  // Replaces the body's def (its kind stays); a name renames it.
  Result<v1::Body> update_body(const std::string& world, const BodyRef& body, const BodyDef& def) const;
  Result<v1::Body> update_body(const std::string& world, const BodyRef& body, const v1::BodyDef& def) const;
  // Changes only the fields of `def` that `mask` names ("mass", "position",
  // "shape", "name"...): the rest keep the body's values when the update
  // runs, so nothing is read first and a running body keeps its state.
  Result<v1::Body> update_body(const std::string& world, const BodyRef& body, const v1::BodyDef& def,
                               const std::vector<std::string>& mask) const;
  Result<Removed> remove_body(const std::string& world, const BodyRef& body) const;

  // --- constraints (ConstraintService) ---
  Result<Id> add_constraint(const std::string& world, const ConstraintDef& def,
                            const ConstraintOptions& options = {}) const;
  Result<Id> add_constraint(const std::string& world, const v1::ConstraintDef& def) const;
  Result<std::vector<Id>> add_constraints(const std::string& world, const std::vector<v1::ConstraintDef>& defs) const;
  Result<v1::Constraint> get_constraint(const std::string& world, Id id) const;
  Result<std::vector<v1::Constraint>> list_constraints(const std::string& world) const;
  // Changes parameters; the def must be of the constraint's type, on its bodies.
  Result<v1::Constraint> update_constraint(const std::string& world, Id id, const ConstraintDef& def,
                                           const ConstraintOptions& options = {}) const;
  Result<v1::Constraint> update_constraint(const std::string& world, Id id, const v1::ConstraintDef& def) const;
  // Changes only the fields `mask` names ("distance.length", "softness",
  // "name"...); the rest keep the constraint's values when the update runs.
  Result<v1::Constraint> update_constraint(const std::string& world, Id id, const v1::ConstraintDef& def,
                                           const std::vector<std::string>& mask) const;
  Status remove_constraint(const std::string& world, Id id) const;

  // --- forces (ForceService) ---
  Result<Id> add_spring(const std::string& world, const SpringDef& def) const;
  Result<Id> apply_force(const std::string& world, const ForceDef& def) const;
  Result<Id> add_force(const std::string& world, const v1::ForceDef& def) const;
  // Springs only: an applied force is removed and added again instead.
  Result<v1::Force> update_spring(const std::string& world, Id id, const SpringDef& def) const;
  Result<v1::Force> update_force(const std::string& world, Id id, const v1::ForceDef& def) const;
  // Changes only the fields `mask` names ("spring.stiffness"...); the rest keep the spring's.
  Result<v1::Force> update_force(const std::string& world, Id id, const v1::ForceDef& def,
                                 const std::vector<std::string>& mask) const;
  Status remove_force(const std::string& world, Id id) const;
  Result<std::vector<v1::Force>> list_forces(const std::string& world) const;
  Status apply_impulse(const std::string& world, const ImpulseDef& def) const;

 private:
  Client(std::string target, std::shared_ptr<grpc::Channel> channel, const ConnectOptions& options);

  std::string target_{};
  ConnectOptions options_;
  std::shared_ptr<grpc::Channel> channel_{};
  std::unique_ptr<v1::WorldService::Stub> worlds_{};
  std::unique_ptr<v1::BodyService::Stub> bodies_{};
  std::unique_ptr<v1::ConstraintService::Stub> constraints_{};
  std::unique_ptr<v1::ForceService::Stub> forces_{};
};

}  // namespace linkage::client
