// The tree elimination's chains (factor_chain: the pivots from continuants
// and a Newton step, no division between links) against LDLᵀ of the same
// K: random chains of 2D and 3D bodies with rows skipped, taut chains (rods
// nearly in line, K's condition about n²) with masses over six decades,
// masses at 1e±150 (where the continuants leave double's range within a
// few links), a dependent row, and trees of long branches against a dense
// factorization.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "parallel.hpp"
#include "solvers/tree_elimination.hpp"

using namespace linkage;

namespace {

// One-row constraints between bodies (−1: the world), each block on a body
// ±a unit direction (a rod's rows), in the caller's order of rows.
struct System {
  std::vector<TreeElimination::Body> bodies;
  std::vector<TreeElimination::Node> nodes;
  std::vector<double> values;
  Eigen::VectorXd w;

  System(int n, int dof, const std::vector<double>& inverse_masses) {
    for (int b = 0; b < n; ++b) bodies.push_back({b * dof, dof});
    w.resize(n * dof);
    for (int b = 0; b < n; ++b) w.segment(b * dof, dof).setConstant(inverse_masses[static_cast<std::size_t>(b)]);
  }
  int dof() const { return bodies.front().dof; }

  void rod(int a, int b, const Eigen::VectorXd& direction) {
    TreeElimination::Node n;
    n.row = static_cast<int>(nodes.size());
    n.rows = 1;
    const int ends[2] = {a, b};
    for (int e = 0; e < 2; ++e) {
      if (ends[e] < 0) continue;
      n.body[e] = ends[e];
      n.values[e] = static_cast<int>(values.size());
      for (int k = 0; k < dof(); ++k) values.push_back((e == 0 ? -1.0 : 1.0) * direction[k]);
    }
    nodes.push_back(n);
  }

  // Two blocks' product through a body (block values at u and v).
  double through(int body, int u, int v) const {
    const double* x = values.data() + u;
    const double* z = values.data() + v;
    const double m = w[bodies[static_cast<std::size_t>(body)].offset];
    double sum = z[0] * m * x[0] + z[1] * m * x[1];
    if (dof() == 3) sum += z[2] * m * x[2];
    return sum;
  }

  // A chain's K (rows in order, row i between bodies i − 1 and i) as its
  // diagonal a and its entries b_i = K(i, i − 1), each product through a
  // body summed as the tree elimination sums it (with inverse masses that
  // are powers of two, the order of its factors does not round).
  void tridiagonal(std::vector<double>& a, std::vector<double>& b) const {
    const std::size_t n = nodes.size();
    a.assign(n, 0.0);
    b.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const TreeElimination::Node& row = nodes[i];
      double through_a = 0.0;
      if (row.body[0] >= 0) {
        through_a = through(row.body[0], row.values[0], row.values[0]);
        b[i] = through(row.body[0], nodes[i - 1].values[1], row.values[0]);
      }
      a[i] = through(row.body[1], row.values[1], row.values[1]) + through_a;
    }
  }

  // K whole (for a tree's dense reference).
  Eigen::MatrixXd K() const {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nodes.size()), w.size());
    for (const TreeElimination::Node& n : nodes)
      for (int e = 0; e < 2; ++e)
        if (n.body[e] >= 0)
          for (int k = 0; k < dof(); ++k)
            J(n.row, bodies[static_cast<std::size_t>(n.body[e])].offset + k) = values[static_cast<std::size_t>(n.values[e] + k)];
    return J * w.asDiagonal() * J.transpose();
  }

  // The tree elimination's K⁻¹ r (0 on skipped rows), with `dependent` the
  // rows it found dependent; the factorization reused must give the same
  // bit for bit.
  std::vector<double> solve(const std::vector<double>& r, const std::vector<char>& skip, int* dependent = nullptr) {
    std::vector<double> diag(r.size(), 0.0), y = r;
    for (std::size_t i = 0; i < r.size(); ++i)
      for (int e = 0; e < 2; ++e)
        if (nodes[i].body[e] >= 0) diag[i] += through(nodes[i].body[e], nodes[i].values[e], nodes[i].values[e]);
    TreeElimination e;
    EXPECT_TRUE(e.analyse(bodies, nodes));
    e.factor(values.data(), w.data(), skip.data(), diag.data(), y.data());
    e.back_substitute(y.data());
    std::vector<double> again = r;
    e.solve(again.data());
    EXPECT_EQ(std::memcmp(again.data(), y.data(), y.size() * sizeof(double)), 0);
    if (dependent) *dependent = e.dependent_rows();
    return y;
  }
};

