// The three linear solvers (conjugate gradient, LDLᵀ, Gauss–Seidel) solve the
// same J W Jᵀ λ = r: on a well-posed mechanism they give the same λ; on a
// redundant one they stay finite, keep the constraints and report the rank
// deficiency. Public API only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "linkage/linkage.hpp"

using namespace linkage;

namespace {

const LinearSolver kSolvers[] = {LinearSolver::conjugate_gradient, LinearSolver::ldlt, LinearSolver::gauss_seidel};

WorldSettings tight_settings(LinearSolver solver) {
  WorldSettings s;
  s.solver = solver;
  s.solver_tolerance = 1e-14;
  s.solver_max_iterations = 20000;
  s.integrator = Integrator::semi_implicit_euler;
  return s;
}

World make_world(const WorldSettings& s) {
  Result<World> w = World::create(s);
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
  return std::move(w.value());
}

BodyId add(World& w, const BodyDef& def) {
  Result<BodyId> id = w.add_body(def);
  EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
  return id.ok() ? id.value() : BodyId{};
}

ConstraintId add(World& w, const ConstraintDef& def) {
  Result<ConstraintId> id = w.add_constraint(def);
  EXPECT_TRUE(id.ok()) << constraint_type_name(def) << ": " << (id.ok() ? "" : id.error().message);
  return id.ok() ? id.value() : ConstraintId{};
}

BodyDef bar(Vec3 centre, double angle, Vec3 velocity, double omega) {
  BodyDef b;
  b.kind = BodyKind::rigid;
  b.position = centre;
  b.angle = angle;
  b.velocity = velocity;
  b.angular_velocity = omega;
  b.shape = Box{0.5, 0.05};
  b.density = 10.0;
  return b;
}

BodyDef particle(Vec3 position, Vec3 velocity, double mass) {
  BodyDef b;
  b.kind = BodyKind::particle;
  b.position = position;
  b.velocity = velocity;
  b.mass = mass;
  return b;
}

// A 2D double pendulum of rigid bars (1 m long, pinned end to end, the first
// to a fixed point), with a chain of two particles on rods below the second
// bar's free end, a slider bead and a fixed body holding a rod; several bodies
// moving. Every row independent.
std::vector<ConstraintId> build_mechanism(World& w) {
  std::vector<ConstraintId> ids;
  // Bar 1: from (0, 0) at −30° from the horizontal; centre half-way along.
  const double a1 = -0.5;
  const Vec3 e1(std::cos(a1), std::sin(a1), 0.0);
  const BodyId b1 = add(w, bar(0.5 * e1, a1, Vec3(0.3, 0.1, 0.0), 0.8));
  ids.push_back(add(w, PinDef{BodyId{}, b1, Vec3(0.0, 0.0, 0.0), Vec3(-0.5, 0.0, 0.0)}));
  // Bar 2 from bar 1's far end.
  const double a2 = -1.2;
  const Vec3 e2(std::cos(a2), std::sin(a2), 0.0);
  const BodyId b2 = add(w, bar(e1 + 0.5 * e2, a2, Vec3(-0.2, 0.4, 0.0), -1.1));
  ids.push_back(add(w, PinDef{b1, b2, Vec3(0.5, 0.0, 0.0), Vec3(-0.5, 0.0, 0.0)}));
  // Two particles hanging by rods from bar 2's far end.
  const Vec3 end2 = e1 + e2;
  const BodyId p1 = add(w, particle(end2 + Vec3(0.3, -0.7, 0.0), Vec3(0.5, 0.0, 0.0), 0.7));
  ids.push_back(add(w, DistanceDef{b2, p1, Vec3(0.5, 0.0, 0.0), Vec3::Zero(), kCurrent}));
  const BodyId p2 = add(w, particle(end2 + Vec3(-0.2, -1.5, 0.0), Vec3(-0.3, 0.6, 0.0), 1.3));
  ids.push_back(add(w, DistanceDef{p1, p2, Vec3::Zero(), Vec3::Zero(), kCurrent}));
  // A fixed post holding p2 by a second rod.
  BodyDef post;
  post.kind = BodyKind::particle;
  post.motion = Motion::fixed;
  post.position = Vec3(2.5, -2.0, 0.0);
  const BodyId f = add(w, post);
  ids.push_back(add(w, DistanceDef{f, p2, Vec3::Zero(), Vec3::Zero(), kCurrent}));
  // A bead on a horizontal wire through the fixed point (a slider), tied to bar 1's middle by a rod.
  const BodyId p3 = add(w, particle(Vec3(1.4, 0.3, 0.0), Vec3(0.2, -0.1, 0.0), 0.5));
  ids.push_back(add(w, PointOnLineDef{BodyId{}, p3, Vec3(0.0, 0.3, 0.0), Vec3::Zero(), Vec3::UnitX()}));
  ids.push_back(add(w, DistanceDef{b1, p3, Vec3(0.1, 0.0, 0.0), Vec3::Zero(), kCurrent}));
  // A second rigid body welded-in-angle to bar 2 through a relative angle and a rod.
  const BodyId b3 = add(w, bar(end2 + Vec3(1.0, 0.2, 0.0), 0.4, Vec3(0.0, 0.0, 0.0), 0.5));
  ids.push_back(add(w, RelativeAngleDef{b2, b3, kCurrent}));
  ids.push_back(add(w, DistanceDef{b2, b3, Vec3(0.5, 0.0, 0.0), Vec3(-0.5, 0.0, 0.0), kCurrent}));
  return ids;
}

double max_abs_lambda(const World& w, const std::vector<ConstraintId>& ids) {
  double m = 0.0;
  for (ConstraintId id : ids) {
    const ConstraintInfo info = w.constraint(id).value();
    for (double l : info.lambda) m = std::max(m, std::abs(l));
  }
  return m;
}

bool all_finite(const World& w) {
  for (BodyId id : w.bodies()) {
    const BodyInfo b = w.body(id).value();
    if (!b.position.allFinite() || !b.velocity.allFinite() || !std::isfinite(b.angle) ||
        !std::isfinite(b.angular_velocity))
      return false;
  }
  return true;
}

}  // namespace

