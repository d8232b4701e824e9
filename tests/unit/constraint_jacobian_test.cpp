// Every constraint type against finite differences of itself:
//   J       against central differences of C in each DOF of each body,
//   Ċ       against J q̇ + ∂C/∂t, and against C differenced along the trajectory,
//   J̇q̇     against Ċ differenced along the trajectory at q̈ = 0 (plus c_tt for a
//           time-dependent constraint: d/dt Ċ = J̇q̇ + J q̈ + ∂²C/∂t²),
// at random states of both bodies, with body a a particle, a rigid body or the
// world wherever the type allows, in 2D and 3D. A motor (a velocity row, no C)
// is checked as Ċ = J q̇ − speed and d/dt Ċ = J̇q̇.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "constraints/constraint.hpp"

using namespace linkage;

namespace {

enum class Kind { world, particle, rigid };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::world: return "world";
    case Kind::particle: return "particle";
    case Kind::rigid: return "rigid";
  }
  return "?";
}

using Rng = std::mt19937;

double uniform(Rng& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

// A random vector in the box [−s, s]^dim (z = 0 in 2D).
Vec3 random_vec(Rng& rng, int dim, double s) {
  Vec3 v = Vec3::Zero();
  for (int i = 0; i < dim; ++i) v[i] = uniform(rng, -s, s);
  return v;
}

// A random vector whose length is at least `min_norm` (nonzero anchors, axes).
Vec3 random_nonzero(Rng& rng, int dim, double s, double min_norm = 0.2) {
  for (;;) {
    Vec3 v = random_vec(rng, dim, s);
    if (v.norm() >= min_norm) return v;
  }
}

BodyView random_body(Kind k, int dim, Rng& rng) {
  BodyView v;
  if (k == Kind::world) return v;
  v.exists = true;
  v.rigid = k == Kind::rigid;
  v.dof = v.rigid ? 3 : dim;
  v.x = random_vec(rng, dim, 2.0);
  v.v = random_vec(rng, dim, 2.0);
  if (v.rigid) {
    v.turn_to(uniform(rng, -std::numbers::pi, std::numbers::pi));
    v.omega = uniform(rng, -3.0, 3.0);
  }
  return v;
}

BodyId body_id(Kind k, std::uint32_t index) { return k == Kind::world ? BodyId{} : BodyId{index, 1}; }

// DOF k of a body: x, y(, z) for a particle; x, y, θ for a 2D rigid body.
void nudge(BodyView& v, int k, double h) {
  if (v.rigid && k == 2)
    v.turn_to(v.theta + h);
  else
    v.x[k] += h;
}

double dof_velocity(const BodyView& v, int k) { return v.rigid && k == 2 ? v.omega : v.v[k]; }

// The state a time h later at constant velocity (q̈ = 0).
BodyView advance(BodyView v, double h) {
  if (!v.exists) return v;
  v.x += h * v.v;
  if (v.rigid) v.turn_to(v.theta + h * v.omega);
  return v;
}

Rows eval(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dim) {
  Rows r;
  evaluate_constraint(def, a, b, t, dim, r);
  return r;
}

constexpr double kH = 1e-6;

// |got − want| within tol·max(1, |want|).
::testing::AssertionResult near(double got, double want, double tol) {
  if (!std::isfinite(got) || !std::isfinite(want))
    return ::testing::AssertionFailure() << "not finite: got " << got << ", want " << want;
  const double err = std::abs(got - want);
  if (err <= tol * std::max(1.0, std::abs(want))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << ", error " << err;
}

std::string describe(const BodyView& v) {
  std::ostringstream s;
  if (!v.exists) return "world";
  s << (v.rigid ? "rigid" : "particle") << " x=(" << v.x.transpose() << ") θ=" << v.theta << " v=("
    << v.v.transpose() << ") ω=" << v.omega;
  return s.str();
}

// The whole check of one def at one state.
void check_state(const ConstraintDef& def, const BodyView& a, const BodyView& b, double t, int dim) {
  SCOPED_TRACE("a: " + describe(a));
  SCOPED_TRACE("b: " + describe(b));
  SCOPED_TRACE("t = " + std::to_string(t));
  const Rows r = eval(def, a, b, t, dim);
  ASSERT_EQ(r.count, constraint_rows(def, dim));
  ASSERT_GE(r.count, 1);
  ASSERT_LE(r.count, Rows::kMax);

  const BodyView* views[2] = {&a, &b};
  const Eigen::Matrix3d* blocks[2] = {&r.Ja, &r.Jb};

  // Jq̇ for each row.
  double jqdot[Rows::kMax] = {};
  for (int row = 0; row < r.count; ++row)
    for (int body = 0; body < 2; ++body)
      for (int k = 0; k < views[body]->dof; ++k) jqdot[row] += (*blocks[body])(row, k) * dof_velocity(*views[body], k);

  // Columns past a body's DOF (all of them for the world) carry nothing.
  for (int body = 0; body < 2; ++body)
    for (int row = 0; row < r.count; ++row)
      for (int k = views[body]->dof; k < 3; ++k)
        EXPECT_EQ((*blocks[body])(row, k), 0.0) << "J" << (body ? "b" : "a") << "(" << row << ", " << k
                                                << ") outside the body's DOF";

  const Rows fwd = eval(def, advance(a, kH), advance(b, kH), t + kH, dim);
  const Rows bwd = eval(def, advance(a, -kH), advance(b, -kH), t - kH, dim);

  if (r.velocity_level) {
    // A motor: Ċ is the velocity error J q̇ + b with b = −speed.
    const double speed = std::get<MotorDef>(def).speed;
    for (int row = 0; row < r.count; ++row) {
      EXPECT_TRUE(near(r.Cdot[row], jqdot[row] - speed, 1e-12)) << "motor row " << row << ": Ċ vs J q̇ − speed";
      // d/dt of the velocity error at q̈ = 0 is J̇q̇.
      const double fd = (fwd.Cdot[row] - bwd.Cdot[row]) / (2 * kH);
      EXPECT_TRUE(near(r.jdot_qdot[row], fd, 1e-6)) << "motor row " << row << ": J̇q̇ vs d/dt Ċ";
      EXPECT_EQ(r.c_tt[row], 0.0);
    }
    return;
  }

  // J against central differences of C in each DOF.
  for (int body = 0; body < 2; ++body) {
    for (int k = 0; k < views[body]->dof; ++k) {
      BodyView plus[2] = {a, b}, minus[2] = {a, b};
      nudge(plus[body], k, kH);
      nudge(minus[body], k, -kH);
      const Rows rp = eval(def, plus[0], plus[1], t, dim);
      const Rows rm = eval(def, minus[0], minus[1], t, dim);
      for (int row = 0; row < r.count; ++row) {
        const double fd = (rp.C[row] - rm.C[row]) / (2 * kH);
        EXPECT_TRUE(near((*blocks[body])(row, k), fd, 1e-7))
            << "J" << (body ? "b" : "a") << "(" << row << ", " << k << ") vs ∂C/∂q";
      }
    }
  }

  // ∂C/∂t, by differencing C in time alone.
  const Rows tp = eval(def, a, b, t + kH, dim);
  const Rows tm = eval(def, a, b, t - kH, dim);

  for (int row = 0; row < r.count; ++row) {
    const double c_t = (tp.C[row] - tm.C[row]) / (2 * kH);
    // Ċ = J q̇ + ∂C/∂t.
    EXPECT_TRUE(near(r.Cdot[row], jqdot[row] + c_t, 1e-7)) << "row " << row << ": Ċ vs J q̇ + ∂C/∂t";
    // Ċ = dC/dt along the trajectory.
    const double dc = (fwd.C[row] - bwd.C[row]) / (2 * kH);
    EXPECT_TRUE(near(r.Cdot[row], dc, 1e-7)) << "row " << row << ": Ċ vs dC/dt";
    // d/dt Ċ at q̈ = 0 = J̇q̇ + ∂²C/∂t².
    const double ddc = (fwd.Cdot[row] - bwd.Cdot[row]) / (2 * kH);
    EXPECT_TRUE(near(r.jdot_qdot[row] + r.c_tt[row], ddc, 1e-6)) << "row " << row << ": J̇q̇ + c_tt vs d/dt Ċ";
    // c_tt = ∂²C/∂t², by a second difference of C in time alone.
    const double h2 = 1e-4;
    const double ctt_fd = (eval(def, a, b, t + h2, dim).C[row] - 2 * r.C[row] + eval(def, a, b, t - h2, dim).C[row]) /
                          (h2 * h2);
    EXPECT_TRUE(near(r.c_tt[row], ctt_fd, 1e-4)) << "row " << row << ": c_tt vs ∂²C/∂t²";
  }
}

// A def for the given dimension and body kinds, with every value resolved and random.
using MakeDef = ConstraintDef (*)(Rng&, int dim, Kind a, Kind b);

struct Combo {
  int dim;
  Kind a, b;
};

void check_type(const char* name, MakeDef make, const std::vector<Combo>& combos, unsigned seed,
                int states = 6) {
  Rng rng(seed);
  for (const Combo& c : combos) {
    SCOPED_TRACE(std::string(name) + " dim " + std::to_string(c.dim) + " a=" + kind_name(c.a) +
                 " b=" + kind_name(c.b));
    for (int i = 0; i < states; ++i) {
      const ConstraintDef def = make(rng, c.dim, c.a, c.b);
      ASSERT_EQ(constraint_type_name(def), name);
      const BodyView a = random_body(c.a, c.dim, rng);
      const BodyView b = random_body(c.b, c.dim, rng);
      const double t = uniform(rng, 0.0, 5.0);
      check_state(def, a, b, t, c.dim);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Every (a, b) pair of the kinds given, in the dimension given.
std::vector<Combo> pairs(int dim, std::vector<Kind> as, std::vector<Kind> bs) {
  std::vector<Combo> out;
  for (Kind a : as)
    for (Kind b : bs) out.push_back({dim, a, b});
  return out;
}

std::vector<Combo> concat(std::vector<Combo> x, const std::vector<Combo>& y) {
  x.insert(x.end(), y.begin(), y.end());
  return x;
}

const std::vector<Kind> kAny2 = {Kind::world, Kind::particle, Kind::rigid};
const std::vector<Kind> kBody2 = {Kind::particle, Kind::rigid};
const std::vector<Kind> kAny3 = {Kind::world, Kind::particle};
const std::vector<Kind> kBody3 = {Kind::particle};

// Two-body point constraints work on every pair of bodies, in 2D and 3D.
const std::vector<Combo> kPointPairs = concat(pairs(2, kAny2, kBody2), pairs(3, kAny3, kBody3));

}  // namespace

TEST(ConstraintJacobian, Distance) {
  check_type(
      "distance",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return DistanceDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 1.0),
                           uniform(rng, 0.5, 3.0)};
      },
      kPointPairs, 101);
}

TEST(ConstraintJacobian, Rope) {
  check_type(
      "rope",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return RopeDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 1.0),
                       uniform(rng, 0.5, 3.0)};
      },
      kPointPairs, 102);
}

