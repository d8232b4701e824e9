#pragma once
// The checks constraint types share (each type's validate in its own file
// uses them), beside the core's own (../checks.hpp).

#include "../checks.hpp"
#include "constraint.hpp"

namespace linkage {

// A direction: a point (check_vec) that is not zero.
Status check_direction(const char* field, const Vec3& v, int dim);
// A length that is either "current" (NaN) or finite and > 0.
Status check_length_or_current(const char* field, double x);
// Any finite value, or "current" (NaN).
Status check_finite_or_current(const char* field, double x);
// The two ends of a two-body constraint: b is a body, a a different body or the world.
Status check_pair(BodyId a, BodyId b, const char* name_a = "a", const char* name_b = "b");
Status need_2d(const char* type, int dim);
// A rigid body at `field` (or the world, where world_ok).
Status need_rigid(const char* field, BodyFacts f, bool world_ok);

// C of the def's first row at this state: what a "current" value measures
// with that value taken as 0.
template <class Def>
double constraint_value(const Def& def, const BodyView& a, const BodyView& b, double t) {
  Rows rows;
  evaluate(def, a, b, t, 2, rows);
  return rows.C[0];
}

// A "current" offset c (gear, rack and pinion: C = ... − c) is the C the
// state gives with c = 0.
template <class Def>
void resolve_offset(Def& c, const BodyView& a, const BodyView& b, double t) {
  if (!std::isnan(c.offset)) return;
  Def probe = c;
  probe.offset = 0.0;
  c.offset = constraint_value(probe, a, b, t);
}

}  // namespace linkage
