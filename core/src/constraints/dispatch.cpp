// The one dispatch point over ConstraintDef: each question about a
// constraint goes to its type's own file, whatever the type.
#include <variant>

#include "constraint.hpp"

namespace linkage {

std::string_view constraint_type_name(const ConstraintDef& def) {
  return std::visit([](const auto& c) { return type_name(c); }, def);
}

BodyPair constraint_bodies(const ConstraintDef& def) {
  return std::visit([](const auto& c) { return bodies_of(c); }, def);
}

int constraint_rows(const ConstraintDef& def, int dim) {
  return std::visit([&](const auto& c) { return row_count(c, dim); }, def);
}

Status validate_constraint(const ConstraintDef& def, int dim, BodyFacts a, BodyFacts b) {
  return std::visit([&](const auto& c) { return validate(c, dim, a, b); }, def);
}

ConstraintDef resolve_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t) {
  ConstraintDef out = def;
  std::visit([&](auto& c) { resolve(c, a, b, t); }, out);
  return out;
}

void evaluate_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dim,
                         Rows& out) {
  std::visit([&](const auto& c) { evaluate(c, a, b, t, dim, out); }, def);
}

}  // namespace linkage