TEST(ConstraintJacobian, Pin) {
  check_type(
      "pin",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return PinDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 1.0)};
      },
      kPointPairs, 102);
}

TEST(ConstraintJacobian, PointOnLine) {
  // In 3D the line's owner is a particle or the world.
  check_type(
      "point_on_line",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return PointOnLineDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0),
                              random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 2.0, 0.3)};
      },
      kPointPairs, 103);
}

TEST(ConstraintJacobian, PointOnCircle) {
  check_type(
      "point_on_circle",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return PointOnCircleDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0),
                                random_nonzero(rng, dim, 1.0), uniform(rng, 0.5, 3.0)};
      },
      kPointPairs, 104);
}

TEST(ConstraintJacobian, PointOnPlane) {
  check_type(
      "point_on_plane",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return PointOnPlaneDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0),
                               random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 2.0, 0.3)};
      },
      pairs(3, kAny3, kBody3), 105);
}

TEST(ConstraintJacobian, Weld) {
  check_type(
      "weld",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return WeldDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0), random_nonzero(rng, dim, 1.0),
                       uniform(rng, -3.0, 3.0)};
      },
      pairs(2, {Kind::world, Kind::rigid}, {Kind::rigid}), 106);
}

TEST(ConstraintJacobian, RelativeAngle) {
  check_type(
      "relative_angle",
      [](Rng& rng, int, Kind a, Kind b) -> ConstraintDef {
        return RelativeAngleDef{body_id(a, 1), body_id(b, 2), uniform(rng, -3.0, 3.0)};
      },
      pairs(2, {Kind::world, Kind::rigid}, {Kind::rigid}), 107);
}

