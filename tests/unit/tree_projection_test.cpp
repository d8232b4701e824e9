// The tree path (tree_projection.hpp, tree_solve.hpp) against the general
// path on the same state, the tree path switched off in one workspace: q,
// q̇, λ and the reactions after a position projection, and after the
// velocity solve and RATTLE, agree (q, v to 1e-10, λ to 1e-8 of the
// largest) on a chain of particles, a branching tree of rigid bodies with
// pins, welds and fixed bodies, 3D particles, a chain with a motor and a
// rope, a rope whose bound holds and a slack rope drawn taut. A graph with a loop is left to the
// general path. And the tree elimination alone against a dense solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "bit_identical.hpp"
#include "body_view.hpp"
#include "constraint_system.hpp"
#include "dynamics.hpp"
#include "impulse.hpp"
#include "model_scene.hpp"
#include "projection.hpp"
#include "solvers/tree_elimination.hpp"
#include "world_data.hpp"

using namespace linkage;

namespace {

struct Outcome {
  Eigen::VectorXd q, v;
  std::vector<ConstraintState> constraints;
  ProjectionOutcome projection;
  bool tree = false;     // the tree path applied to it
  bool general = false;  // the general path's direct solver factored (a fresh workspace's path is none)
  bool sweep = false;    // the tree path took its one sweep
  bool parts = false;    // ... in the elimination's parts, on more than one thread
  int rank_deficiency = 0;  // rows the solves took out as dependent (the most in one solve)
  int factorizations = 0, pcg_iterations = 0;  // the direct solver's, in the projection
};

// How the tree path may take a model of rods and ropes between particles:
// in 2D its forces and step in one sweep and its evaluation two rods at a
// time, or in its short loops (the forces', the step's and the
// evaluation's, one rod at a time), or as any rod and any node.
enum class Loops { sweep, short_loops, none };

Outcome project(const Scene& s, bool tree, Loops loops = Loops::sweep) {
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  ws.tree.enabled = tree;
  update_inverse_masses(m, d, ws);
  if (loops != Loops::sweep && tree_applies(m, ws)) ws.tree.sweep = ws.tree.planar = false;
  if (loops == Loops::none && tree_applies(m, ws)) ws.tree.particle_rods = ws.tree.rods_move = false;
  begin_constraint_forces(m, d, ws);
  ws.motor_free.assign(static_cast<std::size_t>(s.first_row(static_cast<int>(m.constraints.size()))), 0);
  for (int r : s.free_motor_rows) ws.motor_free[static_cast<std::size_t>(r)] = 1;
  const double h = m.settings.dt;
  Outcome out;
  out.projection = project_positions(m, d, ws, h, h);
  finish_constraint_forces(m, d, ws);
  out.q = d.q;
  out.v = d.v;
  out.constraints = d.constraints;
  out.tree = ws.tree.model == m.model_version && ws.tree.applies;
  out.sweep = out.tree && ws.tree.sweep;
  out.parts = out.sweep && ws.tree.parts_for > 0;
  out.general = ws.direct.path() != SolverPath::none;
  out.rank_deficiency = ws.step_rank_deficiency;
  out.factorizations = ws.direct.factorizations;
  out.pcg_iterations = ws.direct.pcg_iterations;
  return out;
}

// Both paths from the same state: they end at the same q, and report the
// same λ and reactions (converged, unless `converges` is false: both then
// stop at the cap). The tree path solves alone, unless `handed_over`: a
// bound binds and the general path's active set takes over. `q_tolerance`:
// how far q may differ (v by that over dt), for a scene whose K amplifies
// the two paths' different roundings.
std::vector<ConstraintState> expect_paths_agree(const Scene& s, bool converges = true, bool handed_over = false,
                                                double q_tolerance = 1e-10) {
  const Outcome general = project(s, false);
  const Outcome tree = project(s, true);
  EXPECT_FALSE(general.tree);
  EXPECT_TRUE(general.general);
  EXPECT_TRUE(tree.tree);
  EXPECT_EQ(tree.general, handed_over);
  EXPECT_GT(general.projection.iterations, 0);
  EXPECT_GT(tree.projection.iterations, 0);
  EXPECT_EQ(tree.projection.capped, !converges);
  EXPECT_EQ(general.projection.capped, !converges);
  if (converges) {
    EXPECT_LT(tree.projection.error, s.m.settings.projection_tolerance);
  }
  EXPECT_LT((tree.q - general.q).cwiseAbs().maxCoeff(), q_tolerance);
  EXPECT_LT((tree.v - general.v).cwiseAbs().maxCoeff(), q_tolerance / s.m.settings.dt);
  double scale = 0.0, force_scale = 0.0;
  for (const ConstraintState& c : general.constraints) {
    for (double l : c.lambda) scale = std::max(scale, std::abs(l));
    for (const Reaction* r : {&c.on_a, &c.on_b}) force_scale = std::max({force_scale, r->force.cwiseAbs().maxCoeff(), std::abs(r->torque)});
  }
  EXPECT_GT(scale, 0.0);
  for (std::size_t i = 0; i < general.constraints.size(); ++i) {
    const ConstraintState& a = general.constraints[i];
    const ConstraintState& b = tree.constraints[i];
    for (std::size_t r = 0; r < 3; ++r) EXPECT_LE(std::abs(a.lambda[r] - b.lambda[r]), 1e-8 * scale) << "constraint " << i;
    EXPECT_LE((a.on_a.force - b.on_a.force).cwiseAbs().maxCoeff(), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE((a.on_b.force - b.on_b.force).cwiseAbs().maxCoeff(), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE(std::abs(a.on_a.torque - b.on_a.torque), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE(std::abs(a.on_b.torque - b.on_b.torque), 1e-8 * force_scale) << "constraint " << i;
  }
  return tree.constraints;
}

Scene chain_of_particles(int links = 40) {
  Scene s(2);
  int prev = -1;
  for (int i = 0; i < links; ++i) {
    const int p = s.body(BodyKind::particle, Vec3(0.1 * (i + 1), 0.0, 0.0), 0.0, 1.0 + 0.05 * (i % 7));
    s.add(DistanceDef{}, prev, p);
    prev = p;
  }
  return s;
}

TEST(TreeProjection, AgreesOnAChainOfParticles) {
  Scene s = chain_of_particles();
  s.perturb(1, 0.01);
  expect_paths_agree(s);
}

Scene line_search_cut(int dimension);

// Two outcomes bit for bit: iterations, error, q, v, λ and reactions.
void expect_same_bits(const Outcome& a, const Outcome& b) {
  EXPECT_EQ(a.projection.iterations, b.projection.iterations);
  EXPECT_EQ(a.projection.error, b.projection.error);
  EXPECT_EQ(std::memcmp(a.q.data(), b.q.data(), sizeof(double) * a.q.size()), 0);
  EXPECT_EQ(std::memcmp(a.v.data(), b.v.data(), sizeof(double) * a.v.size()), 0);
  for (std::size_t i = 0; i < a.constraints.size(); ++i) {
    EXPECT_EQ(a.constraints[i].lambda, b.constraints[i].lambda) << "constraint " << i;
    EXPECT_EQ(a.constraints[i].on_a.force, b.constraints[i].on_a.force) << "constraint " << i;
    EXPECT_EQ(a.constraints[i].on_b.force, b.constraints[i].on_b.force) << "constraint " << i;
  }
}

// A random 2D tree of particles on rods, some rods from the world: each
// particle hangs from a random earlier one (or, every seventh, from the
// world), the rods listed in a shuffled order, each particle off by up to
// 1 cm; the last particle on a rope (or a rod).
Scene random_particle_tree(unsigned seed, int count, bool rope = true) {
  Scene s(2);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.5, 2.0);
  auto at = [&s](int body) {
    const int o = s.m.bodies[static_cast<std::size_t>(body)].offset;
    return Vec3(s.d.q[o], s.d.q[o + 1], 0.0);
  };
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < count; ++i) {
    const int parent = i % 7 == 0 ? -1 : static_cast<int>(rng() % static_cast<unsigned>(i));
    const Vec3 from = parent < 0 ? Vec3(u(rng), 0, 0) : at(parent);
    edges.push_back({parent, s.body(BodyKind::particle, from + Vec3(0.1 * u(rng), -0.1, 0), 0.0, mass(rng))});
  }
  std::shuffle(edges.begin(), edges.end() - 1, rng);
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const auto [a, b] = edges[i];
    s.add(DistanceDef{.anchor_a = a < 0 ? Vec3(at(b) + Vec3(0, 0.1, 0)) : Vec3::Zero()}, a, b);
  }
  if (rope) {
    s.add(RopeDef{}, edges.back().first, edges.back().second);
  } else {
    const auto [a, b] = edges.back();
    s.add(DistanceDef{.anchor_a = a < 0 ? Vec3(at(b) + Vec3(0, 0.1, 0)) : Vec3::Zero()}, a, b);
  }
  s.perturb(seed, 0.01);
  return s;
}

// The tree path's sweep and paired evaluation of rods and ropes between
// particles (2D), its short loops and its evaluation of any rod and forces
// of any node give the same bits, on a chain with a taut rope at its end, random particle
// trees, and the branching tree whose first step the line search cuts.
TEST(TreeProjection, TakesRodsBetweenParticlesAlikeInEachLoop) {
  std::vector<std::pair<std::string, Scene>> scenes;
  Scene chain = chain_of_particles();
  const int bob = chain.body(BodyKind::particle, Vec3(4.1, -0.5, 0.0), 0.0, 0.5);
  chain.add(RopeDef{.max_length = 0.5}, bob - 1, bob);
  chain.perturb(2, 0.01);
  chain.d.q[chain.m.bodies.back().offset + 1] -= 0.02;  // the rope stretched: it pulls
  chain.body(BodyKind::particle, Vec3(-1.0, 1.0, 0.0), 0.0, 2.0);  // on no rod: its DOF are stepped apart (idle)
  scenes.push_back({"chain and rope", chain});
  for (unsigned seed : {41u, 42u, 43u}) scenes.push_back({"tree " + std::to_string(seed), random_particle_tree(seed, 60)});
  scenes.push_back({"cut", line_search_cut(2)});
  for (const auto& [name, s] : scenes) {
    SCOPED_TRACE(name);
    const Outcome sweep = project(s, true);
    const Outcome short_loops = project(s, true, Loops::short_loops);
    const Outcome none = project(s, true, Loops::none);
    EXPECT_TRUE(sweep.sweep);
    EXPECT_FALSE(short_loops.sweep);
    EXPECT_GT(sweep.projection.iterations, 1);
    EXPECT_LT(sweep.projection.error, s.m.settings.projection_tolerance);
    expect_same_bits(sweep, short_loops);
    expect_same_bits(sweep, none);
  }
  EXPECT_LT(project(scenes.front().second, true).constraints.back().lambda[0], 0.0);  // the rope pulls

  // The chain with a slack rope (held from the first evaluation) and a rod
  // to a kinematic particle (an end that does not move: no share of K, and
  // a reaction to report, so no sweep): the short loops and any node's.
  Scene held = chain;
  const int slack = held.body(BodyKind::particle, Vec3(0.5, -0.3, 0.0), 0.0, 1.5);
  held.add(RopeDef{.max_length = 1.0}, 3, slack);
  const int kinematic = held.body(BodyKind::particle, Vec3(1.0, 0.5, 0.0), 0.0, 1.0, Motion::kinematic);
  held.add(DistanceDef{}, 9, kinematic);
  held.d.q[held.m.bodies[static_cast<std::size_t>(kinematic)].offset] += 0.01;  // that rod stretched
  const Outcome short_loops = project(held, true, Loops::short_loops);
  EXPECT_TRUE(short_loops.tree);
  EXPECT_FALSE(short_loops.sweep);
  EXPECT_LT(short_loops.projection.error, held.m.settings.projection_tolerance);
  EXPECT_EQ(short_loops.constraints[held.m.constraints.size() - 2].lambda[0], 0.0);  // the slack rope
  EXPECT_NE(short_loops.constraints.back().on_b.force, Vec3::Zero());  // the kinematic end's reaction
  expect_same_bits(short_loops, project(held, true, Loops::none));
}

// On two threads a sweep model whose elimination splits takes its
// iterations in the parts (iterate_in_parts): the same bits as on one, on
// random forests of particles (whole trees dealt to the parts, their rods
// in a shuffled order), a long chain (split at its centre), and
// line_search_cut's scene beside a long chain: its first step is cut, and
// the parts' factorization made ahead for the full step is made again.
TEST(TreeProjection, TakesItsIterationsInPartsAlike) {
  std::vector<std::pair<std::string, Scene>> scenes;
  for (unsigned seed : {51u, 52u}) scenes.push_back({"forest " + std::to_string(seed), random_particle_tree(seed, 400, false)});
  Scene chain = chain_of_particles(300);
  chain.perturb(3, 0.01);
  scenes.push_back({"chain", chain});
  Scene cut = line_search_cut(2);
  int prev = -1;
  for (int i = 0; i < 300; ++i) {
    const int p = cut.body(BodyKind::particle, Vec3(10.0 + 0.1 * (i + 1), 0.001 * (i % 3), 0.0), 0.0, 1.0);
    cut.add(DistanceDef{.anchor_a = prev < 0 ? Vec3(10.0, 0.0, 0.0) : Vec3::Zero()}, prev, p);
    prev = p;
  }
  scenes.push_back({"cut", cut});
  for (const auto& [name, s] : scenes) {
    SCOPED_TRACE(name);
    Scene two_threads = s;
    two_threads.m.settings.threads = 2;
    const Outcome one = project(s, true);
    const Outcome two = project(two_threads, true);
    EXPECT_TRUE(one.sweep);
    EXPECT_FALSE(one.parts);
    EXPECT_TRUE(two.parts);
    EXPECT_GT(two.projection.iterations, 1);
    EXPECT_LT(two.projection.error, s.m.settings.projection_tolerance);
    expect_same_bits(one, two);
  }
  Scene once = cut;
  once.m.settings.projection_max_iterations = 1;
  once.m.settings.threads = 2;
  const double moved = std::abs(project(once, true).q[1] - cut.d.q[1]);
  EXPECT_GT(moved, 1.0);  // the cut taken (the full step is 10)
  EXPECT_LT(moved, 5.0);
}

// A bar pinned to the world, three children on its end (one welded, one
// with a particle on a rod, one carrying two more bars), a fixed body
// pinned to a leaf (a reaction on a body that does not move) and a soft
// rod (held by projection) closing no loop the solve sees.
Scene branching_tree() {
  Scene s(2);
  const int root = s.body(BodyKind::rigid, Vec3(0.5, 0, 0), 0.0, 2.0);
  s.add(PinDef{.anchor_a = Vec3(0, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, -1, root);
  const int welded = s.body(BodyKind::rigid, Vec3(1.5, 0, 0), 0.0, 1.0);
  s.add(WeldDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, root, welded);
  const int swinging = s.body(BodyKind::rigid, Vec3(1.0, -0.5, 0), -1.5707963267948966, 1.5);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, root, swinging);
  const int bob = s.body(BodyKind::particle, Vec3(1.0, -1.6, 0), 0.0, 0.5);
  s.add(DistanceDef{.anchor_a = Vec3(0.5, 0, 0)}, swinging, bob);
  const int upper = s.body(BodyKind::rigid, Vec3(1.0, 0.5, 0), 1.5707963267948966, 0.7);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, root, upper);
  const int top = s.body(BodyKind::rigid, Vec3(1.5, 1.0, 0), 0.0, 0.7);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, upper, top);
  const int tip = s.body(BodyKind::rigid, Vec3(0.5, 1.0, 0), 3.141592653589793, 0.4);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, upper, tip);
  const int wall = s.body(BodyKind::rigid, Vec3(2.5, 1.0, 0), 0.0, 1.0, Motion::fixed);
  s.add(PinDef{.anchor_a = Vec3(0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, top, wall);
  s.add(DistanceDef{}, tip, bob, Softness{.frequency = 2.0});
  return s;
}

TEST(TreeProjection, AgreesOnABranchingTreeOfRigidBodies) {
  Scene s = branching_tree();
  s.perturb(2, 0.01);
  const std::vector<ConstraintState> c = expect_paths_agree(s);
  EXPECT_GT(c[7].on_b.force.norm(), 0.0);  // the fixed wall is pulled
  EXPECT_EQ(c[8].lambda[0], 0.0);           // the soft rod is held
}

// 3D particles: pins (three rows) and rods, branching.
Scene particles_3d() {
  Scene s(3);
  const int root = s.body(BodyKind::particle, Vec3(0, 0, 0), 0.0, 2.0);
  s.add(PinDef{}, -1, root);
  std::vector<int> layer{root};
  int index = 0;
  for (int depth = 1; depth <= 3; ++depth) {
    std::vector<int> next;
    for (int parent : layer)
      for (int k = 0; k < 2; ++k, ++index) {
        const Vec3 x = s.d.q.segment<3>(s.m.bodies[static_cast<std::size_t>(parent)].offset) +
                       Vec3(0.1 * (k ? 1 : -1), -0.1, 0.05 * depth);
        const int child = s.body(BodyKind::particle, x, 0.0, 1.0 + 0.1 * index);
        if (index % 3 == 0) {
          s.add(PinDef{.anchor_a = Vec3(0.1 * (k ? 1 : -1), -0.1, 0.05 * depth)}, parent, child);
        } else {
          s.add(DistanceDef{}, parent, child);
        }
        next.push_back(child);
      }
    layer = next;
  }
  return s;
}

TEST(TreeProjection, AgreesOn3DParticles) {
  Scene s = particles_3d();
  s.perturb(3, 0.005);
  expect_paths_agree(s);
}

// Rigid links pinned in a chain, a motor between the first two (two
// constraints on one pair of bodies), a particle on a taut rope from the
// last link (the rope's body last).
Scene chain_with_motor_and_rope(bool free_motor) {
  Scene s(2);
  int prev = -1;
  for (int i = 0; i < 6; ++i) {
    const int link = s.body(BodyKind::rigid, Vec3(0.5 + i, 0, 0), 0.0, 1.0 + 0.2 * i);
    s.add(PinDef{.anchor_a = Vec3(prev < 0 ? 0.0 : 0.5, 0, 0), .anchor_b = Vec3(-0.5, 0, 0)}, prev, link);
    if (i == 1) {
      const int motor = s.add(MotorDef{.speed = 1.0}, prev, link);
      if (free_motor) s.free_motor_rows.push_back(s.first_row(motor));
    }
    prev = link;
  }
  const int bob = s.body(BodyKind::particle, Vec3(6.0, -1.0, 0), 0.0, 0.3);
  s.add(RopeDef{.anchor_a = Vec3(0.5, 0, 0)}, prev, bob);
  return s;
}

// The motor locked, then free to slip (held).
TEST(TreeProjection, AgreesOnAChainWithAMotorAndARope) {
  for (bool free_motor : {false, true}) {
    SCOPED_TRACE(free_motor ? "motor free" : "motor locked");
    Scene s = chain_with_motor_and_rope(free_motor);
    s.perturb(4, 0.01);
    s.d.q[s.m.bodies.back().offset + 1] -= 0.05;  // the rope stretched: it pulls
    const std::vector<ConstraintState> c = expect_paths_agree(s);
    EXPECT_LT(c.back().lambda[0], 0.0);
    if (free_motor) {
      EXPECT_EQ(c[2].lambda[0], 0.0);
    }
  }
}

// A taut rope from the world to a particle, and a stretched rod from that
// particle back towards the rope's anchor: the rod's correction slackens
// the rope, which would have to push (λ > 0) to stay taut; its bound
// (λ ≤ 0) holds it at 0 instead: the tree path gives the projection to the
// general path's active set as it found it. A slack rope is in no error
// (C < 0 is its free side), though it was taut when the projection began:
// both converge (they stopped at the cap, counting the slack as error,
// before 2026-11-29).
TEST(TreeProjection, AgreesWhereARopesBoundHolds) {
  Scene s(2);
  s.m.settings.projection_max_iterations = 6;
  const int p1 = s.body(BodyKind::particle, Vec3(1.0, 0, 0));
  const int p2 = s.body(BodyKind::particle, Vec3(0.5, 0.01, 0));
  const int rope = s.add(RopeDef{}, -1, p1);
  s.add(DistanceDef{.length = 0.45}, p1, p2);
  const std::vector<ConstraintState> c = expect_paths_agree(s, true, true);
  EXPECT_EQ(c[static_cast<std::size_t>(rope)].lambda[0], 0.0);
  EXPECT_NE(c[1].lambda[0], 0.0);
}

// A rope from the world slack by 5 cm at the projection's start, and a
// stretched rod from the world whose correction alone would carry the
// particle 4.8 cm past the rope's length: the rope, held as slack, is let
// into the solve once it is drawn taut (the tree path hands over to the
// general path's active set): both converge with the rope at its length
// and pulling. Held to the end, it stayed stretched 4.8 cm in a projection
// said to have converged (before 2026-11-29).
TEST(TreeProjection, ARopeACorrectionDrawsTautIsHeldToItsLength) {
  Scene s(2);
  const int p = s.body(BodyKind::particle, Vec3(0.95, 0, 0));
  const int rope = s.add(RopeDef{.max_length = 1.0}, -1, p);
  const int rod = s.add(DistanceDef{.anchor_a = Vec3(2.0, 0.8, 0), .length = 1.2}, -1, p);
  const std::vector<ConstraintState> c = expect_paths_agree(s, true, true);
  EXPECT_LT(c[static_cast<std::size_t>(rope)].lambda[0], 0.0);
  EXPECT_NE(c[static_cast<std::size_t>(rod)].lambda[0], 0.0);
  for (bool tree : {false, true}) {
    const Outcome o = project(s, tree);
    const Eigen::Vector2d at = o.q.segment<2>(s.m.bodies[static_cast<std::size_t>(p)].offset);
    EXPECT_NEAR(at.norm(), 1.0, 1e-10) << (tree ? "tree" : "general");
    EXPECT_NEAR((at - Eigen::Vector2d(2.0, 0.8)).norm(), 1.2, 1e-10) << (tree ? "tree" : "general");
  }
}

// A particle held by two rods from the world, nearly in line and each a
// little longer than its reach (p's height δ = 3e-4, the rods η = 3e-3
// too long): K is nearly singular along the rods' normal, and the first
// Gauss–Newton step moves p by about η / δ = 10, raising |C| about 1/δ-fold,
// past kMaxGrowth (1e3): the line search cuts it (twice: to 2.5). Two chains of
// particles hang from p (a branching tree of particle rods, the second
// chain's rods listed from its end so that its particles' steps complete
// out of the rods' order), each perturbed.
Scene line_search_cut(int dimension) {
  Scene s(dimension);
  constexpr double delta = 3e-4, eta = 3e-3;
  const int p = s.body(BodyKind::particle, Vec3(1.0, delta, 0.0), 0.0, 0.7);
  s.add(DistanceDef{.anchor_a = Vec3(0, 0, 0), .length = std::hypot(1.0, delta) + eta}, -1, p);
  s.add(DistanceDef{.anchor_a = Vec3(2, 0, 0), .length = std::hypot(1.0, delta) + eta}, -1, p);
  int prev = p;
  for (int i = 0; i < 5; ++i) {
    const int c = s.body(BodyKind::particle, Vec3(1.0 + 0.03 * (i + 1), delta - 0.1 * (i + 1), 0.01 * i), 0.0, 1.0 + 0.1 * i);
    s.add(DistanceDef{}, prev, c);
    prev = c;
  }
  std::vector<int> other;
  for (int i = 0; i < 5; ++i)
    other.push_back(s.body(BodyKind::particle, Vec3(1.0 - 0.04 * (i + 1), delta - 0.1 * (i + 1), -0.01 * i), 0.0, 0.5 + 0.2 * i));
  for (int i = 4; i >= 0; --i) s.add(DistanceDef{}, i == 0 ? p : other[static_cast<std::size_t>(i - 1)], other[static_cast<std::size_t>(i)]);
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1e-6, 1e-6);
  for (std::size_t b = 1; b < s.m.bodies.size(); ++b)
    for (int k = 0; k < dimension; ++k) s.d.q[s.m.bodies[b].offset + k] += u(rng);
  return s;
}

