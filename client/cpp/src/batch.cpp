#include "linkage/client/batch.hpp"

namespace linkage::client {

Batch& Batch::create_body(const BodyDef& def) {
  v1::Command c;
  *c.mutable_create_body() = to_proto(def);
  return add(std::move(c));
}

Batch& Batch::update_body(const BodyRef& body, const BodyDef& def) {
  v1::Command c;
  *c.mutable_update_body()->mutable_body() = to_proto(body);
  *c.mutable_update_body()->mutable_def() = to_proto(def);
  return add(std::move(c));
}

Batch& Batch::remove_body(const BodyRef& body) {
  v1::Command c;
  *c.mutable_remove_body() = to_proto(body);
  return add(std::move(c));
}

Batch& Batch::add_constraint(const ConstraintDef& def, const ConstraintOptions& options) {
  v1::Command c;
  *c.mutable_add_constraint() = to_proto(def, options);
  return add(std::move(c));
}

Batch& Batch::update_constraint(Id id, const ConstraintDef& def, const ConstraintOptions& options) {
  v1::Command c;
  *c.mutable_update_constraint()->mutable_id() = to_proto(id);
  *c.mutable_update_constraint()->mutable_constraint() = to_proto(def, options);
  return add(std::move(c));
}

Batch& Batch::remove_constraint(Id id) {
  v1::Command c;
  *c.mutable_remove_constraint() = to_proto(id);
  return add(std::move(c));
}

Batch& Batch::add_spring(const SpringDef& def) {
  v1::Command c;
  *c.mutable_add_force() = to_proto(def);
  return add(std::move(c));
}

Batch& Batch::apply_force(const ForceDef& def) {
  v1::Command c;
  *c.mutable_add_force() = to_proto(def);
  return add(std::move(c));
}

Batch& Batch::remove_force(Id id) {
  v1::Command c;
  *c.mutable_remove_force() = to_proto(id);
  return add(std::move(c));
}

Batch& Batch::apply_impulse(const ImpulseDef& def) {
  v1::Command c;
  *c.mutable_apply_impulse() = to_proto(def);
  return add(std::move(c));
}

Batch& Batch::add(v1::Command command) {
  commands_.push_back(std::move(command));
  return *this;
}

}  // namespace linkage::client
