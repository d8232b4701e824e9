// ConstraintService: constraints of a world.
#include "convert/convert.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

using State = WorldHost::State;

Status describe_constraint(const State& s, const v1::Id& id, v1::Constraint* out) {
  return s.world.describe(id_from_proto<ConstraintTag>(id), out);
}

class ConstraintServiceImpl final : public v1::ConstraintService::CallbackService {
 public:
  explicit ConstraintServiceImpl(Registry& registry) : registry_(registry) {}

  ServerUnaryReactor* AddConstraint(CallbackServerContext* ctx, const v1::AddConstraintRequest* req,
                                    v1::AddConstraintResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      Result<ConstraintId> id = s.world.add_constraint(req->constraint());
      if (!id) return id.error();
      id_to_proto(id.value(), resp->mutable_id());
      return ok_status();
    });
  }

  ServerUnaryReactor* AddConstraints(CallbackServerContext* ctx, const v1::AddConstraintsRequest* req,
                                     v1::AddConstraintsResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      return s.world.add_constraints(req->constraints(), resp->mutable_ids());
    });
  }

  ServerUnaryReactor* GetConstraint(CallbackServerContext* ctx, const v1::GetConstraintRequest* req,
                                    v1::GetConstraintResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) {
      return describe_constraint(s, req->id(), resp->mutable_constraint());
    });
  }

  ServerUnaryReactor* ListConstraints(CallbackServerContext* ctx, const v1::ListConstraintsRequest* req,
                                      v1::ListConstraintsResponse* resp) override {
    return read_world(ctx, registry_, *req, resp, [resp](State& s, WorldHost&) -> Status {
      for (const ConstraintId id : s.world.core().constraints())
        if (Status ok = s.world.describe(id, resp->add_constraints()); !ok) return ok;
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateConstraint(CallbackServerContext* ctx, const v1::UpdateConstraintRequest* req,
                                       v1::UpdateConstraintResponse* resp) override {
    return on_world(ctx, registry_, *req, resp, [req, resp](State& s, WorldHost&) -> Status {
      if (Status ok = s.world.update_constraint(req->id(), req->constraint(), req->update_mask()); !ok) return ok;
      return describe_constraint(s, req->id(), resp->mutable_constraint());
    });
  }

  ServerUnaryReactor* RemoveConstraint(CallbackServerContext* ctx, const v1::RemoveConstraintRequest* req,
                                       v1::RemoveConstraintResponse* resp) override {
    return on_world(ctx, registry_, *req, resp,
                    [req](State& s, WorldHost&) { return s.world.remove_constraint(req->id()); });
  }

 private:
  Registry& registry_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_constraint_service(Registry& registry) {
  return std::make_unique<ConstraintServiceImpl>(registry);
}

}  // namespace linkage::server