Eigen::VectorXd random_direction(std::mt19937& rng, int dof) {
  std::normal_distribution<double> g;
  Eigen::VectorXd d(dof);
  for (int k = 0; k < dof; ++k) d[k] = g(rng);
  return d.normalized();
}

// LDLᵀ of a chain's tridiagonal K (a, b as System::tridiagonal gives
// them) in T, top to bottom, rows skipped (λ = 0, their couplings dropped).
template <typename T>
std::vector<T> tridiagonal_ldlt(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& r,
                                const std::vector<char>& skip) {
  const std::size_t n = r.size();
  std::vector<T> d(n), l(n, T(0)), y(r.begin(), r.end());
  for (std::size_t k = 0; k < n; ++k) {
    if (skip[k]) {
      y[k] = 0;
      continue;
    }
    d[k] = a[k];
    if (k > 0 && !skip[k - 1]) {
      l[k] = T(b[k]) / d[k - 1];
      d[k] -= l[k] * T(b[k]);
      y[k] -= l[k] * y[k - 1];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    if (skip[k]) continue;
    y[k] /= d[k];
    if (k + 1 < n && !skip[k + 1]) y[k] -= l[k + 1] * y[k + 1];
  }
  return y;
}

// The same eliminated from both ends toward row t (a twisted
// factorization), as the tree elimination takes a chain rooted at its
// middle: the first row down to t − 1, the last up to t + 1, row t last.
template <typename T>
std::vector<T> twisted_ldlt(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& r,
                            std::size_t t) {
  const std::size_t n = r.size();
  std::vector<T> d(n), y(r.begin(), r.end());
  auto eliminate = [&](std::size_t i, std::size_t from, double coupling) {
    const T l = T(coupling) / d[from];
    d[i] -= l * T(coupling);
    y[i] -= l * y[from];
  };
  for (std::size_t i = 0; i < n; ++i) d[i] = a[i];
  for (std::size_t i = 1; i < t; ++i) eliminate(i, i - 1, b[i]);
  for (std::size_t i = n - 1; i > t + 1; --i) eliminate(i - 1, i, b[i]);
  if (t > 0) eliminate(t, t - 1, b[t]);
  if (t + 1 < n) eliminate(t, t + 1, b[t + 1]);
  y[t] /= d[t];
  for (std::size_t i = t; i-- > 0;) y[i] = (y[i] - T(b[i + 1]) * y[i + 1]) / d[i];
  for (std::size_t i = t + 1; i < n; ++i) y[i] = (y[i] - T(b[i]) * y[i - 1]) / d[i];
  return y;
}

// max |x − reference| / max |reference|
template <typename T>
double relative_difference(const std::vector<double>& x, const std::vector<T>& reference) {
  long double worst = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<long double>(x[i]) - static_cast<long double>(reference[i])));
    scale = std::max(scale, std::abs(static_cast<long double>(reference[i])));
  }
  return static_cast<double>(worst / scale);
}

// A chain of n bodies hanging from the world (the first held by it), each
// rod along `direction(k)`.
template <typename Direction>
System chain(int n, int dof, const std::vector<double>& inverse_masses, Direction direction) {
  System s(n, dof, inverse_masses);
  for (int k = 0; k < n; ++k) s.rod(k - 1, k, direction(k));
  return s;
}