// The line search's cut: the tree path gives back the untaken part of the
// step's forces (its μ through J where the cut step ended) as the general
// path does: λ and the reactions agree to 1e-8. One iteration alone moves
// p by less than half the full step's 10 (the cut taken). K's condition
// (about 1/δ², 1e7) amplifies the paths' roundings in q to about 1e-8
// (in 3D p's landing point on the rods' circle moves further).
TEST(TreeProjection, AgreesWhereTheLineSearchCuts) {
  Scene s = line_search_cut(2);
  Scene once = s;
  once.m.settings.projection_max_iterations = 1;
  const Outcome first = project(once, true);
  const double moved = std::abs(first.q[1] - s.d.q[1]);
  EXPECT_GT(moved, 1.0);
  EXPECT_LT(moved, 5.0);
  expect_paths_agree(s, true, false, 1e-7);
}

// Two rods from fixed points, nearly in line, their particle pulled off
// the manifold sideways. As Newton brings it back the rods turn nearly
// parallel (1e-5 rad apart at rest), the solvers take one row out as
// dependent (its pivot under 1e-8 of its diagonal), no step corrects its
// C any more, and both paths stopped at the iteration cap. Each must
// notice the stall and keep the row (NewtonStall).
TEST(TreeProjection, KeepsNearlyDependentRowsWhereNewtonStalls) {
  Scene s(2);
  const double sag = 5e-6;  // at rest, the particle this far off the line between the anchors
  const double half = std::sqrt(1.0 - sag * sag);
  const int p = s.body(BodyKind::particle, Vec3(half, sag + 1e-4, 0.0));
  s.add(DistanceDef{.anchor_a = Vec3::Zero(), .length = 1.0}, -1, p);
  s.add(DistanceDef{.anchor_b = Vec3(2.0 * half, 0.0, 0.0), .length = 1.0}, p, -1);
  expect_paths_agree(s, true, false, 1e-9);
  for (bool tree : {true, false}) {
    const Outcome out = project(s, tree);
    EXPECT_EQ(out.rank_deficiency, 1) << (tree ? "tree" : "general");
    EXPECT_LT(out.projection.iterations, 20) << (tree ? "tree" : "general");
  }
}

