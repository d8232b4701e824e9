#pragma once
// Reading one body's state out of the world's q and q̇ vectors.

#include "constraints/constraint.hpp"
#include "world_data.hpp"

namespace linkage {

inline BodyView body_view(const WorldData& d, int index, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  BodyView b;
  if (index < 0) return b;
  const BodyRecord& r = d.bodies[static_cast<std::size_t>(index)];
  b.exists = true;
  b.rigid = r.kind == BodyKind::rigid;
  b.dof = r.dof;
  const int lin = d.settings.dimension;
  for (int i = 0; i < lin; ++i) {
    b.x[i] = q[r.offset + i];
    b.v[i] = v[r.offset + i];
  }
  if (b.rigid) {
    b.theta = q[r.offset + 2];
    b.omega = v[r.offset + 2];
  }
  return b;
}

inline BodyView body_view(const WorldData& d, int index) { return body_view(d, index, d.q, d.v); }

}  // namespace linkage
