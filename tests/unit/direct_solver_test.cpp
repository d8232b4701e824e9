// The direct solver through the public API: its paths (tree, graph) agree
// with an independent solve of the same system, redundant rows are found and
// taken out, projection holds what it promises, and runs stay bit-identical
// with any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "bit_identical.hpp"
#include "linkage/scenes/build.hpp"
#include "linkage/scenes/measure.hpp"
#include "projection.hpp"
#include "scenes.hpp"

using namespace linkage;

namespace {

// A mechanism built into a world by one of the builders below.
using Builder = void (*)(World&, std::mt19937&);

BodyDef particle(Vec3 at, double mass, Vec3 v = Vec3::Zero()) {
  return {.kind = BodyKind::particle, .position = at, .velocity = v, .mass = mass};
}

BodyDef bar(Vec3 centre, double angle, double length, double mass, Vec3 v = Vec3::Zero(), double omega = 0.0) {
  return {.kind = BodyKind::rigid, .position = centre, .angle = angle, .velocity = v, .angular_velocity = omega,
          .mass = mass, .inertia = mass * length * length / 12.0};
}

// A world point in a body's frame (the world's frame for the null id).
Vec3 local(const World& w, BodyId body, Vec3 point) {
  if (body.is_null()) return point;
  const BodyInfo b = w.body(body).value();
  const Vec3 d = point - b.position;
  const double c = std::cos(b.angle), s = std::sin(b.angle);
  return Vec3(c * d.x() + s * d.y(), -s * d.x() + c * d.y(), d.z());
}

double uniform(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

// A chain of particles and bars alternating, hung from the world.
void chain(World& w, std::mt19937& rng) {
  BodyId prev{};
  Vec3 at(0, 0, 0);
  for (int i = 0; i < 12; ++i) {
    const Vec3 next = at + Vec3(uniform(rng, 0.2, 0.5), uniform(rng, -0.3, 0.3), 0);
    const Vec3 v(uniform(rng, -1, 1), uniform(rng, -1, 1), 0);
    if (i % 2 == 0) {
      const BodyId p = w.add_body(particle(next, uniform(rng, 0.5, 3.0), v)).value();
      w.add_constraint(DistanceDef{.a = prev, .b = p, .anchor_a = local(w, prev, at)}).value();
      prev = p;
    } else {
      const Vec3 centre = 0.5 * (at + next);
      const double angle = std::atan2(next.y() - at.y(), next.x() - at.x());
      const BodyId b =
          w.add_body(bar(centre, angle, (next - at).norm(), uniform(rng, 0.5, 2.0), v, uniform(rng, -2, 2))).value();
      w.add_constraint(PinDef{.a = prev, .b = b, .anchor_a = local(w, prev, at), .anchor_b = local(w, b, at)}).value();
      prev = b;
    }
    at = next;
  }
}

// A branching tree of bars pinned end to end, two of them also held to the
// world (pendants), and a particle on a rod at every leaf.
void tree(World& w, std::mt19937& rng) {
  std::vector<std::pair<BodyId, Vec3>> ends;  // a bar and the world point of its free end
  const BodyId root = w.add_body(bar(Vec3(0, 0, 0), 0.0, 1.0, 2.0, Vec3(0.1, 0, 0), 0.5)).value();
  w.add_constraint(PinDef{.b = root, .anchor_a = Vec3(-0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}).value();
  ends.push_back({root, Vec3(0.5, 0, 0)});
  for (int i = 0; i < 10; ++i) {
    const auto [parent, tip] = ends[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, static_cast<int>(ends.size()) - 1)(rng))];
    const double angle = uniform(rng, -2, 2);
    const Vec3 dir(std::cos(angle), std::sin(angle), 0);
    const Vec3 centre = tip + 0.3 * dir;
    const BodyId b = w.add_body(bar(centre, angle, 0.6, uniform(rng, 0.5, 2.0), Vec3::Zero(), uniform(rng, -1, 1))).value();
    w.add_constraint(PinDef{.a = parent, .b = b, .anchor_a = local(w, parent, tip), .anchor_b = local(w, b, tip)}).value();
    ends.push_back({b, centre + 0.3 * dir});
  }
  const auto [last, last_tip] = ends.back();
  w.add_constraint(PointOnLineDef{.b = last, .anchor_a = last_tip, .anchor_b = local(w, last, last_tip), .axis = Vec3(1, 1, 0)})
      .value();
  for (const auto& [b, tip] : ends) {
    const BodyId p = w.add_body(particle(tip + Vec3(0, -0.3, 0), 0.5)).value();
    w.add_constraint(DistanceDef{.a = b, .b = p, .anchor_a = local(w, b, tip)}).value();
  }
}

// A ring of four bars pinned end to end (a loop of moving bodies), one of
// them pinned to the world and driven by a motor held at its bound, with a
// slider and a geared wheel on the side.
void loops(World& w, std::mt19937& rng) {
  const Vec3 corners[4] = {Vec3(0, 0, 0), Vec3(1, 0.1, 0), Vec3(1.2, 1.0, 0), Vec3(-0.1, 0.9, 0)};
  BodyId bars[4];
  for (int i = 0; i < 4; ++i) {
    const Vec3 a = corners[i], b = corners[(i + 1) % 4];
    bars[i] = w.add_body(bar(0.5 * (a + b), std::atan2(b.y() - a.y(), b.x() - a.x()), (b - a).norm(), uniform(rng, 0.5, 2.0),
                             Vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), 0), uniform(rng, -1, 1)))
                  .value();
  }
  for (int i = 0; i < 4; ++i) {
    const BodyId a = bars[i], b = bars[(i + 1) % 4];
    const Vec3 joint = corners[(i + 1) % 4];
    w.add_constraint(PinDef{.a = a, .b = b, .anchor_a = local(w, a, joint), .anchor_b = local(w, b, joint)}).value();
  }
  w.add_constraint(PinDef{.b = bars[0], .anchor_a = corners[0], .anchor_b = local(w, bars[0], corners[0])}).value();
  w.add_constraint(MotorDef{.b = bars[0], .speed = 2.0, .max_force = 0.05}).value();
  const BodyId slider = w.add_body(particle(Vec3(1.6, 1.04, 0), 0.7, Vec3(uniform(rng, -1, 1), 0, 0))).value();
  w.add_constraint(PointOnLineDef{.a = bars[2], .b = slider, .anchor_a = local(w, bars[2], Vec3(1.6, 1.04, 0)),
                                  .axis = Vec3(1, 0, 0)})
      .value();
  const BodyId wheel = w.add_body({.kind = BodyKind::rigid, .position = Vec3(3, 0, 0), .shape = Disk{0.3}}).value();
  w.add_constraint(PinDef{.b = wheel, .anchor_a = Vec3(3, 0, 0)}).value();
  w.add_constraint(GearDef{.a = bars[1], .b = wheel, .radius_a = 0.5, .radius_b = 0.3}).value();
}

