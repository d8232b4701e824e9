// What a step keeps between its stages and from step to step, beside the
// rows: diag(J W Jᵀ) made by the evaluation that wrote J (kept while J's
// values and the inverse masses stay), the rows' kinds (kept while the
// model stays), the compact records of a 2D model's rods and pins (the
// same rows as the generic evaluation's), and sums over the rows that are
// the same on any number of threads.
#include <gtest/gtest.h>

#include <cstring>
#include <numbers>
#include <random>
#include <vector>

#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "model_scene.hpp"
#include "parallel.hpp"
#include "planar_rows.hpp"
#include "workspace.hpp"

using namespace linkage;

namespace {

// Rigid bars and particles in 2D, pinned and linked by a rod, one pin to
// the world: both of the evaluation's paths (the written-out pin, any other
// constraint) and every kind of end.
Scene bars_and_particles() {
  Scene s(2);
  const int a = s.body(BodyKind::rigid, Vec3(0, 0, 0), 0.3, 2.0);
  const int b = s.body(BodyKind::rigid, Vec3(1, 0.2, 0), -0.4, 1.5);
  const int p = s.body(BodyKind::particle, Vec3(1.8, -0.5, 0));
  const int fixed = s.body(BodyKind::rigid, Vec3(-1, 0, 0), 0.0, 1.0, Motion::fixed);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, a, b);
  s.add(DistanceDef{.anchor_a = Vec3(0.5, 0.1, 0)}, b, p);
  s.add(PinDef{.anchor_a = Vec3(-0.5, 0, 0)}, a, -1);
  s.add(PinDef{.anchor_a = Vec3(0.2, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, fixed, a);
  s.perturb(7, 0.05);
  return s;
}

bool same_bits(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(double) * static_cast<std::size_t>(x.size())) == 0;
}

}  // namespace

TEST(StepCaches, TheEvaluationLeavesDiagOfTheJItWrote) {
  Scene s = bars_and_particles();
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  update_inverse_masses(m, d, ws);
  evaluate_constraints(m, d, ws, 0.0, d.q, d.v);  // lays J out
  evaluate_constraints(m, d, ws, 0.0, d.q, d.v);  // writes it in place, with diag
  EXPECT_TRUE(same_bits(ws.diag, ws.J.gram_diagonal(ws.w)));
  prepare_system(m, ws);
  EXPECT_TRUE(same_bits(ws.diag, ws.J.gram_diagonal(ws.w)));

  // Moved: the next evaluation's diag is the new J's.
  d.q[2] += 0.7;
  d.q[3] -= 0.2;
  const Eigen::VectorXd before = ws.diag;
  evaluate_constraints(m, d, ws, 0.0, d.q, d.v);
  EXPECT_FALSE(same_bits(ws.diag, before));
  EXPECT_TRUE(same_bits(ws.diag, ws.J.gram_diagonal(ws.w)));

  // J's values changed behind the evaluation's back: prepare_system makes diag again.
  ws.J.mutable_values()[0] *= 3.0;
  prepare_system(m, ws);
  EXPECT_TRUE(same_bits(ws.diag, ws.J.gram_diagonal(ws.w)));
  // And for another J of the same rows (SHAKE's step directions).
  BlockJacobian other = ws.J;
  other.mutable_values()[1] += 0.5;
  prepare_system(m, ws, other);
  EXPECT_TRUE(same_bits(ws.diag, other.gram_diagonal(ws.w)));
}

TEST(StepCaches, TheRowsKindsFollowTheModel) {
  Scene s = bars_and_particles();
  WorldData d = s.d;
  Workspace ws;
  update_inverse_masses(s.m, d, ws);
  evaluate_constraints(s.m, d, ws, 0.0, d.q, d.v);
  evaluate_constraints(s.m, d, ws, 0.0, d.q, d.v);
  const int rod_row = s.first_row(1);
  EXPECT_EQ(ws.soft_omega[rod_row], 0.0);

  // A new softness is a new model version: the next evaluation writes it.
  s.m.constraints[1].softness = Softness{.frequency = 3.0, .damping_ratio = 0.5};
  ++s.m.model_version;
  update_inverse_masses(s.m, d, ws);
  evaluate_constraints(s.m, d, ws, 0.0, d.q, d.v);
  EXPECT_EQ(ws.soft_omega[rod_row], 2.0 * std::numbers::pi * 3.0);
  EXPECT_EQ(ws.soft_zeta[rod_row], 0.5);
  EXPECT_EQ(ws.soft_omega[s.first_row(0)], 0.0);
}

