// BodyService: bodies of a world.
#include "convert/convert.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;
using State = WorldHost::State;

class BodyServiceImpl final : public v1::BodyService::CallbackService {
 public:
  explicit BodyServiceImpl(Registry& registry) : registry_(registry) {}

  ServerUnaryReactor* CreateBody(CallbackServerContext* ctx, const v1::CreateBodyRequest* req,
                                 v1::CreateBodyResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<BodyId> id = s.world.create_body(req->body());
      if (!id) return id.error();
      id_to_proto(id.value(), resp->mutable_id());
      return ok_status();
    });
  }

  ServerUnaryReactor* CreateBodies(CallbackServerContext* ctx, const v1::CreateBodiesRequest* req,
                                   v1::CreateBodiesResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      return s.world.create_bodies(req->bodies(), resp->mutable_ids());
    });
  }

  ServerUnaryReactor* GetBody(CallbackServerContext* ctx, const v1::GetBodyRequest* req,
                              v1::GetBodyResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<BodyId> id = s.world.find_body(req->body());
      if (!id) return id.error();
      s.world.describe(id.value(), resp->mutable_body());
      return ok_status();
    });
  }

  ServerUnaryReactor* ListBodies(CallbackServerContext* ctx, const v1::ListBodiesRequest* req,
                                 v1::ListBodiesResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost&) -> Status {
      for (const BodyId id : s.world.core().bodies()) s.world.describe(id, resp->add_bodies());
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateBody(CallbackServerContext* ctx, const v1::UpdateBodyRequest* req,
                                 v1::UpdateBodyResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<BodyId> id = s.world.update_body(req->body(), req->def(), req->update_mask());
      if (!id) return id.error();
      s.world.describe(id.value(), resp->mutable_body());
      return ok_status();
    });
  }

  ServerUnaryReactor* RemoveBody(CallbackServerContext* ctx, const v1::RemoveBodyRequest* req,
                                 v1::RemoveBodyResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<Removed> removed = s.world.remove_body(req->body());
      if (!removed) return removed.error();
      for (const ConstraintId id : removed.value().constraints) id_to_proto(id, resp->add_removed_constraints());
      for (const ForceId id : removed.value().forces) id_to_proto(id, resp->add_removed_forces());
      return ok_status();
    });
  }

 private:
  Registry& registry_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_body_service(Registry& registry) {
  return std::make_unique<BodyServiceImpl>(registry);
}

}  // namespace linkage::server