// 3D particles: a chain, a point on a plane and a closed triangle.
void three_d(World& w, std::mt19937& rng) {
  BodyId prev{};
  std::vector<BodyId> ps;
  for (int i = 1; i <= 8; ++i) {
    const BodyId p = w.add_body(particle(Vec3(0.3 * i, uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1)),
                                         uniform(rng, 0.5, 2.0), Vec3(0, 0, uniform(rng, -1, 1))))
                         .value();
    w.add_constraint(DistanceDef{.a = prev, .b = p}).value();
    ps.push_back(p);
    prev = p;
  }
  w.add_constraint(PointOnPlaneDef{.b = ps[3], .anchor_a = Vec3(0, 0, 0), .normal = Vec3(0, 0, 1)}).value();
  w.add_constraint(DistanceDef{.a = ps[5], .b = ps[7]}).value();
}

struct Case {
  const char* name;
  Builder build;
  int dimension;
  SolverPath path;
};
const Case kCases[] = {
    {"chain", chain, 2, SolverPath::tree},
    {"tree", tree, 2, SolverPath::tree},
    {"loops", loops, 2, SolverPath::graph},
    {"three_d", three_d, 3, SolverPath::graph},
};

// λ of one velocity-projection step and of one force-based step.
std::vector<double> lambdas(const Case& c, LinearSolver solver, Dynamics dynamics, int seed) {
  WorldSettings s;
  s.dimension = c.dimension;
  if (c.dimension == 3) s.gravity = Vec3(0, -9.81, 0);
  s.solver = solver;
  s.dynamics = dynamics;
  s.integrator = Integrator::semi_implicit_euler;
  s.solver_tolerance = 1e-15;
  s.solver_max_iterations = 100000;
  s.regularization = 0.0;
  World w = test::make_world(s);
  std::mt19937 rng(static_cast<unsigned>(seed));
  c.build(w, rng);
  const StepDiagnostics& d = w.step();
  if (solver == LinearSolver::ldlt) {
    EXPECT_EQ(d.solver_path, c.path) << c.name;
  }
  std::vector<double> out;
  for (const ConstraintId id : w.constraints()) {
    const ConstraintInfo info = w.constraint(id).value();
    out.insert(out.end(), info.lambda.begin(), info.lambda.end());
  }
  return out;
}

}  // namespace