// A 12 × 12 grid of particles on rods from its two top corners, 0.1 m
// apart; `slack`: cloth_slack's layout (the odd columns lower, the top row
// 0.99 m across with 1.1 m of rods, every rod at its length).
void add_grid(Scene& s, bool slack) {
  constexpr int kSide = 12;
  const double dx = slack ? 0.09 : 0.1, dz = slack ? std::sqrt(0.1 * 0.1 - 0.09 * 0.09) : 0.0;
  int grid[kSide][kSide];
  for (int i = 0; i < kSide; ++i)
    for (int j = 0; j < kSide; ++j) {
      const bool corner = j == 0 && (i == 0 || i == kSide - 1);
      const Vec3 at(dx * i, -0.1 * j - (i % 2 ? dz : 0.0), 0.0);
      grid[i][j] = s.body(BodyKind::particle, at, 0.0, 1.0, corner ? Motion::fixed : Motion::dynamic);
      if (i > 0) s.add(DistanceDef{}, grid[i - 1][j], grid[i][j]);
      if (j > 0) s.add(DistanceDef{}, grid[i][j - 1], grid[i][j]);
    }
}

// A grid of particle rods (loops: the general path) far off its manifold:
// K moves so far between Newton steps that PCG from the last factorization
// gives up at its first try. The projection then factors at once for the
// rest of its iterations, instead of paying a PCG iteration each time.
TEST(GeneralProjection, StopsTryingReuseOnceItFails) {
  Scene s(2);
  add_grid(s, false);
  s.perturb(7, 0.01);
  const Outcome out = project(s, false);
  EXPECT_FALSE(out.projection.capped);
  ASSERT_GE(out.projection.iterations, 10);
  // One try (at most direct.cpp's kMaxReuse + 1 = 11 PCG iterations; a try
  // at each iteration spent 42 here), and a factorization every iteration.
  EXPECT_LE(out.pcg_iterations, 11);
  EXPECT_GE(out.factorizations, out.projection.iterations);
}