TEST(TreeEliminationChains, AgreeWithLdltOnRandomChains) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 2.0);
  for (int n : {1, 2, 3, 4, 7, 50, 301}) {
    for (int dof : {2, 3}) {
      std::vector<double> inverse(static_cast<std::size_t>(n));
      for (double& x : inverse) x = mass(rng);
      System s = chain(n, dof, inverse, [&](int) { return random_direction(rng, dof); });
      std::vector<double> r(static_cast<std::size_t>(n)), a, b;
      std::vector<char> skip(static_cast<std::size_t>(n), 0);
      for (double& x : r) x = u(rng);
      if (n > 3) skip[static_cast<std::size_t>(rng() % static_cast<unsigned>(n))] = 1;
      for (std::size_t i = 0; i < r.size(); ++i)
        if (skip[i]) r[i] = 0.0;
      int dependent = -1;
      const std::vector<double> x = s.solve(r, skip, &dependent);
      EXPECT_EQ(dependent, 0) << "n " << n << " dof " << dof;
      s.tridiagonal(a, b);
      EXPECT_LT(relative_difference(x, tridiagonal_ldlt<double>(a, b, r, skip)), 1e-12) << "n " << n << " dof " << dof;
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (!skip[i]) continue;
        EXPECT_EQ(x[i], 0.0);
      }
    }
  }
}

// A taut chain's rods nearly in line (K close to tridiag(−1, 2, −1) / m,
// its condition about n²), inverse masses 1 or spread over six decades
// (powers of two): against the exact solution of the same K (long
// double), the kernel's error is LDLᵀ's in double (eliminated from both
// ends to the middle, as the tree does, or from the top) up to a factor of
// 5 (measured: 0.2–3.6; the kernel before it, one division a link, 1.2–8.4;
// the continuants alone, about 10 on the uniform chains), and its residual
// is LDLᵀ's size.
TEST(TreeEliminationChains, AreAsAccurateAsLdltOnTautIllConditionedChains) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> decades(-10, 10);
  for (int dof : {2, 3}) {
    for (bool spread : {false, true}) {
      const int n = 1000;
      std::vector<double> inverse(static_cast<std::size_t>(n));
      for (double& x : inverse) x = spread ? std::ldexp(1.0, decades(rng)) : 1.0;
      Eigen::VectorXd down = Eigen::VectorXd::Zero(dof);
      down[1] = -1.0;
      System s = chain(n, dof, inverse, [&](int) { return Eigen::VectorXd(down + 1e-4 * random_direction(rng, dof)).normalized(); });
      std::vector<double> r(static_cast<std::size_t>(n)), a, b;
      for (double& x : r) x = u(rng);
      const std::vector<char> skip(static_cast<std::size_t>(n), 0);
      s.tridiagonal(a, b);
      const std::vector<long double> exact = tridiagonal_ldlt<long double>(a, b, r, skip);
      const double ldlt = std::max(relative_difference(tridiagonal_ldlt<double>(a, b, r, skip), exact),
                                   relative_difference(twisted_ldlt<double>(a, b, r, static_cast<std::size_t>(n / 2)), exact));
      const std::vector<double> x = s.solve(r, skip);
      EXPECT_LT(relative_difference(x, exact), 5.0 * ldlt) << "dof " << dof << " spread " << spread << ": LDLᵀ's error " << ldlt;
      double residual = 0.0, scale = 0.0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double left = i > 0 ? b[i] * x[i - 1] : 0.0, right = i + 1 < x.size() ? b[i + 1] * x[i + 1] : 0.0;
        residual = std::max(residual, std::abs(r[i] - left - a[i] * x[i] - right));
        scale = std::max(scale, std::abs(left) + std::abs(a[i] * x[i]) + std::abs(right));
      }
      EXPECT_LT(residual, 1e-14 * scale) << "dof " << dof << " spread " << spread;
    }
  }
}

