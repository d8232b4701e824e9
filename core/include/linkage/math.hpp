#pragma once
// Vector types of the public API. Every point and vector is a Vec3: in a 2D
// world the z component must be 0 and angles are about z.

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace linkage {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

}  // namespace linkage