// The first iteration's try at reuse, across a whole step's motion: a grid
// thrown far off its manifold again and again (each time from its start)
// fails it every time, so the projections after a failure skip it (they
// factor at once, no PCG), twice as many after each failure; one that
// passes it (the grid barely off where the last projection left it) starts
// the count over.
TEST(GeneralProjection, BacksOffTheFirstReuseTryWhileItFails) {
  Scene s(2);
  add_grid(s, true);
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  update_inverse_masses(m, d, ws);
  const double h = m.settings.dt;
  struct Seen {
    int pcg, skip, next;
  };
  // Projection k from the grid's start (or from where the last one ended)
  // moved by up to `size`: its PCG iterations and the backoff after it.
  auto project_from = [&](unsigned k, double size, bool from_start) {
    if (from_start) d.q = s.d.q;
    std::mt19937 rng(k);
    std::uniform_real_distribution<double> u(-size, size);
    for (const BodyRecord& b : m.bodies)
      if (b.motion == Motion::dynamic)
        for (int i = 0; i < b.dof; ++i) d.q[b.offset + i] += u(rng);
    begin_constraint_forces(m, d, ws);
    ws.motor_free.assign(static_cast<std::size_t>(s.first_row(static_cast<int>(m.constraints.size()))), 0);
    const int pcg = ws.direct.pcg_iterations;
    const ProjectionOutcome out = project_positions(m, d, ws, h, h);
    EXPECT_FALSE(out.capped) << "projection " << k;
    EXPECT_LT(out.error, m.settings.projection_tolerance) << "projection " << k;
    finish_constraint_forces(m, d, ws);
    return Seen{ws.direct.pcg_iterations - pcg, ws.first_reuse.skip, ws.first_reuse.next};
  };
  // The first has no factorization to try at first (its later iterations
  // may); then tries at 1, 3 and 6, each failing after one PCG iteration.
  std::vector<Seen> seen;
  for (unsigned k = 0; k < 11; ++k) seen.push_back(project_from(k, 0.03, true));
  const std::vector<Seen> expected{{seen[0].pcg, 0, 1}, {1, 1, 2}, {0, 0, 2}, {1, 2, 4}, {0, 1, 4}, {0, 0, 4},
                                   {1, 4, 8}, {0, 3, 8}, {0, 2, 8}, {0, 1, 8}, {0, 0, 8}};
  for (unsigned k = 0; k < 11; ++k) {
    EXPECT_EQ(seen[k].pcg, expected[k].pcg) << "projection " << k;
    EXPECT_EQ(seen[k].skip, expected[k].skip) << "projection " << k;
    EXPECT_EQ(seen[k].next, expected[k].next) << "projection " << k;
  }
  // Barely off, the try passes and starts the count over.
  const Seen barely = project_from(11, 1e-9, false);
  EXPECT_GE(barely.pcg, 1);
  EXPECT_EQ(barely.skip, 0);
  EXPECT_EQ(barely.next, 1);
  const Seen again = project_from(12, 0.03, true);
  EXPECT_EQ(again.skip, 1);
  EXPECT_EQ(again.next, 2);
}

