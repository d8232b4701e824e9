// The narrow and broad phases against brute force. Every pair of shape kinds
// (disk, box, convex polygon, capsule, segment) on random poses, apart,
// touching and overlapping: the signed distance of two convex sets is
// max over directions n of −(h_A(n) + h_B(−n)), with h the support function,
// which a sweep of directions and every candidate direction give
// independently of the narrow phase. The deepest point of every manifold
// has that separation (within the reference face's hysteresis, exactly in
// nearly every case), its normal is the way out, no contact is
// reported beyond the margin, and feature ids hold under tiny motions.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <numbers>
#include <random>
#include <set>

#include "collision/broad_phase.hpp"
#include "collision/manifold.hpp"

using namespace linkage;
using namespace linkage::collision;

namespace {

double support(const Hull& h, const Pose& pose, const Vec2& n) {
  double best = -std::numeric_limits<double>::infinity();
  for (const Vec2& v : h.vertices) best = std::max(best, n.dot(pose.apply(v)));
  return best + h.radius;
}

// Signed distance over a sweep of 3,600 directions and every direction where
// the maximum can sit: the normals of every vertex pair's line (faces of
// either polygon, edges of their Minkowski difference) and every vertex
// pair's own direction (the rounded corners). Nothing here knows which
// features the narrow phase picks.
double brute_signed_distance(const Hull& a, const Pose& pa, const Hull& b, const Pose& pb) {
  std::vector<Vec2> directions;
  constexpr int kSweep = 3600;
  for (int k = 0; k < kSweep; ++k) {
    const double t = 2.0 * std::numbers::pi * k / kSweep;
    directions.emplace_back(std::cos(t), std::sin(t));
  }
  std::vector<Vec2> points;
  for (const Vec2& v : a.vertices) points.push_back(pa.apply(v));
  for (const Vec2& v : b.vertices) points.push_back(pb.apply(v));
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = i + 1; j < points.size(); ++j) {
      const Vec2 d = points[j] - points[i];
      if (d.norm() < 1e-12) continue;
      const Vec2 u = d.normalized();
      for (const Vec2& n : {u, Vec2(-u), Vec2(u.y(), -u.x()), Vec2(-u.y(), u.x())}) directions.push_back(n);
    }
  }
  double best = -std::numeric_limits<double>::infinity();
  for (const Vec2& n : directions) best = std::max(best, -support(a, pa, n) - support(b, pb, -n));
  return best;
}

enum class Kind { disk, box, polygon, capsule, segment };
constexpr Kind kKinds[] = {Kind::disk, Kind::box, Kind::polygon, Kind::capsule, Kind::segment};

Hull random_hull(Kind kind, std::mt19937& rng) {
  std::uniform_real_distribution<double> size(0.1, 1.0);
  switch (kind) {
    case Kind::disk: return hull_of(Disk{size(rng)});
    case Kind::box: return hull_of(Box{size(rng), size(rng)});
    case Kind::capsule: {
      const double l = size(rng);
      return capsule(Vec2(-l, 0), Vec2(l, 0), size(rng) * 0.5);
    }
    case Kind::segment: {
      const double l = size(rng);
      return capsule(Vec2(-l, 0), Vec2(l, 0), 0.0);
    }
    case Kind::polygon: {
      // Points on an ellipse at sorted angles: convex and counter-clockwise.
      std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
      std::vector<double> t(static_cast<std::size_t>(std::uniform_int_distribution<int>(3, 8)(rng)));
      for (double& x : t) x = angle(rng);
      std::sort(t.begin(), t.end());
      const double rx = size(rng), ry = size(rng);
      Hull h;
      for (double x : t) h.vertices.emplace_back(rx * std::cos(x), ry * std::sin(x));
      // Near-duplicate angles make a degenerate polygon: keep distinct vertices only.
      std::vector<Vec2> kept;
      for (const Vec2& v : h.vertices)
        if (kept.empty() || (v - kept.back()).norm() > 1e-3) kept.push_back(v);
      if (kept.size() > 2 && (kept.front() - kept.back()).norm() <= 1e-3) kept.pop_back();
      if (kept.size() < 3) return hull_of(Box{rx, ry});
      h.vertices = kept;
      return h;
    }
  }
  return {};
}