// The direct solver (tree order, fill-reducing order) against conjugate
// gradient run to round-off on the same system: λ to 1e-8, motors at their
// bound included (the same active set decides both).
TEST(DirectSolver, AgreesWithConjugateGradientOnRandomMechanisms) {
  for (const Case& c : kCases)
    for (Dynamics dynamics : {Dynamics::velocity_projection, Dynamics::force_based})
      for (int seed = 1; seed <= 5; ++seed) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(dynamics_name(dynamics)) + " seed " + std::to_string(seed));
        const std::vector<double> direct = lambdas(c, LinearSolver::ldlt, dynamics, seed);
        const std::vector<double> cg = lambdas(c, LinearSolver::conjugate_gradient, dynamics, seed);
        ASSERT_EQ(direct.size(), cg.size());
        double scale = 0.0, diff = 0.0;
        for (std::size_t i = 0; i < direct.size(); ++i) {
          scale = std::max(scale, std::abs(cg[i]));
          diff = std::max(diff, std::abs(direct[i] - cg[i]));
        }
        EXPECT_GT(scale, 0.0);
        EXPECT_LT(diff, 1e-8 * scale);
      }
}

// A rigid triangle of rods with one rod doubled: one row depends on the
// others; it is found, named, and taken out.
TEST(DirectSolver, FindsTheDuplicateRodOfATriangle) {
  World w = test::make_world(with_preset(Preset::exact));
  const BodyId a = w.add_body(particle(Vec3(0, 0, 0), 1.0)).value();
  const BodyId b = w.add_body(particle(Vec3(1, 0, 0), 2.0)).value();
  const BodyId c = w.add_body(particle(Vec3(0.5, 0.8, 0), 3.0, Vec3(1, 0, 0))).value();
  w.add_constraint(DistanceDef{.a = a, .b = b}).value();
  w.add_constraint(DistanceDef{.a = b, .b = c}).value();
  w.add_constraint(DistanceDef{.a = c, .b = a}).value();
  const ConstraintId twin = w.add_constraint(DistanceDef{.a = a, .b = b}).value();
  EXPECT_EQ(w.step().rank_deficiency, 1);
  const std::vector<ConstraintRow> redundant = w.redundant_rows();
  ASSERT_EQ(redundant.size(), 1u);
  EXPECT_EQ(redundant[0].constraint, twin);  // the last of the pair in elimination order
  EXPECT_EQ(redundant[0].row, 0);
  EXPECT_LT(w.diagnostics().max_error, 1e-9);
}

