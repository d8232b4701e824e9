#pragma once
// A 2D pin's rows written out, for the evaluation that rewrites J in place
// (constraint_system.cpp): a grid of pins spends its evaluation in the
// generic path's dispatch and its Rows copies, not in the pin's arithmetic.
// The numbers are pin.cpp's evaluate's.

#include "constraint.hpp"

namespace linkage {

// Where a 2D pin's two rows go: C, Ċ, J̇q̇ (two values each; J̇q̇ null where
// nothing reads it) and, per end, its row-major block (2 × 3 on a rigid
// body, 2 × 2 on a particle), or null where the end has no block (the
// world, or a body that cannot be moved).
struct PinRowsOut {
  double* C;
  double* Cdot;
  double* jdot_qdot;
  double* Ja;
  double* Jb;
};

void write_pin_rows_2d(const PinDef& c, const BodyView& a, const BodyView& b, const PinRowsOut& out);

}  // namespace linkage
