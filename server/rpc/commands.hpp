#pragma once
// Every command a client can send, as one function on a world's state, run
// on the world's tick thread. The single RPCs and ApplyBatch share them.
// Each validates first and changes nothing when it fails; each records the
// topology changes it makes for the streams.

#include "convert/convert.hpp"
#include "host/describe.hpp"
#include "host/world_host.hpp"
#include "linkage/v1/service.pb.h"

namespace linkage::server {

using State = WorldHost::State;

Result<BodyId> create_body(State& s, const v1::BodyDef& def);
// Returns the body's id (a rename may have changed its name since the request).
Result<BodyId> update_body(State& s, const v1::BodyRef& body, const v1::BodyDef& def);
Result<Removed> remove_body(State& s, const v1::BodyRef& body);

Result<ConstraintId> add_constraint(State& s, const v1::ConstraintDef& def);
Status update_constraint(State& s, const v1::Id& id, const v1::ConstraintDef& def);
Status remove_constraint(State& s, const v1::Id& id);

Result<ForceId> add_force(State& s, const v1::ForceDef& def);
Status update_force(State& s, const v1::Id& id, const v1::ForceDef& def);
Status remove_force(State& s, const v1::Id& id);
Status apply_impulse(State& s, const v1::Impulse& impulse);

// Runs one command of a batch, writing what it did into `result`.
Status run_command(State& s, const v1::Command& command, v1::CommandResult* result);

// RESOURCE_EXHAUSTED naming `field[k]`, the first of `n` new bodies
// (constraints) that the world's limit leaves no room for: checked before any
// is made, so that refusing a huge list costs nothing.
Status room_for_bodies(const State& s, int n, const char* field);
Status room_for_constraints(const State& s, int n, const char* field);

// Creates every def in order with `create`, all or nothing; the error names
// the def as `field[i]`.
template <class Defs, class Create>
Status create_all(State& s, const Defs& defs, const char* field, Create create,
                  google::protobuf::RepeatedPtrField<v1::Id>* ids) {
  return atomically(s, [&]() -> Status {
    for (int i = 0; i < defs.size(); ++i) {
      auto id = create(s, defs.Get(i));
      if (!id) {
        ids->Clear();
        return prefixed(id.error(), std::string(field) + "[" + std::to_string(i) + "]");
      }
      id_to_proto(id.value(), ids->Add());
    }
    return ok_status();
  });
}

// Runs `body`; if it fails, puts the world, its names and its change log
// back as they were, so that a batch is all or nothing.
Status atomically(State& s, const std::function<Status()>& body);

}  // namespace linkage::server