TEST(SolverAgreement, SameLambdaOnWellPosedMechanism) {
  std::vector<World> worlds;
  std::vector<std::vector<ConstraintId>> ids;
  for (LinearSolver s : kSolvers) {
    worlds.push_back(make_world(tight_settings(s)));
    ids.push_back(build_mechanism(worlds.back()));
    ASSERT_FALSE(HasFailure());
  }
  for (World& w : worlds) {
    const StepDiagnostics& d = w.step();
    SCOPED_TRACE(std::string(solver_name(w.settings().solver)));
    EXPECT_EQ(d.rank_deficiency, 0);
    EXPECT_LT(d.solver_residual, 1e-10);
    EXPECT_TRUE(all_finite(w));
  }

  const World& ref = worlds[1];  // LDLᵀ
  const double scale = std::max(1.0, max_abs_lambda(ref, ids[1]));
  ASSERT_GT(max_abs_lambda(ref, ids[1]), 1e-3);  // the mechanism does load its constraints
  for (std::size_t k : {0u, 2u}) {
    SCOPED_TRACE(std::string(solver_name(worlds[k].settings().solver)) + " vs ldlt");
    ASSERT_EQ(ids[k].size(), ids[1].size());
    for (std::size_t c = 0; c < ids[1].size(); ++c) {
      const ConstraintInfo want = ref.constraint(ids[1][c]).value();
      const ConstraintInfo got = worlds[k].constraint(ids[k][c]).value();
      ASSERT_EQ(got.lambda.size(), want.lambda.size());
      for (std::size_t r = 0; r < want.lambda.size(); ++r) {
        EXPECT_NEAR(got.lambda[r], want.lambda[r], 1e-8 * std::max(scale, std::abs(want.lambda[r])))
            << "constraint " << c << " (" << constraint_type_name(want.def) << ") row " << r;
      }
    }
    // And the step they lead to.
    const std::vector<BodyId> bodies_k = worlds[k].bodies(), bodies_ref = ref.bodies();
    ASSERT_EQ(bodies_k.size(), bodies_ref.size());
    for (std::size_t i = 0; i < bodies_ref.size(); ++i) {
      const BodyInfo a = worlds[k].body(bodies_k[i]).value(), b = ref.body(bodies_ref[i]).value();
      EXPECT_LT((a.velocity - b.velocity).norm(), 1e-9) << "body " << i;
      EXPECT_NEAR(a.angular_velocity, b.angular_velocity, 1e-9) << "body " << i;
    }
  }
}

