#pragma once
// A hull against an endless plane (body.hpp's Plane): the plane is a face
// that never ends, so the contact is the hull's deepest core vertices, up to
// two, each pushed out along the plane's normal.

#include "manifold.hpp"

namespace linkage::collision {

// The contact of the plane through `origin` with unit `normal` (world frame,
// out of the solid side) with hull `b` at `pb`: the normal is the plane's
// (from the plane to b), the points the two deepest of b's core vertices whose
// separation is at most `margin`. Feature ids: the plane's face is the
// reference (how = 1) and b's vertex its index.
Manifold collide_plane(const Vec2& origin, const Vec2& normal, const Hull& b, const Pose& pb, double margin);

}  // namespace linkage::collision
