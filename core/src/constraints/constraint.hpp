#pragma once
// The one small interface every constraint type implements (each in its
// own file: name, bodies, rows, checks, "current" values, C, J, J̇q̇, c_tt),
// and the one dispatch point over the ConstraintDef variant (dispatch.cpp).
//
// A constraint sees the two bodies it names as BodyViews (the world, for a
// null id, is a body that does not move) and fills Rows: per row its C, Ċ,
// J̇q̇ and c_tt, and its Jacobian blocks with respect to each body's DOF.

#include <cmath>
#include <string_view>

#include <Eigen/Core>

#include "linkage/constraints.hpp"
#include "linkage/result.hpp"

namespace linkage {

// A body's state as a constraint sees it.
struct BodyView {
  bool exists = false;  // false: the world (fixed frame, no DOF)
  bool rigid = false;   // has an angle θ as its third DOF
  int dof = 0;
  Vec3 x = Vec3::Zero();  // position (z = 0 in 2D)
  double theta = 0.0;
  double cos = 1.0, sin = 0.0;  // of θ: set them with it (turn_to)
  Vec3 v = Vec3::Zero();
  double omega = 0.0;

  void turn_to(double angle) {
    theta = angle;
    cos = std::cos(angle);
    sin = std::sin(angle);
  }
};

struct Rows {
  static constexpr int kMax = 3;
  int count = 0;
  // true for a velocity constraint J q̇ + b = 0 (a motor): it has no C, and
  // Ċ holds its velocity error J q̇ + b.
  bool velocity_level = false;
  // true for an inequality C ≤ 0 whose λ ≤ 0 (a rope): the families treat a
  // slack row (C < 0) as free to close its gap and a taut one as a bound.
  bool unilateral = false;
  double C[kMax] = {};
  double Cdot[kMax] = {};
  double jdot_qdot[kMax] = {};  // J̇ q̇
  double c_tt[kMax] = {};       // ∂²C/∂t²
  double lo[kMax] = {}, hi[kMax] = {};  // bounds on λ (±∞ for an equality)
  Eigen::Matrix3d Ja = Eigen::Matrix3d::Zero();  // row r, column: a's DOF
  Eigen::Matrix3d Jb = Eigen::Matrix3d::Zero();
};

// Which world a constraint lives in, and what the bodies it names are.
struct BodyFacts {
  bool exists = false;   // false: the world
  bool rigid = false;
  bool dynamic = false;  // moved by forces (not fixed, not kinematic)
};

// The bodies a def names, in (a, b) order; a null id is the world.
struct BodyPair {
  BodyId a, b;
};
BodyPair constraint_bodies(const ConstraintDef& def);

// Rows the constraint contributes in a world of this dimension.
int constraint_rows(const ConstraintDef& def, int dimension);

// Checks everything about the def that can be checked without the world's
// state: finite numbers, positive lengths, body kinds and dimension. Messages
// name the field.
Status validate_constraint(const ConstraintDef& def, int dimension, BodyFacts a, BodyFacts b);

// Replaces every "current" value (NaN) by its value at this state.
ConstraintDef resolve_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t);

// The constraint's rows at this state.
void evaluate_constraint(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dimension,
                         Rows& out);

// What each type's file says of it, one overload per def type: its name,
// the bodies it names (a, b), its row count, its checks, its "current"
// values measured at a state, and its rows.
#define LINKAGE_CONSTRAINT_TYPE(Def)                                   \
  std::string_view type_name(const Def&);                              \
  BodyPair bodies_of(const Def&);                                      \
  int row_count(const Def&, int dim);                                  \
  Status validate(const Def&, int dim, BodyFacts a, BodyFacts b);      \
  void resolve(Def&, const BodyView& a, const BodyView& b, double t); \
  void evaluate(const Def&, const BodyView& a, const BodyView& b, double t, int dim, Rows& out);

LINKAGE_CONSTRAINT_TYPE(DistanceDef)
LINKAGE_CONSTRAINT_TYPE(RopeDef)
LINKAGE_CONSTRAINT_TYPE(PinDef)
LINKAGE_CONSTRAINT_TYPE(PointOnLineDef)
LINKAGE_CONSTRAINT_TYPE(PointOnCircleDef)
LINKAGE_CONSTRAINT_TYPE(PointOnPlaneDef)
LINKAGE_CONSTRAINT_TYPE(WeldDef)
LINKAGE_CONSTRAINT_TYPE(RelativeAngleDef)
LINKAGE_CONSTRAINT_TYPE(GearDef)
LINKAGE_CONSTRAINT_TYPE(RackAndPinionDef)
LINKAGE_CONSTRAINT_TYPE(MotorDef)
LINKAGE_CONSTRAINT_TYPE(TrajectoryDef)
#undef LINKAGE_CONSTRAINT_TYPE

}  // namespace linkage