namespace {

// A rigid triangle of three particles held by three rods plus a fourth rod
// duplicating the first, hanging by one corner from a fixed point.
struct Triangle {
  std::vector<BodyId> corners;
  std::vector<ConstraintId> rods;
};

Triangle build_redundant_triangle(World& w, bool duplicate) {
  Triangle t;
  // Corner 0 hangs from the world point (0, 0) by a pin; the triangle starts
  // at rest (a velocity consistent with its rods) and tilted, so it swings.
  const Vec3 c0(0.0, 0.0, 0.0), c1(0.8, -0.6, 0.0), c2(-0.3, -1.0, 0.0);
  t.corners.push_back(add(w, particle(c0, Vec3::Zero(), 1.0)));
  t.corners.push_back(add(w, particle(c1, Vec3::Zero(), 1.5)));
  t.corners.push_back(add(w, particle(c2, Vec3::Zero(), 0.8)));
  t.rods.push_back(add(w, DistanceDef{t.corners[0], t.corners[1], Vec3::Zero(), Vec3::Zero(), kCurrent}));
  t.rods.push_back(add(w, DistanceDef{t.corners[1], t.corners[2], Vec3::Zero(), Vec3::Zero(), kCurrent}));
  t.rods.push_back(add(w, DistanceDef{t.corners[2], t.corners[0], Vec3::Zero(), Vec3::Zero(), kCurrent}));
  if (duplicate)
    t.rods.push_back(add(w, DistanceDef{t.corners[1], t.corners[0], Vec3::Zero(), Vec3::Zero(), kCurrent}));
  t.rods.push_back(add(w, PinDef{BodyId{}, t.corners[0], c0, Vec3::Zero()}));
  return t;
}

}  // namespace

TEST(SolverAgreement, RedundantTriangleStaysFiniteAndReportsRankDeficiency) {
  for (LinearSolver s : kSolvers) {
    SCOPED_TRACE(std::string(solver_name(s)));
    WorldSettings settings;  // the defaults (rk4), only the solver chosen
    settings.solver = s;
    World w = make_world(settings);
    const Triangle t = build_redundant_triangle(w, true);
    ASSERT_EQ(t.rods.size(), 5u);
    int min_rank_deficiency = 1 << 30;
    double worst_error = 0.0;
    for (int i = 0; i < 1000; ++i) {
      const StepDiagnostics& d = w.step();
      min_rank_deficiency = std::min(min_rank_deficiency, d.rank_deficiency);
      worst_error = std::max(worst_error, d.max_error);
      ASSERT_TRUE(all_finite(w)) << "step " << i;
      ASSERT_TRUE(std::isfinite(d.max_error)) << "step " << i;
    }
    EXPECT_LT(worst_error, 1e-3);
    EXPECT_GE(min_rank_deficiency, 1);
    for (ConstraintId id : t.rods) {
      const ConstraintInfo info = w.constraint(id).value();
      for (double l : info.lambda) EXPECT_TRUE(std::isfinite(l));
    }
    // The rods still hold their lengths, measured directly.
    const Vec3 p0 = w.body(t.corners[0]).value().position, p1 = w.body(t.corners[1]).value().position;
    EXPECT_NEAR((p1 - p0).norm(), 1.0, 1e-3);
    // The duplicated pair shares its load: the two rods' λ sum to a finite
    // total, whatever the split.
    const double l01 = w.constraint(t.rods[0]).value().lambda[0];
    const double l10 = w.constraint(t.rods[3]).value().lambda[0];
    EXPECT_TRUE(std::isfinite(l01 + l10));
    // And it did move: a frozen world would pass everything above.
    EXPECT_GT((w.body(t.corners[1]).value().position - Vec3(0.8, -0.6, 0.0)).norm(), 1e-2);
  }
}

