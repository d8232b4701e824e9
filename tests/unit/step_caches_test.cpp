// What a step keeps between its stages and from step to step, beside the
// rows: diag(J W Jᵀ) made by the evaluation that wrote J (kept while J's
// values and the inverse masses stay), the rows' kinds (kept while the
// model stays), and sums over the rows that are the same on any number of
// threads.
#include <gtest/gtest.h>

#include <cstring>
#include <numbers>
#include <vector>

#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "model_scene.hpp"
#include "parallel.hpp"
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
