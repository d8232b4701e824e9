#pragma once
// Reading one body's state out of the world's q and q̇ vectors.

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "constraints/constraint.hpp"
#include "world_data.hpp"

namespace linkage {

// Body `index`'s view from where it is in q (its first DOF `offset`, its
// DOF, whether it turns) and `lin` linear DOF: body_view without reading
// its record. `rotation`: each body's (cos θ, sin θ) at q, worked out once
// for an evaluation of every constraint (a body's anchors are many);
// empty: here.
inline BodyView body_view_at(int index, int offset, int dof, bool rigid, int lin, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& v, const std::vector<std::pair<double, double>>& rotation = {}) {
  BodyView b;
  if (index < 0) return b;
  b.exists = true;
  b.rigid = rigid;
  b.dof = dof;
  for (int i = 0; i < lin; ++i) {
    b.x[i] = q[offset + i];
    b.v[i] = v[offset + i];
  }
  if (b.rigid) {
    b.omega = v[offset + 2];
    if (rotation.empty()) {
      b.turn_to(q[offset + 2]);
    } else {
      b.theta = q[offset + 2];
      std::tie(b.cos, b.sin) = rotation[static_cast<std::size_t>(index)];
    }
  }
  return b;
}

inline BodyView body_view(const WorldModel& m, int index, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          const std::vector<std::pair<double, double>>& rotation = {}) {
  if (index < 0) return BodyView{};
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(index)];
  return body_view_at(index, r.offset, r.dof, r.kind == BodyKind::rigid, m.settings.dimension, q, v, rotation);
}
inline BodyView body_view(const WorldModel& m, const WorldData& d, int index) { return body_view(m, index, d.q, d.v); }

}  // namespace linkage
