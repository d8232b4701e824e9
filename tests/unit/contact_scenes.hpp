#pragma once
// Scenes both contact families are tested on (contact_test.cpp,
// exact_contact_test.cpp): the ground, a box resting on a ramp and a pinned
// three-link arm held above the ground.
#include <cmath>
#include <vector>

#include "linkage/linkage.hpp"

namespace linkage::test {

// A fixed slab whose top surface passes through (0, 0), tilted by `angle`.
inline BodyId ground(World& w, double angle = 0.0, double friction = 0.6, double restitution = 0.0) {
  const Vec3 down(std::sin(angle) * 0.5, -std::cos(angle) * 0.5, 0.0);
  return w
      .add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = down, .angle = angle,
                 .shape = Box{20.0, 0.5}, .material = {friction, restitution}})
      .value();
}

// A 1 kg box 0.4 × 0.2 m resting on the ramp ground(w, angle, ...) makes at
// the origin, tilted with it; `rest` is where it starts.
struct RampBox {
  BodyId box;
  Vec3 rest;
};
inline RampBox box_on_ramp(World& w, double angle, double friction) {
  const Vec3 up(-std::sin(angle) * 0.1, std::cos(angle) * 0.1, 0.0);
  const BodyId box = w.add_body({.kind = BodyKind::rigid, .position = up, .angle = angle, .mass = 1.0,
                                 .shape = Box{0.2, 0.1}, .material = {friction, 0.0}})
                         .value();
  return {box, up};
}

// Three 0.64 m links pinned end to end, held tilted above the ground.
inline std::vector<BodyId> pinned_arm(World& w) {
  std::vector<BodyId> links;
  for (int i = 0; i < 3; ++i)
    links.push_back(w.add_body({.kind = BodyKind::rigid, .position = Vec3(0.5 * i, 1.0 + 0.3 * i, 0),
                                .angle = std::atan2(0.3, 0.5), .shape = Box{0.32, 0.05}})
                        .value());
  const Vec3 half(std::hypot(0.5, 0.3) / 2, 0, 0);
  for (int i = 0; i + 1 < 3; ++i)
    w.add_constraint(PinDef{.a = links[i], .b = links[i + 1], .anchor_a = half, .anchor_b = -half}).value();
  return links;
}

}  // namespace linkage::test