struct Case {
  Hull a, b;
  Pose pa, pb;
};

Case random_case(Kind ka, Kind kb, std::mt19937& rng) {
  std::uniform_real_distribution<double> angle(-std::numbers::pi, std::numbers::pi), reach(0.0, 2.5);
  Case c{random_hull(ka, rng), random_hull(kb, rng), Pose::at(Vec2::Zero(), angle(rng)), {}};
  const double dir = angle(rng), r = reach(rng);
  c.pb = Pose::at(Vec2(r * std::cos(dir), r * std::sin(dir)), angle(rng));
  return c;
}

constexpr double kMargin = 0.05;
constexpr double kTolerance = 1e-6;
// How much better b's face must be to take the reference from a's
// (manifold.cpp's kAxisTolerance, Box2D's 0.1 × linear slop).
constexpr double kHysteresis = 5e-4 + kTolerance;

}  // namespace

TEST(Collision, ManifoldsAgreeWithBruteForceForEveryPairOfKinds) {
  std::mt19937 rng(11);
  for (Kind ka : kKinds) {
    for (Kind kb : kKinds) {
      int contacts = 0, exact = 0, apart = 0;
      for (int trial = 0; trial < 80; ++trial) {
        const Case c = random_case(ka, kb, rng);
        const double sd = brute_signed_distance(c.a, c.pa, c.b, c.pb);
        const Manifold m = collide(c.a, c.pa, c.b, c.pb, kMargin);
        SCOPED_TRACE("kinds " + std::to_string(static_cast<int>(ka)) + ", " + std::to_string(static_cast<int>(kb)) +
                     ", trial " + std::to_string(trial) + ", signed distance " + std::to_string(sd));
        if (sd > kMargin + kTolerance) {
          EXPECT_EQ(m.count, 0);
          ++apart;
          continue;
        }
        if (sd < kMargin - kTolerance) {
          ASSERT_GE(m.count, 1);
        }
        if (m.count == 0) continue;
        ++contacts;
        EXPECT_NEAR(m.normal.norm(), 1.0, 1e-12);
        double deepest = std::numeric_limits<double>::infinity();
        for (int k = 0; k < m.count; ++k) {
          // Never deeper than the shapes are, but for a's face kept as the
          // reference while b's is better by less than the hysteresis.
          EXPECT_GE(m.points[static_cast<std::size_t>(k)].separation, sd - kHysteresis);
          deepest = std::min(deepest, m.points[static_cast<std::size_t>(k)].separation);
        }
        EXPECT_NEAR(deepest, sd, kHysteresis);
        if (std::abs(deepest - sd) > kTolerance) continue;
        ++exact;
        // The normal is the way out: B moved back along it by the separation just touches A.
        Pose moved = c.pb;
        moved.p -= deepest * m.normal;
        EXPECT_NEAR(brute_signed_distance(c.a, c.pa, c.b, moved), 0.0, 1e-5);
      }
      // Exact wherever the best face is a's, or b's by more than the hysteresis.
      EXPECT_GE(exact, contacts * 9 / 10) << "kinds " << static_cast<int>(ka) << ", " << static_cast<int>(kb);
      EXPECT_GT(contacts, 5);
      EXPECT_GT(apart, 5);
    }
  }
}

