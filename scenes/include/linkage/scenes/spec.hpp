#pragma once
// Engine-neutral scene specs: plain data that tests, benchmarks and (later)
// the viewer build the same way in linkage and in other engines (Box2D).
//
// Every scene is 2D. Positions are world points in metres; every body starts
// at rest with angle 0. Joints are given by world anchor points at the start,
// so each engine derives its own local anchors from the same numbers.

#include <string>
#include <vector>

#include "linkage/math.hpp"

namespace linkage::scenes {

enum class BodyType {
  particle,  // a point mass: (x, y); in Box2D a fixture-less body with I = 0
  rigid,     // (x, y, θ) with a moment of inertia
};

struct BodySpec {
  BodyType type = BodyType::particle;
  bool fixed = false;             // never moves (static in Box2D)
  Vec2 position = Vec2::Zero();   // m, centre of mass
  double mass = 1.0;              // kg (ignored for fixed bodies)
  double inertia = 0.0;           // kg·m² about the centre (rigid bodies)
  double radius = 0.0;            // m, a disk's radius for drawing; 0: no shape
};

enum class JointKind {
  rod,  // distance constraint: |p_b − p_a| = length
  pin,  // revolute joint: p_b = p_a at one world point
};

struct JointSpec {
  JointKind kind = JointKind::rod;
  int a = -1, b = -1;                // body indices; −1 is the world
  Vec2 anchor_a = Vec2::Zero();      // world point on a at the start (a pin's point)
  Vec2 anchor_b = Vec2::Zero();      // world point on b at the start (= anchor_a for a pin)
  double length = 0.0;               // rods: |anchor_b − anchor_a|
  double scale = 1.0;                // m, the length an error is relative to
};

struct SceneSpec {
  std::string name;
  Vec2 gravity = Vec2(0.0, -9.81);  // m/s²
  double dt = 1.0 / 60.0;           // s
  int steps = 600;                  // the scene's run
  std::vector<BodySpec> bodies;
  std::vector<JointSpec> joints;
  // Energy drift is reported relative to this: the dynamic mass × |g| × the
  // scene's height (the pendulum's rod, the chain's length, the cloth's and
  // the grid's height).
  double energy_scale = 1.0;  // J
  std::string energy_scale_text;  // how energy_scale was chosen, for reports
};

// A bob of mass 1 on a rod of length 1 from the origin, released at (1, 0).
SceneSpec pendulum();
// n particles of mass 1, 0.1 m apart along +x, the first held by a rod to the
// origin: a chain hanging from a fixed point, released horizontally.
SceneSpec chain(int n);
// n × n particles of mass 1, 0.1 m apart, the top row at y = 0 from x = 0,
// rows below it; each particle joined by a rod to its right and its lower
// neighbour; the two top corners pinned to the world where they are. The top
// row is then a straight, taut chain (a degenerate scene: see cloth_slack).
// 300 steps.
SceneSpec cloth(int n);
// The same cloth with a slack top row, so that it hangs well posed: n × n
// particles of mass 1, node (i, j) (column i, row j) at
// (0.09 i, −0.1 j − (i odd ? dz : 0)), dz = √(0.1² − 0.09²); the two top
// corners are fixed bodies; rods of 0.1 m between horizontal and vertical
// neighbours, every one at rest length. The top row spans 0.09 (n − 1) m
// with 0.1 (n − 1) m of rods. 300 steps.
SceneSpec cloth_slack(int n);
// Box2D v3's joint_grid benchmark: 100 × 100 disks (radius 0.4, density 1)
// at (k, −i), each pinned to its upper and its left neighbour at the midpoint
// (19,800 joints); the top-row disks k = 47…53 are fixed; gravity (0, −10);
// 500 steps. Held by the seven fixed disks the grid is rigid: nothing moves.
SceneSpec joint_grid(int n = 100);

// Counts for reports: dynamic DOF and constraint equations between bodies
// of which at least one can move (a joint between two fixed bodies holds
// nothing and no engine is given it).
struct SceneCounts {
  int bodies = 0, dynamic_bodies = 0, joints = 0, active_joints = 0;
  int dof = 0, equations = 0;
};
SceneCounts counts(const SceneSpec& spec);

// True when the joint ties two fixed bodies (or a fixed body to the world):
// builders skip it; it always measures zero error.
bool is_inert(const SceneSpec& spec, const JointSpec& joint);

}  // namespace linkage::scenes
