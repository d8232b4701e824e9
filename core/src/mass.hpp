#pragma once
// Validation of body defs and their mass properties.

#include "linkage/body.hpp"
#include "linkage/result.hpp"

namespace linkage {

struct MassProperties {
  double mass = 0.0;     // kg
  double inertia = 0.0;  // kg·m² about the centre of mass
  Shape shape;           // polygons re-centred on their centroid
};

// Checks a body def for a world of this dimension and works out its mass and
// moment of inertia (given, or from shape × density).
// Checks a body's state for a body of this kind and motion: finite, z = 0
// in 2D, no angle on a particle, no velocity on a fixed body.
Status validate_body_state(const BodyState& state, BodyKind kind, Motion motion, int dimension);

// Checks the def (state included) and works out its mass and inertia.
Result<MassProperties> body_mass_properties(const BodyDef& def, int dimension);

}  // namespace linkage