TEST(SolverAgreement, RedundantTriangleSemiImplicitEuler) {
  // The same with the first-order symplectic integrator the agreement test
  // uses. Its drift at dt = 1/60 is a few mm whether or not the rod is
  // duplicated (the integrator's, not the redundancy's), so the redundant
  // triangle is held to the well-posed triangle's own error, step by step.
  for (LinearSolver s : kSolvers) {
    SCOPED_TRACE(std::string(solver_name(s)));
    WorldSettings settings;
    settings.solver = s;
    settings.integrator = Integrator::semi_implicit_euler;
    World redundant = make_world(settings);
    World plain = make_world(settings);
    ASSERT_EQ(build_redundant_triangle(redundant, true).rods.size(), 5u);
    const Triangle t = build_redundant_triangle(plain, false);
    ASSERT_EQ(t.rods.size(), 4u);
    double worst_redundant = 0.0, worst_plain = 0.0;
    for (int i = 0; i < 1000; ++i) {
      const StepDiagnostics& d = redundant.step();
      ASSERT_GE(d.rank_deficiency, 1) << "step " << i;
      ASSERT_TRUE(all_finite(redundant)) << "step " << i;
      worst_redundant = std::max(worst_redundant, d.max_error);
      worst_plain = std::max(worst_plain, plain.step().max_error);
    }
    EXPECT_LT(worst_redundant, 1e-2);
    EXPECT_LE(worst_redundant, worst_plain * (1.0 + 1e-3) + 1e-6);
    // The duplicate changes nothing about the motion.
    const std::vector<BodyId> a = redundant.bodies(), b = plain.bodies();
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_LT((redundant.body(a[i]).value().position - plain.body(b[i]).value().position).norm(), 1e-6)
          << "corner " << i;
  }
  {
    // With 8 substeps the same run keeps its rods within 1 mm.
    WorldSettings settings;
    settings.integrator = Integrator::semi_implicit_euler;
    settings.substeps = 8;
    for (LinearSolver s : kSolvers) {
      SCOPED_TRACE(std::string(solver_name(s)) + ", 8 substeps");
      settings.solver = s;
      World w = make_world(settings);
      ASSERT_EQ(build_redundant_triangle(w, true).rods.size(), 5u);
      double worst = 0.0;
      for (int i = 0; i < 1000; ++i) {
        const StepDiagnostics& d = w.step();
        ASSERT_TRUE(all_finite(w)) << "step " << i;
        EXPECT_GE(d.rank_deficiency, 1) << "step " << i;
        worst = std::max(worst, d.max_error);
      }
      EXPECT_LT(worst, 1e-3);
    }
  }
}

TEST(SolverAgreement, WellPosedWorldsReportFullRank) {
  for (LinearSolver s : kSolvers) {
    SCOPED_TRACE(std::string(solver_name(s)));
    {
      // The triangle without its duplicate rod.
      WorldSettings settings;
      settings.solver = s;
      World w = make_world(settings);
      build_redundant_triangle(w, false);
      for (int i = 0; i < 10; ++i) EXPECT_EQ(w.step().rank_deficiency, 0) << "triangle, step " << i;
    }
    {
      World w = make_world(tight_settings(s));
      build_mechanism(w);
      for (int i = 0; i < 10; ++i) EXPECT_EQ(w.step().rank_deficiency, 0) << "mechanism, step " << i;
    }
  }
}
