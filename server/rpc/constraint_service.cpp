// ConstraintService: constraints of a world.
#include "commands.hpp"
#include "convert/convert.hpp"
#include "linkage/v1/service.grpc.pb.h"
#include "on_world.hpp"
#include "services.hpp"

namespace linkage::server {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;

Status describe_constraint(const State& s, const v1::Id& id, v1::Constraint* out) {
  Result<ConstraintInfo> info = s.world.constraint(ConstraintId{id.index(), id.generation()});
  if (!info) return info.error();
  constraint_to_proto(info.value(), s.world, s.names, out);
  return ok_status();
}

class ConstraintServiceImpl final : public v1::ConstraintService::CallbackService {
 public:
  explicit ConstraintServiceImpl(Registry& registry) : registry_(registry) {}

  ServerUnaryReactor* AddConstraint(CallbackServerContext* ctx, const v1::AddConstraintRequest* req,
                                    v1::AddConstraintResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      Result<ConstraintId> id = add_constraint(s, req->constraint());
      if (!id) return id.error();
      id_to_proto(id.value(), resp->mutable_id());
      return ok_status();
    });
  }

  ServerUnaryReactor* AddConstraints(CallbackServerContext* ctx, const v1::AddConstraintsRequest* req,
                                     v1::AddConstraintsResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      if (Status ok = room_for_constraints(s, req->constraints_size(), "constraints"); !ok) return ok;
      return create_all(s, req->constraints(), "constraints", add_constraint, resp->mutable_ids());
    });
  }

  ServerUnaryReactor* GetConstraint(CallbackServerContext* ctx, const v1::GetConstraintRequest* req,
                                    v1::GetConstraintResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) {
      return describe_constraint(s, req->id(), resp->mutable_constraint());
    });
  }

  ServerUnaryReactor* ListConstraints(CallbackServerContext* ctx, const v1::ListConstraintsRequest* req,
                                      v1::ListConstraintsResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [resp](State& s, WorldHost&) -> Status {
      for (const ConstraintId id : s.world.constraints())
        constraint_to_proto(s.world.constraint(id).value(), s.world, s.names, resp->add_constraints());
      return ok_status();
    });
  }

  ServerUnaryReactor* UpdateConstraint(CallbackServerContext* ctx, const v1::UpdateConstraintRequest* req,
                                       v1::UpdateConstraintResponse* resp) override {
    return on_world(ctx, registry_, req->world(), [req, resp](State& s, WorldHost&) -> Status {
      if (Status ok = update_constraint(s, req->id(), req->constraint()); !ok) return ok;
      return describe_constraint(s, req->id(), resp->mutable_constraint());
    });
  }

  ServerUnaryReactor* RemoveConstraint(CallbackServerContext* ctx, const v1::RemoveConstraintRequest* req,
                                       v1::RemoveConstraintResponse*) override {
    return on_world(ctx, registry_, req->world(),
                    [req](State& s, WorldHost&) { return remove_constraint(s, req->id()); });
  }

 private:
  Registry& registry_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_constraint_service(Registry& registry) {
  return std::make_unique<ConstraintServiceImpl>(registry);
}

}  // namespace linkage::server