// Inverse masses of 1e±150: every pivot is about 1e±150, so the continuants
// leave double's range within three links unless rescaled.
TEST(TreeEliminationChains, RescaleTheContinuantsOnLongChainsOfAnyScale) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 2.0);
  for (double scale : {1e150, 1e-150}) {
    const int n = 1000;
    std::vector<double> inverse(static_cast<std::size_t>(n));
    for (double& x : inverse) x = scale * mass(rng);
    System s = chain(n, 2, inverse, [&](int) { return random_direction(rng, 2); });
    std::vector<double> r(static_cast<std::size_t>(n)), a, b;
    for (double& x : r) x = u(rng);
    const std::vector<char> skip(static_cast<std::size_t>(n), 0);
    int dependent = -1;
    const std::vector<double> x = s.solve(r, skip, &dependent);
    EXPECT_EQ(dependent, 0) << "scale " << scale;
    s.tridiagonal(a, b);
    EXPECT_LT(relative_difference(x, tridiagonal_ldlt<double>(a, b, r, skip)), 1e-12) << "scale " << scale;
  }
}

// Rods 0 and 1 along one direction (their rows sum to that direction on
// body 1 alone), and row 2 twice that sum, nothing on body 2: row 2 depends
// on rows 0 and 1, is found so, and the chain beyond it solves as if it
// were skipped.
TEST(TreeEliminationChains, DropADependentRowAndGoOn) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 40;
  System s = chain(n, 2, std::vector<double>(static_cast<std::size_t>(n), 1.0), [&](int) { return random_direction(rng, 2); });
  auto value = [&](int node, int end, int k) -> double& {
    return s.values[static_cast<std::size_t>(s.nodes[static_cast<std::size_t>(node)].values[end] + k)];
  };
  for (int k = 0; k < 2; ++k) {
    value(0, 1, k) = value(1, 1, k);
    value(2, 0, k) = 2.0 * value(1, 1, k);
    value(2, 1, k) = 0.0;
  }
  std::vector<double> r(static_cast<std::size_t>(n)), a, b;
  for (double& x : r) x = u(rng);
  std::vector<char> skip(static_cast<std::size_t>(n), 0);
  int dependent = -1;
  const std::vector<double> x = s.solve(r, skip, &dependent);
  EXPECT_EQ(dependent, 1);
  EXPECT_EQ(x[2], 0.0);
  skip[2] = 1;
  r[2] = 0.0;
  s.tridiagonal(a, b);
  EXPECT_LT(relative_difference(x, tridiagonal_ldlt<double>(a, b, r, skip)), 1e-12);
}

// The same with row 2 nearly dependent: δ on body 2, its pivot about
// 1e-7 of its diagonal (kept, the threshold is 1e-8): the recurrences'
// cancellation at its worst, and the solution still LDLᵀ's.
TEST(TreeEliminationChains, KeepANearlyDependentRowAccurately) {
  std::mt19937 rng(10);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 40;
  System s = chain(n, 2, std::vector<double>(static_cast<std::size_t>(n), 1.0), [&](int) { return random_direction(rng, 2); });
  auto value = [&](int node, int end, int k) -> double& {
    return s.values[static_cast<std::size_t>(s.nodes[static_cast<std::size_t>(node)].values[end] + k)];
  };
  for (int k = 0; k < 2; ++k) {  // the directions off by 1e-9 (no rounding cancels out exactly)
    value(0, 1, k) = value(1, 1, k) + 1e-9 * u(rng);
    value(2, 0, k) = 2.0 * value(1, 1, k) + 1e-9 * u(rng);
    value(2, 1, k) *= 6e-4;  // its pivot δ² ≈ 3.6e-7 against a diagonal of 4
  }
  std::vector<double> r(static_cast<std::size_t>(n)), a, b;
  for (double& x : r) x = u(rng);
  const std::vector<char> skip(static_cast<std::size_t>(n), 0);
  int dependent = -1;
  const std::vector<double> x = s.solve(r, skip, &dependent);
  EXPECT_EQ(dependent, 0);
  s.tridiagonal(a, b);
  const std::vector<long double> exact = tridiagonal_ldlt<long double>(a, b, r, skip);
  const double ldlt = std::max(relative_difference(tridiagonal_ldlt<double>(a, b, r, skip), exact),
                               relative_difference(twisted_ldlt<double>(a, b, r, static_cast<std::size_t>(n / 2)), exact));
  EXPECT_LT(relative_difference(x, exact), 5.0 * ldlt + 1e-15) << "LDLᵀ's error " << ldlt;
}