// A small rigid joint grid (Box2D's, 6 × 6): the count of redundant rows is
// what the rank of J says, and the motion with them taken out is the motion
// of the regularized solve.
TEST(DirectSolver, RedundantRowsOfAJointGridMatchTheRankOfJ) {
  const scenes::SceneSpec spec = scenes::joint_grid(6);
  // J at the start, from the spec: pins p_b − p_a, rows x and y.
  std::vector<int> offset(spec.bodies.size(), -1);
  int dof = 0;
  for (std::size_t i = 0; i < spec.bodies.size(); ++i)
    if (!spec.bodies[i].fixed) offset[i] = dof, dof += 3;
  std::vector<Eigen::RowVectorXd> rows;
  for (const scenes::JointSpec& j : spec.joints) {
    if (scenes::is_inert(spec, j)) continue;
    for (int axis = 0; axis < 2; ++axis) {
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(dof);
      for (const auto& [body, sign] : {std::pair{j.a, -1.0}, std::pair{j.b, 1.0}}) {
        if (body < 0 || offset[static_cast<std::size_t>(body)] < 0) continue;
        const Vec2 arm = j.anchor_a - spec.bodies[static_cast<std::size_t>(body)].position;
        const int o = offset[static_cast<std::size_t>(body)];
        row[o + axis] = sign;
        row[o + 2] = sign * (axis == 0 ? -arm.y() : arm.x());
      }
      rows.push_back(row);
    }
  }
  Eigen::MatrixXd j(static_cast<Eigen::Index>(rows.size()), dof);
  for (std::size_t r = 0; r < rows.size(); ++r) j.row(static_cast<Eigen::Index>(r)) = rows[r];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(j);
  svd.setThreshold(1e-10);
  const int expected = static_cast<int>(rows.size()) - static_cast<int>(svd.rank());
  ASSERT_GT(expected, 0);

  auto run = [&](LinearSolver solver) {
    WorldSettings s;
    s.dynamics = Dynamics::velocity_projection;
    s.solver = solver;
    s.solver_tolerance = 1e-15;
    s.solver_max_iterations = 100000;
    scenes::SceneWorld scene = scenes::build_world(spec, s).value();
    const int deficiency = scene.world.step().rank_deficiency;
    if (solver == LinearSolver::ldlt) {
      EXPECT_EQ(deficiency, expected);
      EXPECT_EQ(static_cast<int>(scene.world.redundant_rows().size()), expected);
    }
    scenes::SceneState state;
    scenes::read_state(scene, state);
    return state;
  };
  const scenes::SceneState kept = run(LinearSolver::ldlt);
  const scenes::SceneState regularized = run(LinearSolver::conjugate_gradient);
  for (std::size_t i = 0; i < kept.velocity.size(); ++i) {
    EXPECT_LT((kept.velocity[i] - regularized.velocity[i]).norm(), 1e-8);
    EXPECT_LT(std::abs(kept.angular_velocity[i] - regularized.angular_velocity[i]), 1e-8);
  }
}

// The exact preset at 60 Hz without substeps: a 200-link chain released
// horizontally holds every rod to 1e-6 of its length for 10 s, every step's
// projection converged.
TEST(DirectSolver, ExactPresetHoldsAFallingChainAtSixtyHertz) {
  const scenes::SceneSpec spec = scenes::chain(200);
  scenes::SceneWorld scene = scenes::build_world(spec, with_preset(Preset::exact)).value();
  scenes::SceneState state;
  double worst = 0.0;
  for (int i = 0; i < 600; ++i) {
    const StepDiagnostics& d = scene.world.step();
    EXPECT_FALSE(d.projection_capped) << "step " << i;
    scenes::read_state(scene, state);
    worst = std::max(worst, scenes::worst_relative_error(spec, state));
  }
  EXPECT_LT(worst, 1e-6);
}

