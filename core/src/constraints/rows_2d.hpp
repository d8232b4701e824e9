#pragma once
// 2D rows written out, for the evaluation that rewrites J in place
// (constraint_system.cpp): a grid of pins or a cloth of rods spends its
// evaluation in the generic path's dispatch and its Rows copies, not in the
// constraint's arithmetic. The numbers are the constraints' own evaluate's
// (pin.cpp, distance.cpp), to round-off (rows_2d_test).

#include "constraint.hpp"

namespace linkage {

// Where a constraint's rows go: C, Ċ, J̇q̇ (a value a row each; J̇q̇ null
// where nothing reads it) and, per end, its row-major block (rows × 3 on a
// rigid body, rows × 2 on a particle), or null where the end has no block
// (the world, or a body that cannot be moved).
struct RowsOut2d {
  double* C;
  double* Cdot;
  double* jdot_qdot;
  double* Ja;
  double* Jb;
};

// One end's anchor in 2D (parts.hpp's anchor, written out): its point,
// velocity, J̇q̇ and lever arm.
struct End2d {
  double p[2], pdot[2], bias[2], s[2];
};

inline End2d end_2d(const BodyView& b, const Vec3& local) {
  End2d e{{local.x(), local.y()}, {0.0, 0.0}, {0.0, 0.0}, {local.x(), local.y()}};
  if (!b.exists) return e;
  if (b.rigid) {
    e.s[0] = b.cos * local.x() - b.sin * local.y();
    e.s[1] = b.sin * local.x() + b.cos * local.y();
    e.pdot[0] = b.v.x() + b.omega * -e.s[1];
    e.pdot[1] = b.v.y() + b.omega * e.s[0];
    const double w2 = -b.omega * b.omega;
    e.bias[0] = w2 * e.s[0];
    e.bias[1] = w2 * e.s[1];
  } else {
    e.pdot[0] = b.v.x();
    e.pdot[1] = b.v.y();
  }
  e.p[0] = b.x.x() + e.s[0];
  e.p[1] = b.x.y() + e.s[1];
  return e;
}

// A pin's two rows.
void write_pin_rows_2d(const PinDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out);
// A rod's (DistanceDef's) one row.
void write_rod_rows_2d(const DistanceDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out);

}  // namespace linkage