// Trees of long branches (a star of chains from one hub, each with a
// side chain of its own; 2D and 3D), against a dense LDLᵀ of K.
TEST(TreeEliminationChains, AgreeWithADenseFactorizationOnTreesOfLongBranches) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 2.0);
  for (int dof : {2, 3}) {
    const int arms = 4, length = 30, side = 12;
    const int n = 1 + arms * (length + side);
    std::vector<double> inverse(static_cast<std::size_t>(n));
    for (double& x : inverse) x = mass(rng);
    System s(n, dof, inverse);
    s.rod(-1, 0, random_direction(rng, dof));
    int next = 1;
    for (int a = 0; a < arms; ++a) {
      int at = 0, branch = 0;
      for (int k = 0; k < length; ++k, ++next) {
        s.rod(at, next, random_direction(rng, dof));
        if (k == length / 2) branch = next;
        at = next;
      }
      at = branch;
      for (int k = 0; k < side; ++k, ++next) {
        s.rod(at, next, random_direction(rng, dof));
        at = next;
      }
    }
    const int rows = static_cast<int>(s.nodes.size());
    std::vector<double> r(static_cast<std::size_t>(rows));
    for (double& x : r) x = u(rng);
    const std::vector<char> skip(static_cast<std::size_t>(rows), 0);
    const std::vector<double> x = s.solve(r, skip);
    const Eigen::VectorXd reference = s.K().ldlt().solve(Eigen::Map<const Eigen::VectorXd>(r.data(), rows));
    EXPECT_LT(relative_difference(x, std::vector<double>(reference.data(), reference.data() + rows)), 1e-12) << "dof " << dof;
  }
}