// A motor-driven crank under position projection: the projection holds the
// motor's coordinate where the step put it, so the crank keeps ω t.
TEST(DirectSolver, ProjectionDoesNotUndoAMotor) {
  for (Projection projection : {Projection::shake, Projection::nearest}) {
    WorldSettings s = with_preset(Preset::exact);
    s.projection = projection;
    World w = test::make_world(s);
    const BodyId crank = w.add_body(bar(Vec3(0.25, 0, 0), 0.0, 0.5, 1.0)).value();
    const BodyId piston = w.add_body(particle(Vec3(1.25, 0, 0), 3.0)).value();
    w.add_constraint(PinDef{.b = crank, .anchor_a = Vec3(0, 0, 0), .anchor_b = Vec3(-0.25, 0, 0)}).value();
    w.add_constraint(DistanceDef{.a = crank, .b = piston, .anchor_a = Vec3(0.25, 0, 0)}).value();
    w.add_constraint(PointOnLineDef{.b = piston, .axis = Vec3(1, 0, 0)}).value();
    const double omega = 2.0 * std::numbers::pi;
    w.add_constraint(MotorDef{.b = crank, .speed = omega}).value();
    for (int i = 0; i < 120; ++i) w.step();
    SCOPED_TRACE(std::string(projection_name(projection)));
    EXPECT_NEAR(w.body(crank).value().angle, omega * w.time(), 1e-8);
    EXPECT_LT(w.diagnostics().max_error, 1e-9);
  }
}

// RATTLE solves only when the velocities need it: a rigid grid at rest
// keeps its rows to the tolerance with one solve a step, while a swinging
// pendulum is projected at the end of every step; both end every step with
// |Ċ| h below the projection tolerance.
TEST(DirectSolver, VelocitiesAreProjectedOnlyWhereTheyLeaveTheRows) {
  const WorldSettings s = with_preset(Preset::exact);
  scenes::SceneWorld grid = scenes::build_world(scenes::joint_grid(6), s).value();
  grid.world.step();  // the grid's first step takes up gravity
  for (int i = 0; i < 30; ++i) {
    const StepDiagnostics& d = grid.world.step();
    EXPECT_EQ(d.solves, 1) << "step " << i;
    EXPECT_LT(d.max_error_rate * s.dt, s.projection_tolerance) << "step " << i;
  }
  World pendulum = test::make_world(s);
  const BodyId bob = pendulum.add_body(particle(Vec3(1, 0, 0), 1.0)).value();
  pendulum.add_constraint(DistanceDef{.b = bob}).value();
  for (int i = 0; i < 30; ++i) {
    const StepDiagnostics& d = pendulum.step();
    EXPECT_GE(d.solves, 2) << "step " << i;
    EXPECT_LT(d.max_error_rate * s.dt, s.projection_tolerance) << "step " << i;
  }
}

// A projection that stops at its cap says so. A bob held by two rods to
// fixed points further apart than the rods reach cannot be exact at any
// step length: no split holds it (step_split.hpp), the step is taken at
// its own length to the cap, and splitting rests the next step.
TEST(DirectSolver, ACappedProjectionIsReported) {
  WorldSettings s = with_preset(Preset::exact);
  s.projection_max_iterations = 30;
  World w = test::make_world(s);
  const BodyId bob = w.add_body(particle(Vec3(0, -0.5, 0), 1.0)).value();
  w.add_constraint(DistanceDef{.b = bob, .anchor_a = Vec3(-1.5, 0, 0), .length = 1.0}).value();
  w.add_constraint(DistanceDef{.b = bob, .anchor_a = Vec3(1.5, 0, 0), .length = 1.0}).value();
  const StepDiagnostics& d = w.step();
  EXPECT_TRUE(d.projection_capped);
  EXPECT_EQ(d.substeps, 1);
  EXPECT_GT(d.projection_iterations, s.projection_max_iterations);  // the splits' tries, then the cap
  EXPECT_GT(d.projection_error, s.projection_tolerance);
  const StepDiagnostics& rested = w.step();
  EXPECT_TRUE(rested.projection_capped);
  EXPECT_EQ(rested.projection_iterations, s.projection_max_iterations);  // no tries: splitting rests
}

