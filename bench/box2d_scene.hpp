#pragma once
// A scene spec built in Box2D 2.4 (Debian's libbox2d-dev), the benchmarks' peer.
//
// Particles are dynamic bodies without fixtures whose mass data is {m, centre
// 0, I = 0}: Box2D then never rotates them. Rigid disks are dynamic bodies
// without fixtures given the disk's mass and inertia, so there is nothing to
// collide and the broad phase stays empty (contacts off, as in linkage, which
// has none). Rods are distance joints made rigid (stiffness 0, damping 0,
// minLength = maxLength = length); pins are revolute joints; the world is a
// static ground body at the origin. Sleeping is off, as in Box2D v3's
// joint_grid benchmark: a body at rest stays in the solve.

#include <memory>
#include <vector>

#include "linkage/scenes/measure.hpp"
#include "linkage/scenes/spec.hpp"

class b2World;
class b2Body;

namespace linkage::bench {

struct Box2DScene {
  std::unique_ptr<b2World> world;
  b2Body* ground = nullptr;
  std::vector<b2Body*> bodies;  // one per spec body, same order

  Box2DScene();
  Box2DScene(Box2DScene&&) noexcept;
  Box2DScene& operator=(Box2DScene&&) noexcept;
  ~Box2DScene();

  void step(float dt, int velocity_iterations, int position_iterations);
};

Box2DScene build_box2d(const scenes::SceneSpec& spec);
void read_state(const Box2DScene& scene, scenes::SceneState& state);

}  // namespace linkage::bench
