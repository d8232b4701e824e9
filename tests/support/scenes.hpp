#pragma once
// Small scenes the tests share.

#include "linkage/linkage.hpp"

namespace linkage::test {

inline World make_world(WorldSettings s = {}) { return World::create(s).value(); }

// A point mass m on a massless rod of length L from the origin, at `start`.
struct Pendulum {
  World world;
  BodyId bob;
  ConstraintId rod;
};

inline Pendulum pendulum(WorldSettings s, Vec3 start = Vec3(1, 0, 0), double mass = 1.0) {
  Pendulum p{make_world(s), {}, {}};
  p.bob = p.world.add_body({.position = start, .mass = mass}).value();
  p.rod = p.world.add_constraint(DistanceDef{.b = p.bob}).value();
  return p;
}

}  // namespace linkage::test
