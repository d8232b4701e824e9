#include "contents.hpp"

#include "convert/convert.hpp"
#include "linkage/snapshot.hpp"

namespace linkage::server::durable {

void contents_to_proto(const World& world, const Names& names, Contents* out) {
  out->set_world(encode(world.save()));
  for (const BodyId id : world.bodies())
    if (const std::string_view name = names.body_name(id); !name.empty()) {
      Named* n = out->add_bodies();
      id_to_proto(id, n->mutable_id());
      n->set_name(std::string(name));
    }
  for (const ConstraintId id : world.constraints())
    if (const std::string_view name = names.constraint_name(id); !name.empty()) {
      Named* n = out->add_constraints();
      id_to_proto(id, n->mutable_id());
      n->set_name(std::string(name));
    }
}

Result<WorldContents> contents_from_proto(const Contents& contents) {
  Result<WorldState> state = decode(contents.world());
  if (!state) return state.error();
  WorldContents out{World::create().value(), Names{}};
  out.world.restore(state.value());
  for (const Named& n : contents.bodies()) {
    const BodyId id = id_from_proto<BodyTag>(n.id());
    if (!out.world.contains(id)) return Error{ErrorCode::invalid_argument, "the name " + quote(n.name()) + " names no body"};
    if (Status ok = out.names.add_body(n.name(), id); !ok) return ok.error();
  }
  for (const Named& n : contents.constraints()) {
    const ConstraintId id = id_from_proto<ConstraintTag>(n.id());
    if (!out.world.contains(id))
      return Error{ErrorCode::invalid_argument, "the name " + quote(n.name()) + " names no constraint"};
    if (Status ok = out.names.add_constraint(n.name(), id); !ok) return ok.error();
  }
  return out;
}

}  // namespace linkage::server::durable