// A row of rods pinned taut between two fixed particles, `links` long, its
// particles moved up to `size` off the line: the only configuration that
// holds it is the straight line, where J loses rank (a taut cloth's top row,
// alone). Gauss–Newton converges slowly there, now falling, now climbing.
Scene taut_chain(int links, unsigned seed, double size) {
  Scene s(2);
  int prev = s.body(BodyKind::particle, Vec3::Zero(), 0.0, 1.0, Motion::fixed);
  for (int i = 1; i <= links; ++i) {
    const int p = s.body(BodyKind::particle, Vec3(0.1 * i, 0.0, 0.0), 0.0, 1.0 + 0.1 * (i % 3), i == links ? Motion::fixed : Motion::dynamic);
    s.add(DistanceDef{}, prev, p);
    prev = p;
  }
  s.perturb(seed, size);
  return s;
}

// max |C| of the scene's rods at q.
double worst_rod_error(const Scene& s, const Eigen::VectorXd& q) {
  double worst = 0.0;
  for (const ConstraintRecord& c : s.m.constraints) {
    const auto& rod = std::get<DistanceDef>(c.def);
    const BodyView a = body_view(s.m, c.body_a, q, s.d.v), b = body_view(s.m, c.body_b, q, s.d.v);
    worst = std::max(worst, std::abs((b.x - a.x).norm() - rod.length));
  }
  return worst;
}

// A projection that stops at its cap ends on the best point it visited from
// a quarter of its iterations on: capped at 4g, 4g + 1, 4g + 2 and 4g + 3
// iterations (the same quarter, g), its error never grows with the cap, and
// the state it leaves is the point it reports. Where it stopped at its last
// step instead, the taut chain's error grew in 5 of 12 such pairs and the
// taut grid's in 3 of 9. On both paths: the chain is a tree, the grid has
// loops.
TEST(Projection, ACappedProjectionEndsOnTheBestPointItVisited) {
  struct Case {
    Scene scene;
    bool tree;
    int groups;
  };
  Case cases[] = {{taut_chain(30, 3, 0.01), true, 4}, {Scene(2), false, 3}};
  add_grid(cases[1].scene, false);
  cases[1].scene.perturb(7, 0.01);
  for (Case& c : cases) {
    int capped = 0;
    for (int g = 2; g < 2 + c.groups; ++g) {
      double last = std::numeric_limits<double>::infinity();
      for (int cap = 4 * g; cap < 4 * g + 4; ++cap) {
        c.scene.m.settings.projection_max_iterations = cap;
        const Outcome out = project(c.scene, c.tree);
        EXPECT_EQ(out.tree, c.tree);
        capped += out.projection.capped;
        EXPECT_LE(out.projection.error, last) << (c.tree ? "chain" : "grid") << ", capped at " << cap;
        EXPECT_NEAR(worst_rod_error(c.scene, out.q), out.projection.error, 1e-15) << "capped at " << cap;
        last = out.projection.error;
      }
    }
    EXPECT_EQ(capped, 4 * c.groups) << (c.tree ? "chain" : "grid");  // every projection above stops at its cap
  }
}

// Gone back to its best point, a capped projection hands on what it did to
// get there and no more: the velocities change by the positions' change
// over the step, and the constraint forces it reports push each particle by
// exactly that change of momentum (m Δv = dt Σ forces on it).
TEST(Projection, ACappedProjectionHandsOnItsBestPointsForces) {
  for (bool tree : {true, false}) {
    Scene s = tree ? taut_chain(30, 3, 0.01) : Scene(2);
    if (!tree) {
      add_grid(s, false);
      s.perturb(7, 0.01);
    }
    // Its tenth step climbs: capped there, it goes back to where the ninth left it.
    s.m.settings.projection_max_iterations = 9;
    const double ninth = project(s, tree).projection.error;
    s.m.settings.projection_max_iterations = 10;
    const Outcome out = project(s, tree);
    ASSERT_TRUE(out.projection.capped);
    ASSERT_EQ(out.projection.error, ninth) << (tree ? "tree" : "general");
    const double h = s.m.settings.dt;
    const Eigen::VectorXd dv = out.v - s.d.v, dq = out.q - s.d.q;
    EXPECT_LT((dv - dq / h).cwiseAbs().maxCoeff(), 1e-12 * dv.cwiseAbs().maxCoeff()) << (tree ? "tree" : "general");
    Eigen::VectorXd pushed = Eigen::VectorXd::Zero(dv.size());
    for (std::size_t i = 0; i < s.m.constraints.size(); ++i) {
      const ConstraintRecord& c = s.m.constraints[i];
      for (int e = 0; e < 2; ++e) {
        const BodyRecord& b = s.m.bodies[static_cast<std::size_t>(e == 0 ? c.body_a : c.body_b)];
        if (b.motion != Motion::dynamic) continue;
        const Reaction& r = e == 0 ? out.constraints[i].on_a : out.constraints[i].on_b;
        pushed.segment(b.offset, 2) += r.force.head(2) * h;
      }
    }
    for (const BodyRecord& b : s.m.bodies) {
      if (b.motion != Motion::dynamic) continue;
      EXPECT_LT((b.mass * dv.segment(b.offset, 2) - pushed.segment(b.offset, 2)).norm(), 1e-9 * b.mass * dv.cwiseAbs().maxCoeff())
          << (tree ? "tree" : "general");
    }
  }
}

