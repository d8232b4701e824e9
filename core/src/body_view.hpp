#pragma once
// Reading one body's state out of the world's q and q̇ vectors.

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "constraints/constraint.hpp"
#include "world_data.hpp"

namespace linkage {

// `rotation`: each body's (cos θ, sin θ) at q, worked out once for an
// evaluation of every constraint (a body's anchors are many); empty: here.
inline BodyView body_view(const WorldModel& m, int index, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const std::vector<std::pair<double, double>>& rotation = {}) {
  BodyView b;
  if (index < 0) return b;
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(index)];
  b.exists = true;
  b.rigid = r.kind == BodyKind::rigid;
  b.dof = r.dof;
  const int lin = m.settings.dimension;
  for (int i = 0; i < lin; ++i) {
    b.x[i] = q[r.offset + i];
    b.v[i] = v[r.offset + i];
  }
  if (b.rigid) {
    b.omega = v[r.offset + 2];
    if (rotation.empty()) {
      b.turn_to(q[r.offset + 2]);
    } else {
      b.theta = q[r.offset + 2];
      std::tie(b.cos, b.sin) = rotation[static_cast<std::size_t>(index)];
    }
  }
  return b;
}

inline BodyView body_view(const WorldModel& m, const WorldData& d, int index) { return body_view(m, index, d.q, d.v); }

}  // namespace linkage
