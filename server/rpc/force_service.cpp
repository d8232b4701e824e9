// ForceService: springs, dampers, applied forces and impulses of a world.
#include "convert/convert.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;
using State = WorldHost::State;

class ForceServiceImpl final : public v1::ForceService::CallbackService {
 public:
  explicit ForceServiceImpl(Registry& registry) : registry_(registry) {}

  ServerUnaryReactor* AddForce(CallbackServerContext* ctx, const v1::AddForceRequest* req,
                               v1::AddForceResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<ForceId> id = s.world.add_force(req->force());
      if (!id) return id.error();
      id_to_proto(id.value(), resp->mutable_id());
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateForce(CallbackServerContext* ctx, const v1::UpdateForceRequest* req,
                                  v1::UpdateForceResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      if (Status ok = s.world.update_force(req->id(), req->force(), req->update_mask()); !ok) return ok;
      return s.world.describe(id_from_proto<ForceTag>(req->id()), resp->mutable_force());
    });
  }

  ServerUnaryReactor* RemoveForce(CallbackServerContext* ctx, const v1::RemoveForceRequest* req,
                                  v1::RemoveForceResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req](State& s, WorldHost&) { return s.world.remove_force(req->id()); });
  }

  ServerUnaryReactor* ListForces(CallbackServerContext* ctx, const v1::ListForcesRequest* req,
                                 v1::ListForcesResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost&) -> Status {
      for (const ForceId id : s.world.core().forces())
        if (Status ok = s.world.describe(id, resp->add_forces()); !ok) return ok;
      return ok_status();
    });
  }

  ServerUnaryReactor* ApplyImpulse(CallbackServerContext* ctx, const v1::ApplyImpulseRequest* req,
                                   v1::ApplyImpulseResponse* resp) override {
    return on_world(ctx, registry_, *req, resp,
                    [req](State& s, WorldHost&) { return s.world.apply_impulse(req->impulse()); });
  }

 private:
  Registry& registry_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_force_service(Registry& registry) {
  return std::make_unique<ForceServiceImpl>(registry);
}

}  // namespace linkage::server