TEST(Collision, FeatureIdsHoldUnderTinyMotions) {
  std::mt19937 rng(5);
  int compared = 0, same = 0;
  for (int trial = 0; trial < 3000 && compared < 600; ++trial) {
    const Kind ka = kKinds[trial % 5], kb = kKinds[(trial / 5) % 5];
    const Case c = random_case(ka, kb, rng);
    const Manifold m = collide(c.a, c.pa, c.b, c.pb, kMargin);
    if (m.count == 0) continue;
    Pose nudged = c.pb;
    nudged.p += Vec2(1e-9, -1e-9);
    const double angle = std::atan2(nudged.s, nudged.c) + 1e-9;
    nudged.c = std::cos(angle);
    nudged.s = std::sin(angle);
    const Manifold n = collide(c.a, c.pa, c.b, nudged, kMargin);
    ++compared;
    bool equal = n.count == m.count;
    for (int k = 0; equal && k < m.count; ++k) equal = n.points[static_cast<std::size_t>(k)].id == m.points[static_cast<std::size_t>(k)].id;
    same += equal;
  }
  ASSERT_GT(compared, 300);
  EXPECT_GE(same, compared * 99 / 100);
}

TEST(Collision, BoxRestingOnABoxHasTwoPointsAtItsCorners) {
  const Hull ground = hull_of(Box{5.0, 0.5}), box = hull_of(Box{0.5, 0.5});
  const Manifold m = collide(ground, Pose::at(Vec2(0, -0.5), 0.0), box, Pose::at(Vec2(1.0, 0.49), 0.0), kMargin);
  ASSERT_EQ(m.count, 2);
  EXPECT_NEAR(m.normal.y(), 1.0, 1e-15);
  std::set<double> xs;
  for (const ContactPoint& p : m.points) {
    EXPECT_NEAR(p.separation, -0.01, 1e-12);
    EXPECT_NEAR(p.point.y(), -0.005, 1e-12);  // midway between the surfaces
    xs.insert(p.point.x());
  }
  EXPECT_EQ(xs, (std::set<double>{0.5, 1.5}));
  EXPECT_NE(m.points[0].id, m.points[1].id);
}

TEST(Collision, DisksTouchAlongTheLineOfCentres) {
  const Hull a = hull_of(Disk{1.0}), b = hull_of(Disk{0.5});
  const Manifold m = collide(a, Pose::at(Vec2(0, 0), 0.3), b, Pose::at(Vec2(3, 4), 0.0), kMargin);
  EXPECT_EQ(m.count, 0);  // 5 apart, radii 1.5: 3.5 beyond the margin
  const Manifold touching = collide(a, Pose::at(Vec2(0, 0), 0.3), b, Pose::at(Vec2(0.6, 0.8), 0.0), kMargin);
  ASSERT_EQ(touching.count, 1);
  EXPECT_NEAR(touching.points[0].separation, -0.5, 1e-15);
  EXPECT_NEAR(touching.normal.x(), 0.6, 1e-15);
  EXPECT_NEAR(touching.normal.y(), 0.8, 1e-15);
}

// The broad phase against every pair: boxes spread over a square, a row and
// a column (its sweep's axis is their widest spread); and at most `limit`
// pairs, said capped, where there are more.
TEST(Collision, BroadPhaseFindsExactlyTheOverlappingBoxes) {
  for (const Vec2 spread : {Vec2(20.0, 20.0), Vec2(200.0, 2.0), Vec2(2.0, 200.0)}) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0), size(0.05, 1.0);
    std::vector<Aabb> boxes;
    for (int i = 0; i < 400; ++i) {
      const Vec2 lo(spread.x() * u(rng), spread.y() * u(rng));
      boxes.push_back({lo, lo + Vec2(size(rng), size(rng))});
    }
    std::vector<std::pair<int, int>> brute;
    for (int i = 0; i < 400; ++i)
      for (int j = i + 1; j < 400; ++j)
        if (boxes[static_cast<std::size_t>(i)].overlaps(boxes[static_cast<std::size_t>(j)])) brute.emplace_back(i, j);
    bool capped = true;
    EXPECT_EQ(overlapping_pairs(boxes, brute.size(), capped), brute);
    EXPECT_FALSE(capped);
    EXPECT_GT(brute.size(), 50u);
    const std::vector<std::pair<int, int>> some = overlapping_pairs(boxes, brute.size() - 1, capped);
    EXPECT_TRUE(capped);
    EXPECT_EQ(some.size(), brute.size() - 1);
    EXPECT_TRUE(std::includes(brute.begin(), brute.end(), some.begin(), some.end()));
  }
}