// Bit-identical runs for a given thread count on the tree path: two runs of
// a falling chain of bars with a motor and a rope (or of 300 particles on
// rods and a rope: on two threads in the elimination's parts), and a saved
// world restored and continued, give the same state hashes.
TEST(TreeProjection, RunsAreBitIdenticalForEachThreadCount) {
  for (int threads : {1, 2})
    for (bool rods : {false, true}) {
      // Bars pinned in a chain with a motor and a rope, or particles on rods
      // ending in a rope (RATTLE's rows then are the projection's).
      auto build = [threads, rods] {
        WorldSettings s = with_preset(Preset::exact);
        s.threads = threads;
        World w = World::create(s).value();
        BodyId prev{};
        const int links = rods ? 300 : 40;
        for (int i = 0; i < links; ++i) {
          if (rods) {
            const BodyId p = w.add_body({.position = Vec3(0.1 * (i + 1), 0, 0), .mass = 0.1}).value();
            w.add_constraint(DistanceDef{.a = prev, .b = p}).value();
            prev = p;
            continue;
          }
          const BodyId link = w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.05 + 0.1 * i, 0, 0), .mass = 0.1,
                                          .inertia = 1e-4}).value();
          w.add_constraint(PinDef{.a = prev, .b = link, .anchor_a = Vec3(prev.is_null() ? 0.0 : 0.05, 0, 0),
                                  .anchor_b = Vec3(-0.05, 0, 0)}).value();
          if (i == 1) w.add_constraint(MotorDef{.a = prev, .b = link, .speed = 2.0, .max_force = 5.0}).value();
          prev = link;
        }
        const BodyId bob = w.add_body({.position = Vec3(0.1 * links, -0.5, 0), .mass = 0.5}).value();
        w.add_constraint(RopeDef{.a = prev, .b = bob, .anchor_a = Vec3(rods ? 0.0 : 0.05, 0, 0), .max_length = 0.6}).value();
        return w;
      };
      SCOPED_TRACE(std::string(rods ? "rods, " : "bars, ") + std::to_string(threads) + " threads");
      test::expect_bit_identical(build, 10, [](const StepDiagnostics& d) { EXPECT_FALSE(d.projection_capped); });
    }
}

// The velocity-level solves from the same state: the velocity solve
// (impulse_step), RATTLE (project_velocities) at the positions it reached,
// and the next velocity solve there, whose K is RATTLE's (the tree solves
// it without factoring). Where each solve was made: on the tree (its
// answer is the tree's, bit for bit) or not.
struct VelocityOutcome {
  Eigen::VectorXd q, v;
  std::vector<ConstraintState> constraints;
  bool tree[3] = {};   // each solve was the tree's
  int factorizations = 0, solves = 0;
  int last_factorizations = 0;  // the third solve's
  double residual = 0.0;
};

// `sweep` false: the tree path's loops for particle rods are off (the
// velocity solve's residual, W Jᵀ λ and the constraint forces then go
// through any node and J's blocks).
VelocityOutcome velocity_solves(const Scene& s, bool tree, bool sweep = true) {
  const WorldModel& m = s.m;
  WorldData d = s.d;
  Workspace ws;
  ws.tree.enabled = tree;
  update_inverse_masses(m, d, ws);
  if (!sweep && tree_applies(m, ws)) ws.tree.sweep = ws.tree.planar = ws.tree.rods_move = false;
  begin_constraint_forces(m, d, ws);
  remember_substep_lambda(ws);
  const double h = m.settings.dt;
  auto on_tree = [&ws] {
    const std::vector<double>& y = ws.tree.y;
    return ws.lambda.size() == static_cast<Eigen::Index>(y.size()) &&
           std::memcmp(ws.lambda.data(), y.data(), y.size() * sizeof(double)) == 0;
  };
  VelocityOutcome out;
  impulse_step(m, d, ws, 0.0, h);
  out.tree[0] = on_tree();
  project_velocities(m, d, ws, h, h);
  out.tree[1] = on_tree();
  const int before = ws.direct.factorizations;
  impulse_step(m, d, ws, h, h);
  out.tree[2] = on_tree();
  out.last_factorizations = ws.direct.factorizations - before;
  finish_constraint_forces(m, d, ws);
  out.q = d.q;
  out.v = d.v;
  out.constraints = d.constraints;
  out.factorizations = ws.direct.factorizations;
  out.solves = ws.direct.solves;
  out.residual = ws.residual;
  return out;
}

// Every DOF's velocity in [−1, 1].
void randomize_velocities(Scene& s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < s.d.v.size(); ++i) s.d.v[i] = u(rng);
}

