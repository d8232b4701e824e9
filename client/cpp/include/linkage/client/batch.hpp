#pragma once
// A list of commands applied atomically in one tick (ApplyBatch): all or
// nothing. Bodies created earlier in a batch can be named by their
// BodyDef::name in later commands, so a whole mechanism goes in one call.

#include <vector>

#include "linkage/client/constraints.hpp"
#include "linkage/client/defs.hpp"
#include "linkage/client/proto.hpp"

namespace linkage::client {

class Batch {
 public:
  Batch& create_body(const BodyDef& def);
  Batch& update_body(const BodyRef& body, const BodyDef& def);
  Batch& remove_body(const BodyRef& body);
  Batch& add_constraint(const ConstraintDef& def, const ConstraintOptions& options = {});
  Batch& update_constraint(Id id, const ConstraintDef& def, const ConstraintOptions& options = {});
  Batch& remove_constraint(Id id);
  Batch& add_spring(const SpringDef& def);
  Batch& apply_force(const ForceDef& def);
  Batch& remove_force(Id id);
  Batch& apply_impulse(const ImpulseDef& def);
  // Any command as a message, e.g. one read from a file.
  Batch& add(v1::Command command);

  bool empty() const { return commands_.empty(); }
  std::size_t size() const { return commands_.size(); }
  const std::vector<v1::Command>& commands() const { return commands_; }

 private:
  std::vector<v1::Command> commands_;
};

}  // namespace linkage::client