// Rods and pins between every kind of end (particles and bars, moving and
// fixed, the world, with anchors) through their compact records, beside a
// constraint of another kind (the generic evaluation's): the rows, J and
// diag bit for bit those of the evaluation without the records, in both
// dynamics families (the force-based one also writes J̇q̇ and c_tt), and
// again once the bodies moved.
TEST(StepCaches, CompactRodsAndPinsWriteTheGenericEvaluationsRows) {
  for (const Dynamics dynamics : {Dynamics::velocity_projection, Dynamics::force_based}) {
    Scene s(2);
    s.m.settings.dynamics = dynamics;
    const int p = s.body(BodyKind::particle, Vec3(0, 0, 0));
    const int q = s.body(BodyKind::particle, Vec3(1, 0.3, 0), 0.0, 2.0);
    const int fixed = s.body(BodyKind::particle, Vec3(-1, 0.5, 0), 0.0, 1.0, Motion::fixed);
    const int bar = s.body(BodyKind::rigid, Vec3(2, -0.4, 0), 0.7, 1.5);
    const int post = s.body(BodyKind::rigid, Vec3(3, 0.4, 0), -0.3, 1.0, Motion::fixed);
    s.add(DistanceDef{}, p, q);
    s.add(DistanceDef{.anchor_a = Vec3(0.05, -0.02, 0), .anchor_b = Vec3(-0.03, 0.04, 0)}, fixed, p);
    s.add(DistanceDef{.anchor_a = Vec3(0.2, 0.1, 0), .anchor_b = Vec3(1.5, 1.0, 0)}, q, -1);
    s.add(DistanceDef{.anchor_b = Vec3(0.3, 0, 0)}, q, bar);
    s.add(PinDef{.anchor_a = Vec3(-0.5, 0, 0)}, bar, -1);
    s.add(PinDef{.anchor_a = Vec3(0.4, 0.1, 0), .anchor_b = Vec3(-0.2, 0.3, 0)}, bar, post);
    s.add(PinDef{.anchor_b = Vec3(0.1, -0.1, 0)}, -1, p);
    s.add(PointOnLineDef{.axis = Vec3(1, 0, 0)}, bar, q);
    const std::vector<int> kinds{1, 1, 1, 0, 0, 0, 0, -1};  // 1: a rod between particles, 0: another rod or a pin, −1: neither
    s.perturb(11, 0.05);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int i = 0; i < s.d.v.size(); ++i) s.d.v[i] = u(rng);

    Workspace with, without;
    without.planar_enabled = false;
    for (int move = 0; move < 2; ++move) {
      if (move == 1)
        for (int i = 0; i < s.d.q.size(); ++i) s.d.q[i] += 0.1 * u(rng);
      for (Workspace* ws : {&with, &without}) {
        update_inverse_masses(s.m, s.d, *ws);
        evaluate_constraints(s.m, s.d, *ws, 0.0, s.d.q, s.d.v);  // lays J out, the rows' kinds
        evaluate_constraints(s.m, s.d, *ws, 0.0, s.d.q, s.d.v);  // in place: the records
      }
      const PlanarRows& records = planar_rows(s.m, with);
      ASSERT_EQ(records.rows.size(), kinds.size());
      for (std::size_t c = 0; c < kinds.size(); ++c) {
        EXPECT_EQ(records.rows[c].row >= 0, kinds[c] >= 0) << c;
        EXPECT_EQ(records.rows[c].particles, kinds[c] == 1) << c;
      }
      for (const auto field : {&Workspace::C, &Workspace::Cdot, &Workspace::lo, &Workspace::hi, &Workspace::diag})
        EXPECT_TRUE(same_bits(with.*field, without.*field));
      if (dynamics == Dynamics::force_based) {
        EXPECT_TRUE(same_bits(with.jdot_qdot, without.jdot_qdot));
        EXPECT_TRUE(same_bits(with.c_tt, without.c_tt));
      }
      ASSERT_EQ(with.J.groups().size(), without.J.groups().size());
      for (const BlockJacobian::Group& g : with.J.groups())
        for (int k = g.first_block; k < g.first_block + g.blocks; ++k) {
          const BlockJacobian::Block& b = with.J.block(k);
          EXPECT_EQ(std::memcmp(with.J.values() + b.values, without.J.values() + without.J.block(k).values,
                                sizeof(double) * static_cast<std::size_t>(g.rows * b.cols)),
                    0)
              << "block " << k;
        }
    }
  }
}

TEST(StepCaches, ChunkedSumsAreTheSameOnAnyThreadCount) {
  const int n = 3 * kSumChunk + 123;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = 1.0 / (1.0 + i) * (i % 3 == 0 ? -1.0 : 1.0);
  auto sum_of = [&](int first, int last) {
    double sum = 0.0;
    for (int i = first; i < last; ++i) sum += x[static_cast<std::size_t>(i)];
    return sum;
  };
  double by_chunks = 0.0;  // the chunks' sums, in chunk order
  for (int first = 0; first < n; first += kSumChunk) by_chunks += sum_of(first, std::min(n, first + kSumChunk));
  Threads pool;
  for (int threads : {1, 2, 3}) {
    const double sum = chunked_sum(Parallel{&pool, threads}, n, sum_of);
    EXPECT_EQ(std::memcmp(&sum, &by_chunks, sizeof sum), 0) << threads << " threads";
  }
  // One chunk: the plain loop's sum.
  const double short_sum = chunked_sum(Parallel{&pool, 2}, 1000, sum_of);
  const double plain = sum_of(0, 1000);
  EXPECT_EQ(std::memcmp(&short_sum, &plain, sizeof plain), 0);
}

// chunked_reduce combines the chunks in their order on any thread count
// (here a combine that is not commutative: the chunks' first rows, listed),
// and chunked_max is the plain maximum.
TEST(StepCaches, ChunkedReductionsCombineInChunkOrder) {
  const int n = 5 * kSumChunk + 7;
  using List = std::vector<int>;
  Threads pool;
  for (int threads : {1, 2, 3}) {
    const List firsts = chunked_reduce(
        Parallel{&pool, threads}, n, List{}, [](int first, int) { return List{first}; },
        [](List a, const List& b) {
          a.insert(a.end(), b.begin(), b.end());
          return a;
        });
    EXPECT_EQ(firsts, (List{0, kSumChunk, 2 * kSumChunk, 3 * kSumChunk, 4 * kSumChunk, 5 * kSumChunk})) << threads << " threads";
    auto f = [](int i) { return i == 3 * kSumChunk + 5 ? 2.5 : 1.0 / (1.0 + i); };
    EXPECT_EQ(chunked_max(Parallel{&pool, threads}, n, f), 2.5) << threads << " threads";
  }
}