TEST(ConstraintJacobian, Gear) {
  check_type(
      "gear",
      [](Rng& rng, int, Kind a, Kind b) -> ConstraintDef {
        return GearDef{body_id(a, 1), body_id(b, 2), uniform(rng, 0.2, 2.0), uniform(rng, 0.2, 2.0),
                       uniform(rng, -2.0, 2.0)};
      },
      pairs(2, {Kind::rigid}, {Kind::rigid}), 108);
}

TEST(ConstraintJacobian, RackAndPinion) {
  // The rack is a particle or a rigid body; the pinion is rigid.
  check_type(
      "rack_and_pinion",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        return RackAndPinionDef{body_id(a, 1), body_id(b, 2), random_nonzero(rng, dim, 1.0),
                                random_nonzero(rng, dim, 2.0, 0.3), uniform(rng, 0.2, 2.0), uniform(rng, -2.0, 2.0)};
      },
      pairs(2, kBody2, {Kind::rigid}), 109);
}

TEST(ConstraintJacobian, AngularMotor) {
  check_type(
      "motor",
      [](Rng& rng, int, Kind a, Kind b) -> ConstraintDef {
        MotorDef m{body_id(a, 1), body_id(b, 2)};
        m.kind = MotorKind::angular;
        m.speed = uniform(rng, -5.0, 5.0);
        return m;
      },
      pairs(2, {Kind::world, Kind::rigid}, {Kind::rigid}), 110);
}