// A chain whose links all start stretched by 20 %, with a cap of one
// projection iteration: the step cannot settle them at its own length
// (Newton needs more than one iteration from that far), but can as 2^k
// substeps of one iteration each.
World stretched_chain(int threads = 1) {
  WorldSettings s = with_preset(Preset::exact);
  s.projection_max_iterations = 1;
  s.threads = threads;
  World w = test::make_world(s);
  BodyId prev{};
  for (int i = 1; i <= 20; ++i) {
    const BodyId p = w.add_body(particle(Vec3(0.12 * i, 0, 0), 1.0)).value();
    w.add_constraint(DistanceDef{.a = prev, .b = p, .length = 0.1}).value();
    prev = p;
  }
  return w;
}

// It splits until it holds, says how many substeps it took, and the next
// step starts there (the links snap back: it may need more).
TEST(DirectSolver, AStepWhoseProjectionFailsSplits) {
  World w = stretched_chain();
  WorldSettings s = w.settings();
  const StepDiagnostics& d = w.step();
  EXPECT_FALSE(d.projection_capped);
  EXPECT_GT(d.substeps, 1);
  EXPECT_LT(d.max_error, s.projection_tolerance);
  const int split = d.substeps;
  const StepDiagnostics& next = w.step();
  EXPECT_FALSE(next.projection_capped);
  EXPECT_GE(next.substeps, split);
  EXPECT_LT(next.max_error, s.projection_tolerance);
  s.projection_max_iterations = 100;
  ASSERT_TRUE(w.set_settings(s).ok());
  EXPECT_FALSE(w.step().projection_capped);
}

// Split steps are deterministic for a thread count, and a saved world
// continues as the world it was saved from: how far its steps split is
// saved with it. The stretched chain's steps split, 16 times after the
// first few, and try a coarser split now and then.
TEST(DirectSolver, SplitStepsAreDeterministicAndRestore) {
  for (const int threads : {1, 2}) {
    World a = stretched_chain(threads), b = stretched_chain(threads);
    int split = 0;
    for (int i = 0; i < 12; ++i) {
      split += a.step().substeps > 1;
      b.step();
    }
    EXPECT_EQ(split, 12) << threads;
    EXPECT_EQ(a.state_hash(), b.state_hash()) << threads;
    const WorldState saved = a.save();
    for (int i = 0; i < 12; ++i) a.step();
    const std::uint64_t once = a.state_hash();
    a.restore(saved);
    for (int i = 0; i < 12; ++i) a.step();
    EXPECT_EQ(a.state_hash(), once) << threads;
  }
}

// The velocity solve before a nearest-point projection stops where its
// residual may add 1 % of what the last step's projection began from, no
// looser than 1e-6 and no tighter than solver_tolerance; without position
// projection, with SHAKE, or after a step that projected nothing, at
// solver_tolerance.
TEST(DirectSolver, VelocitySolveStopsWhereTheProjectionTakesOver) {
  const WorldSettings s = with_preset(Preset::exact);
  const double h = s.dt;
  Workspace ws;
  const Eigen::VectorXd one = Eigen::VectorXd::Constant(1, 1.0), two = Eigen::VectorXd::Constant(1, 2.0),
                        none = Eigen::VectorXd::Zero(1);  // right sides of |r|₂ 1, 2 and 0
  EXPECT_EQ(velocity_solve_tolerance(s, ws, h, one), s.solver_tolerance);  // nothing projected yet
  ws.projection_start = 1e-6;
  EXPECT_NEAR(velocity_solve_tolerance(s, ws, h, two), kPredictorShare * 1e-6 / (h * 2.0), 1e-20);
  ws.projection_start = 1e-3;
  EXPECT_EQ(velocity_solve_tolerance(s, ws, h, two), kPredictorTolerance);
  ws.projection_start = 1e-15;
  EXPECT_EQ(velocity_solve_tolerance(s, ws, h, two), s.solver_tolerance);
  EXPECT_EQ(velocity_solve_tolerance(s, ws, h, none), s.solver_tolerance);  // nothing to solve
  ws.projection_start = 1e-3;
  WorldSettings shake = s;
  shake.projection = Projection::shake;
  EXPECT_EQ(velocity_solve_tolerance(shake, ws, h, two), s.solver_tolerance);
  WorldSettings unprojected = s;
  unprojected.project_positions = false;
  EXPECT_EQ(velocity_solve_tolerance(unprojected, ws, h, two), s.solver_tolerance);
  EXPECT_TRUE(velocity_solve_predicts(s));
  for (const WorldSettings& tight : {shake, unprojected}) EXPECT_FALSE(velocity_solve_predicts(tight));
  WorldSettings force_based = s;
  force_based.dynamics = Dynamics::force_based;
  EXPECT_FALSE(velocity_solve_predicts(force_based));
}