// Both paths agree on v, q, λ, the reactions and the warm starts, and
// count the same solves (returned: the active set's count as one each);
// `on_tree`: which of the tree path's three solves were the tree's (the
// third, RATTLE's K, without a factorization).
int expect_velocity_paths_agree(const Scene& s, std::vector<bool> on_tree = {true, true, true}) {
  const VelocityOutcome general = velocity_solves(s, false);
  const VelocityOutcome tree = velocity_solves(s, true);
  for (int k = 0; k < 3; ++k) {
    EXPECT_FALSE(general.tree[k]) << "solve " << k;
    EXPECT_EQ(tree.tree[k], on_tree[static_cast<std::size_t>(k)]) << "solve " << k;
  }
  EXPECT_EQ(tree.solves, general.solves);
  if (on_tree[2]) {
    EXPECT_EQ(tree.last_factorizations, 0);
  }
  EXPECT_LT(tree.residual, 1e-9);
  const double vscale = general.v.cwiseAbs().maxCoeff();
  EXPECT_LT((tree.v - general.v).cwiseAbs().maxCoeff(), 1e-10 * vscale);
  EXPECT_LT((tree.q - general.q).cwiseAbs().maxCoeff(), 1e-10);
  double scale = 0.0, force_scale = 0.0, warm_scale = 0.0;
  for (const ConstraintState& c : general.constraints) {
    for (double l : c.lambda) scale = std::max(scale, std::abs(l));
    for (double l : c.warm) warm_scale = std::max(warm_scale, std::abs(l));
    for (const Reaction* r : {&c.on_a, &c.on_b}) force_scale = std::max({force_scale, r->force.cwiseAbs().maxCoeff(), std::abs(r->torque)});
  }
  EXPECT_GT(scale, 0.0);
  for (std::size_t i = 0; i < general.constraints.size(); ++i) {
    const ConstraintState& a = general.constraints[i];
    const ConstraintState& b = tree.constraints[i];
    for (std::size_t r = 0; r < 3; ++r) {
      EXPECT_LE(std::abs(a.lambda[r] - b.lambda[r]), 1e-8 * scale) << "constraint " << i;
      EXPECT_LE(std::abs(a.warm[r] - b.warm[r]), 1e-8 * warm_scale) << "constraint " << i;
    }
    EXPECT_LE((a.on_a.force - b.on_a.force).cwiseAbs().maxCoeff(), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE((a.on_b.force - b.on_b.force).cwiseAbs().maxCoeff(), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE(std::abs(a.on_a.torque - b.on_a.torque), 1e-8 * force_scale) << "constraint " << i;
    EXPECT_LE(std::abs(a.on_b.torque - b.on_b.torque), 1e-8 * force_scale) << "constraint " << i;
  }
  return general.solves;
}

TEST(TreeVelocitySolves, AgreeOnAChainOfParticles) {
  Scene s = chain_of_particles();
  randomize_velocities(s, 21);
  EXPECT_EQ(expect_velocity_paths_agree(s), 3);
}

// The velocity solves on a chain of particle rods through the Rods
// (planar, every end moving: the residual, W Jᵀ λ, the constraint forces
// and the second velocity solve's Ċ, moved from RATTLE's velocity, in
// their short loops) and through any node (J's blocks): the same bits in
// the residual, the velocities, λ and the reactions.
TEST(TreeVelocitySolves, MeasureTheResidualAlikeOnRods) {
  Scene s = chain_of_particles();
  randomize_velocities(s, 27);
  const VelocityOutcome rods = velocity_solves(s, true);
  const VelocityOutcome nodes = velocity_solves(s, true, false);
  EXPECT_TRUE(rods.tree[0]);
  EXPECT_GT(rods.residual, 0.0);
  EXPECT_EQ(rods.residual, nodes.residual);
  EXPECT_EQ(std::memcmp(rods.v.data(), nodes.v.data(), sizeof(double) * rods.v.size()), 0);
  ASSERT_EQ(rods.constraints.size(), nodes.constraints.size());
  for (std::size_t i = 0; i < rods.constraints.size(); ++i) {
    const ConstraintState& a = rods.constraints[i];
    const ConstraintState& b = nodes.constraints[i];
    EXPECT_EQ(a.lambda, b.lambda) << "constraint " << i;
    EXPECT_EQ(a.on_a.force, b.on_a.force) << "constraint " << i;
    EXPECT_EQ(a.on_b.force, b.on_b.force) << "constraint " << i;
  }
}

// RATTLE from the projected state `d`: on the tree path in `ws`, and on
// the general path in a fresh workspace from a copy of `d` (into
// `general`, returned with its workspace) for the comparison.
Workspace rattle_on_both_paths(const WorldModel& m, WorldData& d, Workspace& ws, WorldData& general) {
  const double h = m.settings.dt;
  general = d;
  Workspace wg;
  wg.tree.enabled = false;
  update_inverse_masses(m, general, wg);
  begin_constraint_forces(m, general, wg);
  remember_substep_lambda(wg);
  project_velocities(m, d, ws, h, h);
  project_velocities(m, general, wg, h, h);
  return wg;
}

// RATTLE after a projection on the tree, on a chain of rods and a rope
// between particles and a bar: its rows are the projection's last
// evaluation's (J̇q̇ left out), and they, and the velocities RATTLE leaves,
// are the general evaluation's (C, Ċ, J to 1e-12, v to 1e-10).
TEST(TreeVelocitySolves, RattleReadsTheProjectionsRows) {
  Scene s = chain_of_particles();
  const int bar = s.body(BodyKind::rigid, Vec3(4.5, -0.3, 0), 0.3, 2.0);
  s.add(RopeDef{.anchor_b = Vec3(-0.2, 0.1, 0)}, static_cast<int>(s.m.bodies.size()) - 2, bar);
  s.perturb(26, 0.01);
  randomize_velocities(s, 26);
  const WorldModel& m = s.m;
  const double h = m.settings.dt;
  WorldData d = s.d;
  Workspace ws;
  update_inverse_masses(m, d, ws);
  begin_constraint_forces(m, d, ws);
  remember_substep_lambda(ws);
  evaluate_constraints(m, d, ws, 0.0, d.q, d.v);  // J's layout, as a step's start leaves it
  EXPECT_GT(project_positions(m, d, ws, h, h).iterations, 0);
  WorldData general;
  const Workspace wg = rattle_on_both_paths(m, d, ws, general);
  EXPECT_EQ(ws.jdot_qdot.cwiseAbs().maxCoeff(), 0.0);  // the tree's rows (the general evaluation leaves J̇q̇ unwritten here)
  EXPECT_LT((ws.C - wg.C).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((ws.Cdot - wg.Cdot).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(ws.unilateral_row, wg.unilateral_row);
  EXPECT_EQ(ws.J.value_count(), wg.J.value_count());
  for (std::size_t i = 0; i < ws.J.value_count(); ++i) EXPECT_NEAR(ws.J.values()[i], wg.J.values()[i], 1e-12) << i;
  EXPECT_LT((d.v - general.v).cwiseAbs().maxCoeff(), 1e-10 * general.v.cwiseAbs().maxCoeff());
  EXPECT_LT((ws.lambda - wg.lambda).cwiseAbs().maxCoeff(), 1e-8 * wg.lambda.cwiseAbs().maxCoeff());
}

// RATTLE's rows go into J's blocks where the tree found them once for J's
// layout (TreeProjection::j_layouts), with diag(J W Jᵀ) beside them; a J
// laid out afresh is checked again,
// and a J whose layout is not the model's is evaluated afresh and then
// found: each RATTLE agrees with the general path's.
TEST(TreeVelocitySolves, RattleFindsTheBlocksOfEachLayout) {
  Scene s = chain_of_particles();
  const WorldModel& m = s.m;
  const double h = m.settings.dt;
  WorldData d = s.d;
  Workspace ws;
  update_inverse_masses(m, d, ws);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < d.q.size(); i += 2) d.q[i] += 0.004 * std::sin(3.0 * i + round);
    randomize_velocities(s, 40 + static_cast<unsigned>(round));
    d.v = s.d.v;
    if (round == 1) ws.J = BlockJacobian{};  // laid out afresh: a new stamp
    begin_constraint_forces(m, d, ws);
    remember_substep_lambda(ws);
    evaluate_constraints(m, d, ws, 0.0, d.q, d.v);
    const std::uint64_t layout = ws.J.layout();
    EXPECT_GT(project_positions(m, d, ws, h, h).iterations, 0);
    if (round == 2) ws.J.reset(ws.J.rows(), ws.J.cols());  // no groups: not the model's layout
    WorldData general;
    const Workspace wg = rattle_on_both_paths(m, d, ws, general);
    // Round 2: the generic evaluation lays J out again, and RATTLE's solve
    // on the tree finds its blocks there.
    const TreeProjection::JLayout* known = ws.tree.j_layouts;
    EXPECT_TRUE(known[0].stamp == ws.J.layout() || known[1].stamp == ws.J.layout()) << "round " << round;
    EXPECT_EQ(ws.J.layout() == layout, round != 2) << "round " << round;
    // diag(J W Jᵀ) as the generic evaluation leaves it, kept with J's values.
    EXPECT_EQ(ws.diag, ws.J.gram_diagonal(ws.w)) << "round " << round;
    EXPECT_EQ(ws.diag_of.values, ws.J.values_stamp()) << "round " << round;
    EXPECT_EQ(ws.J.value_count(), wg.J.value_count());
    for (std::size_t i = 0; i < ws.J.value_count(); ++i) EXPECT_NEAR(ws.J.values()[i], wg.J.values()[i], 1e-12) << i;
    EXPECT_LT((ws.Cdot - wg.Cdot).cwiseAbs().maxCoeff(), 1e-12) << "round " << round;
    EXPECT_LT((d.v - general.v).cwiseAbs().maxCoeff(), 1e-10 * general.v.cwiseAbs().maxCoeff()) << "round " << round;
    d.v = general.v;
  }
}

// The soft rod is softened in the velocity solves (compliance on K's
// diagonal: the general path's) and held in RATTLE (the tree's).
TEST(TreeVelocitySolves, AgreeOnABranchingTreeOfRigidBodies) {
  Scene s = branching_tree();
  randomize_velocities(s, 22);
  EXPECT_EQ(expect_velocity_paths_agree(s, {false, true, false}), 3);
}

TEST(TreeVelocitySolves, AgreeOn3DParticles) {
  Scene s = particles_3d();
  randomize_velocities(s, 23);
  EXPECT_EQ(expect_velocity_paths_agree(s), 3);
}

// The motor's bound infinite; the rope just taut and its particle flying
// off: the rope pulls in the velocity solve and RATTLE (its bound λ ≤ 0
// holds), then the bars' end swings down faster than the particle falls
// and the rope would push in the next solve: its bound binds and the
// general path's active set solves (one more solve, with the rope held).
TEST(TreeVelocitySolves, AgreeOnAChainWithAMotorAndARope) {
  Scene s = chain_with_motor_and_rope(false);
  randomize_velocities(s, 24);
  const BodyRecord& bob = s.m.bodies.back();
  s.d.q[bob.offset + 1] -= 1e-9;
  s.d.v[bob.offset + 1] = -5.0;
  EXPECT_EQ(expect_velocity_paths_agree(s, {true, true, false}), 4);
}

// The particle flying at the rope's anchor: in the velocity solve the rope
// would push (λ > 0), its bound binds and the general path's active set
// solves; RATTLE is the tree's.
TEST(TreeVelocitySolves, HandOverWhereARopesBoundBinds) {
  Scene s = chain_with_motor_and_rope(false);
  randomize_velocities(s, 25);
  const BodyRecord& bob = s.m.bodies.back();
  s.d.v[bob.offset + 1] = 5.0;
  EXPECT_GT(expect_velocity_paths_agree(s, {false, true, false}), 3);
}

// Two rods on each of three particles' pairs close a loop: the general path's.
TEST(TreeProjection, LeavesALoopToTheGeneralPath) {
  Scene s(2);
  const int a = s.body(BodyKind::particle, Vec3(0, 0, 0));
  const int b = s.body(BodyKind::particle, Vec3(1, 0, 0));
  const int c = s.body(BodyKind::particle, Vec3(0.5, 0.8, 0));
  s.add(DistanceDef{}, a, b);
  s.add(DistanceDef{}, b, c);
  s.add(DistanceDef{}, c, a);
  s.perturb(5, 0.01);
  const Outcome out = project(s, true);
  EXPECT_FALSE(out.tree);
  EXPECT_GT(out.projection.iterations, 0);
  EXPECT_LT(out.projection.error, s.m.settings.projection_tolerance);
}

// The elimination alone: random forests of bodies (2 or 3 DOF) with 1–3-row
// constraints between them and to the world, some rows skipped and one row
// a copy of another (dependent), against a dense solve of the rows kept;
// and the factorization reused (solve) against itself.
TEST(TreeElimination, SolvesLikeADenseFactorization) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0), positive(0.5, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    const int bodies = 2 + trial;
    std::vector<TreeElimination::Body> body;
    int cols = 0;
    for (int b = 0; b < bodies; ++b) {
      body.push_back({cols, b == bodies - 1 || trial % 2 ? 3 : 2 + static_cast<int>(rng() % 2)});
      cols += body.back().dof;
    }
    // Edges: each body to an earlier one (a tree), some bodies to the world;
    // two rows only between bodies of 3 DOF, so that only the twin below
    // makes J lose rank.
    std::vector<std::pair<int, int>> edges;
    for (int b = 1; b < bodies; ++b) edges.push_back({static_cast<int>(rng() % static_cast<unsigned>(b)), b});
    for (int b = 0; b < bodies - 1; b += 3) edges.push_back({-1, b});
    std::vector<TreeElimination::Node> nodes;
    std::vector<double> values;
    int rows = 0;
    for (const auto& [a, b] : edges) {
      TreeElimination::Node n;
      n.row = rows;
      const bool wide = a >= 0 && body[static_cast<std::size_t>(a)].dof == 3 && body[static_cast<std::size_t>(b)].dof == 3;
      n.rows = wide ? 1 + static_cast<int>(rng() % 2) : 1;
      rows += n.rows;
      const int ends[2] = {a, b};
      for (int e = 0; e < 2; ++e) {
        if (ends[e] < 0) continue;
        n.body[e] = ends[e];
        n.values[e] = static_cast<int>(values.size());
        for (int k = 0; k < n.rows * body[static_cast<std::size_t>(ends[e])].dof; ++k) values.push_back(u(rng));
      }
      nodes.push_back(n);
    }
    // A constraint to the world whose second row repeats its first.
    TreeElimination::Node twin;
    twin.row = rows;
    twin.rows = 2;
    rows += 2;
    twin.body[1] = bodies - 1;
    twin.values[1] = static_cast<int>(values.size());
    const int dof = body.back().dof;
    for (int k = 0; k < dof; ++k) values.push_back(u(rng));
    for (int k = 0; k < dof; ++k) values.push_back(values[static_cast<std::size_t>(twin.values[1] + k)]);
    nodes.push_back(twin);
    const int dependent_row = twin.row + 1;

    Eigen::VectorXd w(cols);
    for (int i = 0; i < cols; ++i) w[i] = positive(rng);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(rows, cols);
    for (const TreeElimination::Node& n : nodes)
      for (int e = 0; e < 2; ++e) {
        if (n.body[e] < 0) continue;
        const TreeElimination::Body& b = body[static_cast<std::size_t>(n.body[e])];
        for (int r = 0; r < n.rows; ++r)
          for (int k = 0; k < b.dof; ++k) J(n.row + r, b.offset + k) = values[static_cast<std::size_t>(n.values[e] + r * b.dof + k)];
      }
    const Eigen::MatrixXd K = J * w.asDiagonal() * J.transpose();
    std::vector<char> skip(static_cast<std::size_t>(rows), 0);
    skip[static_cast<std::size_t>(rng() % static_cast<unsigned>(rows))] = 1;
    skip[static_cast<std::size_t>(dependent_row)] = 0;
    skip[static_cast<std::size_t>(dependent_row - 1)] = 0;
    Eigen::VectorXd r(rows);
    std::vector<double> diag(static_cast<std::size_t>(rows)), y(static_cast<std::size_t>(rows));
    for (int i = 0; i < rows; ++i) {
      r[i] = skip[static_cast<std::size_t>(i)] ? 0.0 : u(rng);
      diag[static_cast<std::size_t>(i)] = K(i, i);
      y[static_cast<std::size_t>(i)] = r[i];
    }

    TreeElimination e;
    ASSERT_TRUE(e.analyse(body, nodes));
    std::vector<double> again = y;
    e.factor(values.data(), w.data(), skip.data(), diag.data(), y.data());
    e.back_substitute(y.data());
    EXPECT_EQ(e.dependent_rows(), 1) << "trial " << trial;
    // The factorization reused on the same right-hand side: bit for bit.
    e.solve(again.data());
    EXPECT_EQ(std::memcmp(again.data(), y.data(), y.size() * sizeof(double)), 0) << "trial " << trial;

    std::vector<int> kept;
    for (int i = 0; i < rows; ++i)
      if (!skip[static_cast<std::size_t>(i)] && i != dependent_row) kept.push_back(i);
    Eigen::MatrixXd Kk(kept.size(), kept.size());
    Eigen::VectorXd rk(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      rk[static_cast<Eigen::Index>(i)] = r[kept[i]];
      for (std::size_t j = 0; j < kept.size(); ++j) Kk(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = K(kept[i], kept[j]);
    }
    const Eigen::VectorXd x = Kk.ldlt().solve(rk);
    const double scale = x.cwiseAbs().maxCoeff();
    for (std::size_t i = 0; i < kept.size(); ++i)
      EXPECT_NEAR(y[static_cast<std::size_t>(kept[i])], x[static_cast<Eigen::Index>(i)], 1e-9 * scale) << "trial " << trial;
    for (int i = 0; i < rows; ++i)
      if (skip[static_cast<std::size_t>(i)] || i == dependent_row) {
        EXPECT_EQ(y[static_cast<std::size_t>(i)], 0.0);
      }

  }
}

// A loop of bodies, or a front past kMaxFront rows, is refused.
TEST(TreeElimination, RefusesLoopsAndHubs) {
  TreeElimination e;
  std::vector<TreeElimination::Body> bodies{{0, 2}, {2, 2}, {4, 2}};
  std::vector<TreeElimination::Node> loop{{0, 1, {0, 1}, {0, 2}}, {1, 1, {1, 2}, {4, 6}}, {2, 1, {2, 0}, {8, 10}}};
  EXPECT_FALSE(e.analyse(bodies, loop));
  std::vector<TreeElimination::Node> parallel{{0, 1, {0, 1}, {0, 2}}, {1, 1, {0, 1}, {4, 6}}};
  EXPECT_TRUE(e.analyse(bodies, parallel));  // two constraints on one pair: one edge
  std::vector<TreeElimination::Node> hub;
  for (int i = 0; i <= TreeElimination::kMaxFront; ++i) hub.push_back({i, 1, {0, -1}, {0, -1}});
  EXPECT_FALSE(e.analyse(bodies, hub));
}

}  // namespace
