// ForceService: springs, dampers, applied forces and impulses of a world.
#include "commands.hpp"
#include "convert/convert.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

class ForceServiceImpl final : public v1::ForceService::CallbackService {
 public:
  explicit ForceServiceImpl(Registry& registry) : registry_(registry) {}

  ServerUnaryReactor* AddForce(CallbackServerContext* ctx, const v1::AddForceRequest* req,
                               v1::AddForceResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      Result<ForceId> id = add_force(s, req->force());
      if (!id) return id.error();
      resp->mutable_id()->set_index(id.value().index);
      resp->mutable_id()->set_generation(id.value().generation);
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateForce(CallbackServerContext* ctx, const v1::UpdateForceRequest* req,
                                  v1::UpdateForceResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      if (Status ok = update_force(s, req->id(), req->force()); !ok) return ok;
      force_to_proto(s.world.force(ForceId{req->id().index(), req->id().generation()}).value(), resp->mutable_force());
      return ok_status();
    });
  }

  ServerUnaryReactor* RemoveForce(CallbackServerContext* ctx, const v1::RemoveForceRequest* req,
                                  v1::RemoveForceResponse*) override {
    return on_world(ctx, registry_, req->world(), [req](State& s, WorldHost&) { return remove_force(s, req->id()); });
  }

  ServerUnaryReactor* ListForces(CallbackServerContext* ctx, const v1::ListForcesRequest* req,
                                 v1::ListForcesResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost&) -> Status {
      for (const ForceId id : s.world.forces()) force_to_proto(s.world.force(id).value(), resp->add_forces());
      return ok_status();
    });
  }

  ServerUnaryReactor* ApplyImpulse(CallbackServerContext* ctx, const v1::ApplyImpulseRequest* req,
                                   v1::ApplyImpulseResponse*) override {
    return on_world(ctx, registry_, req->world(),
                    [req](State& s, WorldHost&) { return apply_impulse(s, req->impulse()); });
  }

 private:
  Registry& registry_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_force_service(Registry& registry) {
  return std::make_unique<ForceServiceImpl>(registry);
}

}  // namespace linkage::server