// With those looser solves, and RATTLE stopping once no row's |Ċ| h can
// pass half the tolerance, a moving slack cloth still ends every step with
// |C| and |Ċ| h below the projection tolerance.
TEST(DirectSolver, LooserSolvesStillEndEveryStepExact) {
  const WorldSettings s = with_preset(Preset::exact);
  scenes::SceneWorld cloth = scenes::build_world(scenes::cloth_slack(16), s).value();
  for (int i = 0; i < 60; ++i) {
    const StepDiagnostics& d = cloth.world.step();
    EXPECT_FALSE(d.projection_capped) << "step " << i;
    EXPECT_LT(d.max_error, s.projection_tolerance) << "step " << i;
    EXPECT_LT(d.max_error_rate * s.dt, s.projection_tolerance) << "step " << i;
  }
}

// A cloth torn rod by rod between steps, and every fourth step a particle
// taken out with its rods (a change of topology each step, its
// fill-reducing order kept: KeptOrder, told where the later particles'
// columns went) still ends every step exact, and two runs of the same
// history end bit-identical, on one thread and on two.
TEST(DirectSolver, ATornClothStaysExactAndDeterministic) {
  for (int threads : {1, 2}) {
    WorldSettings s = with_preset(Preset::exact);
    s.threads = threads;
    auto run = [&] {
      scenes::SceneWorld cloth = scenes::build_world(scenes::cloth_slack(24), s).value();  // 1,104 rods: nested dissection
      const std::vector<ConstraintId> rods = cloth.world.constraints();
      const std::vector<BodyId> particles = cloth.world.bodies();
      for (int i = 0; i < 30; ++i) {
        if (i >= 5 && i % 4 == 0) {
          EXPECT_TRUE(cloth.world.remove_body(particles[100 + 11 * static_cast<std::size_t>(i)]).ok());
        } else if (i >= 5) {
          (void)cloth.world.remove_constraint(rods[300 + 23 * static_cast<std::size_t>(i)]);  // gone already where its particle went
        }
        const StepDiagnostics& d = cloth.world.step();
        EXPECT_FALSE(d.projection_capped) << "step " << i;
        EXPECT_LT(d.max_error, s.projection_tolerance) << "step " << i;
      }
      return cloth.world.state_hash();
    };
    EXPECT_EQ(run(), run()) << threads << " threads";
  }
}

// Bit-identical runs for a given thread count: two runs, and a saved world
// restored and continued, give the same state hashes. At these sizes every
// part splits between threads: constraint evaluation, the bodies'
// rotations, the products with J, the constraint forces, the factorization
// and the solves. A slack cloth of particles and rods, and a joint grid of
// rigid disks and pins (dependent rows taken out, the factorization reused
// by PCG).
TEST(DirectSolver, RunsAreBitIdenticalForEachThreadCount) {
  for (const scenes::SceneSpec& spec : {scenes::cloth_slack(24), scenes::joint_grid(24)}) {
    for (int threads : {1, 2}) {
      auto build = [&spec, threads] {
        WorldSettings s = with_preset(Preset::exact);
        s.threads = threads;
        scenes::SceneWorld scene = scenes::build_world(spec, s).value();
        return std::move(scene.world);
      };
      SCOPED_TRACE(spec.name + ", " + std::to_string(threads) + " threads");
      test::expect_bit_identical(build, 8, [](const StepDiagnostics& d) { EXPECT_LT(d.max_error, 1e-9); });
    }
  }
}