// A tree of long branches in two parts (plan_parts): factored in parts on
// two threads, or part by part in either order, and back-substituted top
// first then part by part, it gives the serial factorization's bits, with
// rows skipped and one dependent; each rod between two bodies of parts
// has both in one part. A small tree, or one thread, is not split; a
// chain splits in two on four threads.
TEST(TreeEliminationParts, FactorAndSolveInPartsAsAWhole) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 2.0);
  auto tree = [&](int arms, int length, int side) {
    const int n = 1 + arms * (length + side);
    std::vector<double> inverse(static_cast<std::size_t>(n));
    for (double& x : inverse) x = mass(rng);
    System s(n, 2, inverse);
    s.rod(-1, 0, random_direction(rng, 2));
    int next = 1;
    for (int a = 0; a < arms; ++a) {
      int at = 0, branch = 0;
      for (int k = 0; k < length; ++k, ++next) {
        s.rod(at, next, random_direction(rng, 2));
        if (k == length / 3) branch = next;
        at = next;
      }
      at = branch;
      for (int k = 0; k < side; ++k, ++next) {
        s.rod(at, next, random_direction(rng, 2));
        at = next;
      }
    }
    return s;
  };
  {
    System small = tree(3, 20, 5);
    TreeElimination e;
    ASSERT_TRUE(e.analyse(small.bodies, small.nodes));
    EXPECT_FALSE(e.plan_parts(2));
    EXPECT_EQ(e.parts(), 0);
    // A long chain halves at its centre, on two threads or four.
    System line = chain(600, 2, std::vector<double>(600, 1.0), [&](int) { return random_direction(rng, 2); });
    ASSERT_TRUE(e.analyse(line.bodies, line.nodes));
    EXPECT_TRUE(e.plan_parts(4));
    EXPECT_EQ(e.parts(), 2);
    EXPECT_EQ(e.body_part(0), e.body_part(100));
    EXPECT_NE(e.body_part(0), e.body_part(599));
    EXPECT_EQ(e.body_part(599), e.body_part(500));
  }
  System s = tree(4, 70, 30);
  // The last rod again, along the same direction: dependent.
  TreeElimination::Node twin = s.nodes.back();
  twin.row = static_cast<int>(s.nodes.size());
  for (int e = 0; e < 2; ++e)
    if (twin.body[e] >= 0) {
      const int from = twin.values[e];
      twin.values[e] = static_cast<int>(s.values.size());
      for (int k = 0; k < 2; ++k) s.values.push_back(s.values[static_cast<std::size_t>(from + k)]);
    }
  s.nodes.push_back(twin);
  const std::size_t rows = s.nodes.size();
  std::vector<double> r(rows), diag(rows, 0.0);
  std::vector<char> skip(rows, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    r[i] = u(rng);
    skip[i] = i % 37 == 5;
    if (skip[i]) r[i] = 0.0;
    for (int e = 0; e < 2; ++e)
      if (s.nodes[i].body[e] >= 0) diag[i] += s.through(s.nodes[i].body[e], s.nodes[i].values[e], s.nodes[i].values[e]);
  }
  TreeElimination whole;
  ASSERT_TRUE(whole.analyse(s.bodies, s.nodes));
  EXPECT_FALSE(whole.plan_parts(1));
  std::vector<double> expected = r;
  whole.factor(s.values.data(), s.w.data(), skip.data(), diag.data(), expected.data());
  whole.back_substitute(expected.data());
  EXPECT_EQ(whole.dependent_rows(), 1);

  TreeElimination split;
  ASSERT_TRUE(split.analyse(s.bodies, s.nodes));
  ASSERT_TRUE(split.plan_parts(2));
  ASSERT_EQ(split.parts(), 2);
  for (const TreeElimination::Node& n : s.nodes)
    if (n.body[0] >= 0 && n.body[1] >= 0 && split.body_part(n.body[0]) >= 0 && split.body_part(n.body[1]) >= 0)
      EXPECT_EQ(split.body_part(n.body[0]), split.body_part(n.body[1])) << "row " << n.row;
  auto back = [&](std::vector<double>& y, bool reverse) {
    split.back_top(y.data());
    for (int p = 0; p < 2; ++p) split.back_part(reverse ? 1 - p : p, y.data());
  };
  Threads threads;
  const Parallel two{&threads, 2};
  std::vector<double> y = r;
  two.for_parts(2, [&](int p, int) {
    split.factor_part(p, s.values.data(), s.w.data(), skip.data(), diag.data(), y.data(), MultifrontalLdlt::kDependentPivot);
  });
  split.factor_top(s.values.data(), s.w.data(), skip.data(), diag.data(), y.data(), MultifrontalLdlt::kDependentPivot);
  EXPECT_EQ(split.dependent_rows(), 1);
  back(y, false);
  EXPECT_EQ(std::memcmp(y.data(), expected.data(), rows * sizeof(double)), 0);
  y = r;
  for (int p : {1, 0}) split.factor_part(p, s.values.data(), s.w.data(), skip.data(), diag.data(), y.data(), MultifrontalLdlt::kDependentPivot);
  split.factor_top(s.values.data(), s.w.data(), skip.data(), diag.data(), y.data(), MultifrontalLdlt::kDependentPivot);
  EXPECT_EQ(split.dependent_rows(), 1);
  back(y, true);
  EXPECT_EQ(std::memcmp(y.data(), expected.data(), rows * sizeof(double)), 0);
  EXPECT_FALSE(split.plan_parts(1));  // one thread again: no parts
  EXPECT_EQ(split.parts(), 0);
}

}  // namespace
