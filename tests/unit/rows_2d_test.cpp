// A 2D pin's and rod's rows written out (constraints/rows_2d.hpp, the
// evaluation that rewrites J in place) against the generic evaluation
// (pin.cpp's and distance.cpp's evaluate): C, Ċ, J̇q̇ and both blocks to
// 1e-12 at random poses, for every pair of ends they can join in 2D (rigid,
// particle, world), and with an end that has no block (a body that cannot
// be moved) left untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <type_traits>

#include "constraints/constraint.hpp"
#include "constraints/rows_2d.hpp"

using namespace linkage;

namespace {

enum class Kind { world, particle, rigid };

double uniform(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

Vec3 random_vec2(std::mt19937& rng, double s) { return Vec3(uniform(rng, -s, s), uniform(rng, -s, s), 0.0); }

BodyView random_body(Kind k, std::mt19937& rng) {
  BodyView v;
  if (k == Kind::world) return v;
  v.exists = true;
  v.rigid = k == Kind::rigid;
  v.dof = v.rigid ? 3 : 2;
  v.x = random_vec2(rng, 50.0);
  v.v = random_vec2(rng, 5.0);
  if (v.rigid) {
    v.turn_to(uniform(rng, -std::numbers::pi, std::numbers::pi));
    v.omega = uniform(rng, -10.0, 10.0);
  }
  return v;
}

constexpr double kTolerance = 1e-12;

void expect_near(double got, double want, const char* what) {
  EXPECT_LE(std::abs(got - want), kTolerance * std::max(1.0, std::abs(want))) << what << ": got " << got << ", want " << want;
}

// The constraint of type Def between ends of kinds ka and kb, at random
// anchors (a rod of random length).
template <class Def>
Def random_def(Kind ka, Kind kb, std::mt19937& rng) {
  const BodyId none{}, some{1, 1};
  Def def{.a = ka == Kind::world ? none : some, .b = kb == Kind::world ? none : BodyId{2, 1},
          .anchor_a = random_vec2(rng, 1.0), .anchor_b = random_vec2(rng, 1.0)};
  if constexpr (std::is_same_v<Def, DistanceDef>) def.length = uniform(rng, 0.1, 80.0);
  return def;
}

void write_rows(const PinDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out) { write_pin_rows_2d(c, a, b, out); }
void write_rows(const DistanceDef& c, const BodyView& a, const BodyView& b, const RowsOut2d& out) { write_rod_rows_2d(c, a, b, out); }

template <class Def>
void check_pair(Kind ka, Kind kb, std::mt19937& rng) {
  const Def def = random_def<Def>(ka, kb, rng);
  const BodyView a = random_body(ka, rng), b = random_body(kb, rng);
  Rows want;
  evaluate_constraint(def, a, b, 0.0, 2, want);
  const int rows = want.count;
  ASSERT_EQ(rows, (std::is_same_v<Def, PinDef> ? 2 : 1));

  // Blocks at the ends that have one; a sentinel shows what was written.
  constexpr double kUnwritten = 12345.0;
  double C[2], Cdot[2], jdot_qdot[2], ja[6], jb[6];
  std::fill(std::begin(ja), std::end(ja), kUnwritten);
  std::fill(std::begin(jb), std::end(jb), kUnwritten);
  write_rows(def, a, b, {C, Cdot, jdot_qdot, a.exists ? ja : nullptr, b.exists ? jb : nullptr});
  for (int r = 0; r < rows; ++r) {
    expect_near(C[r], want.C[r], "C");
    expect_near(Cdot[r], want.Cdot[r], "Cdot");
    expect_near(jdot_qdot[r], want.jdot_qdot[r], "jdot_qdot");
  }
  const double* blocks[2] = {ja, jb};
  const BodyView* ends[2] = {&a, &b};
  for (int end = 0; end < 2; ++end) {
    const BodyView& body = *ends[end];
    const Eigen::Matrix3d& J = end == 0 ? want.Ja : want.Jb;
    for (int i = 0; i < 6; ++i) {
      if (!body.exists || i >= rows * body.dof) {
        EXPECT_EQ(blocks[end][i], kUnwritten) << "end " << end << " wrote past its block at " << i;
        continue;
      }
      expect_near(blocks[end][i], J(i / body.dof, i % body.dof), end == 0 ? "Ja" : "Jb");
    }
  }

  // An end with no block (it cannot be moved) gets no write; the rows stay.
  std::fill(std::begin(jb), std::end(jb), kUnwritten);
  double C2[2], Cdot2[2], jdot2[2];
  write_rows(def, a, b, {C2, Cdot2, jdot2, nullptr, nullptr});
  for (int r = 0; r < rows; ++r) {
    EXPECT_EQ(C2[r], C[r]);
    EXPECT_EQ(Cdot2[r], Cdot[r]);
    EXPECT_EQ(jdot2[r], jdot_qdot[r]);
  }
  for (const double x : jb) EXPECT_EQ(x, kUnwritten);
}

template <class Def>
void check_every_pair(unsigned seed) {
  std::mt19937 rng(seed);
  const Kind kinds[] = {Kind::world, Kind::particle, Kind::rigid};
  for (const Kind ka : kinds)
    for (const Kind kb : kinds) {
      if (ka == Kind::world && kb == Kind::world) continue;
      SCOPED_TRACE(testing::Message() << "a kind " << static_cast<int>(ka) << ", b kind " << static_cast<int>(kb));
      for (int i = 0; i < 200; ++i) check_pair<Def>(ka, kb, rng);
    }
}

TEST(PinRows, AgreeWithTheGenericEvaluationOnRandomPoses) { check_every_pair<PinDef>(11); }

TEST(RodRows, AgreeWithTheGenericEvaluationOnRandomPoses) { check_every_pair<DistanceDef>(12); }

// Coincident anchors: the generic evaluation's unit x, no division by 0.
TEST(RodRows, CoincidentAnchorsTakeTheUnitX) {
  std::mt19937 rng(13);
  const BodyView a = random_body(Kind::particle, rng);
  const DistanceDef rod{.a = BodyId{1, 1}, .anchor_a = Vec3::Zero(), .anchor_b = a.x, .length = 0.5};
  double C, Cdot, jdot, ja[2];
  write_rod_rows_2d(rod, a, BodyView{}, {&C, &Cdot, &jdot, ja, nullptr});
  EXPECT_EQ(C, -0.5);
  EXPECT_EQ(ja[0], -1.0);
  EXPECT_EQ(ja[1], 0.0);
  EXPECT_TRUE(std::isfinite(Cdot) && std::isfinite(jdot));
}

}  // namespace
