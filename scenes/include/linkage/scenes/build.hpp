#pragma once
// Builds a scene spec in a linkage::World.

#include <vector>

#include "linkage/linkage.hpp"
#include "linkage/scenes/measure.hpp"
#include "linkage/scenes/spec.hpp"

namespace linkage::scenes {

struct SceneWorld {
  World world;
  std::vector<BodyId> bodies;  // one per spec body, same order
};

// A 2D world with the spec's gravity and dt (the rest of `settings` as
// given): particles for particle bodies, rigid bodies for rigid ones (a Disk
// shape where the spec gives a radius), fixed bodies for fixed ones; rods as
// DistanceDef and pins as PinDef, anchors in each body's frame, a = null for
// the world. Joints between two fixed bodies are skipped.
Result<SceneWorld> build_world(const SceneSpec& spec, WorldSettings settings = {});

// Reads the world's bodies into `state` (sized to the spec).
void read_state(const SceneWorld& scene, SceneState& state);

}  // namespace linkage::scenes