TEST(ConstraintJacobian, LinearMotor) {
  check_type(
      "motor",
      [](Rng& rng, int dim, Kind a, Kind b) -> ConstraintDef {
        MotorDef m{body_id(a, 1), body_id(b, 2)};
        m.kind = MotorKind::linear;
        m.speed = uniform(rng, -5.0, 5.0);
        m.axis = random_nonzero(rng, dim, 2.0, 0.3);
        return m;
      },
      kPointPairs, 111);
}

TEST(ConstraintJacobian, Trajectory) {
  // The trajectory's body is its b; its a is always the world.
  check_type(
      "trajectory",
      [](Rng& rng, int dim, Kind, Kind b) -> ConstraintDef {
        TrajectoryDef d;
        d.body = body_id(b, 2);
        d.anchor = random_nonzero(rng, dim, 1.0);
        d.path.origin = random_vec(rng, dim, 2.0);
        d.path.velocity = random_vec(rng, dim, 1.0);
        d.path.amplitude = random_vec(rng, dim, 1.0);
        for (int i = 0; i < dim; ++i) {
          d.path.frequency[i] = uniform(rng, 0.05, 1.0);
          d.path.phase[i] = uniform(rng, -3.0, 3.0);
        }
        return d;
      },
      concat(pairs(2, {Kind::world}, kBody2), pairs(3, {Kind::world}, kBody3)), 112);
}

// The checks above must be able to fail: a J with one wrong entry, or a J̇q̇
// with a wrong sign, does not pass the same comparisons.
TEST(ConstraintJacobian, ChecksDetectWrongTerms) {
  Rng rng(7);
  const BodyView a = random_body(Kind::rigid, 2, rng);
  const BodyView b = random_body(Kind::rigid, 2, rng);
  const DistanceDef def{BodyId{1, 1}, BodyId{2, 1}, Vec3(0.3, -0.2, 0.0), Vec3(-0.4, 0.5, 0.0), 1.0};
  const Rows r = eval(def, a, b, 0.0, 2);
  // Drop the θ column of a's block: the FD of C in θ_a disagrees.
  BodyView ap = a, am = a;
  nudge(ap, 2, kH);
  nudge(am, 2, -kH);
  const double fd = (eval(def, ap, b, 0.0, 2).C[0] - eval(def, am, b, 0.0, 2).C[0]) / (2 * kH);
  EXPECT_TRUE(near(r.Ja(0, 2), fd, 1e-7));
  EXPECT_FALSE(near(0.0, fd, 1e-7));
  // Flip J̇q̇'s centripetal term: the FD of Ċ along the path disagrees.
  const double ddc =
      (eval(def, advance(a, kH), advance(b, kH), 0.0, 2).Cdot[0] - eval(def, advance(a, -kH), advance(b, -kH), 0.0, 2).Cdot[0]) /
      (2 * kH);
  EXPECT_TRUE(near(r.jdot_qdot[0], ddc, 1e-6));
  EXPECT_FALSE(near(-r.jdot_qdot[0], ddc, 1e-6));
}
