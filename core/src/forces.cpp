#include "forces.hpp"

#include "body_view.hpp"
#include "constraints/parts.hpp"

namespace linkage {
namespace {

// Below this many bodies their forces are not worth waking threads for.
constexpr int kParallelBodies = 2000;

// Adds a force F acting at anchor p of a body into its generalized force:
// Q += J_pᵀ F (for a rigid body the θ entry is the torque s⊥·F).
void add_at_anchor(const WorldModel& m, int body, const Anchor& p, const Vec3& f, Eigen::VectorXd& Qa) {
  if (body < 0) return;
  const BodyRecord& r = m.bodies[static_cast<std::size_t>(body)];
  if (r.motion != Motion::dynamic) return;
  Qa.segment(r.offset, r.dof) += p.jacobian_row(f).head(r.dof).transpose();
}

struct SpringState {
  Separation s;
  double length;
  Vec3 n;
};

SpringState spring_state(const WorldModel& m, const ForceRecord& f, const SpringDef& sp, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& v) {
  SpringState st{separation(body_view(m, f.body_a, q, v), sp.anchor_a, body_view(m, f.body_b, q, v), sp.anchor_b),
                 0.0, Vec3::Zero()};
  st.length = st.s.d.norm();
  if (st.length > 1e-12) st.n = st.s.d / st.length;
  return st;
}

}  // namespace

void accumulate_forces(const WorldModel& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& Qa,
                       const Parallel& parallel) {
  const int lin = m.settings.dimension;
  const int n = static_cast<int>(m.bodies.size());
  parallel.for_parts(n < kParallelBodies ? 1 : n, [&](int p, int parts) {
    const auto [first, last] = split(n, parts, p);
    for (int b = first; b < last; ++b) {
      const BodyRecord& r = m.bodies[static_cast<std::size_t>(b)];
      if (r.motion != Motion::dynamic) continue;
      for (int i = 0; i < lin; ++i)
        Qa[r.offset + i] += r.mass * (m.settings.gravity[i] - r.linear_damping * v[r.offset + i]);
      if (r.kind == BodyKind::rigid) Qa[r.offset + 2] -= r.angular_damping * r.inertia * v[r.offset + 2];
    }
  });
  for (const ForceRecord& f : m.forces) {
    if (const auto* sp = std::get_if<SpringDef>(&f.def)) {
      // F_b = −(k (|d| − L) + c ḋ·n) n, and F_a = −F_b.
      const SpringState st = spring_state(m, f, *sp, q, v);
      const Vec3 fb = -(sp->stiffness * (st.length - sp->rest_length) + sp->damping * st.s.ddot.dot(st.n)) * st.n;
      add_at_anchor(m, f.body_a, st.s.a, -fb, Qa);
      add_at_anchor(m, f.body_b, st.s.b, fb, Qa);
    } else {
      const ForceDef& uf = std::get<ForceDef>(f.def);
      const BodyView b = body_view(m, f.body_a, q, v);
      add_at_anchor(m, f.body_a, anchor(b, uf.point), uf.force, Qa);
      const BodyRecord& r = m.bodies[static_cast<std::size_t>(f.body_a)];
      if (b.rigid && r.motion == Motion::dynamic) Qa[r.offset + 2] += uf.torque;
    }
  }
}

double spring_energy(const WorldModel& m, const WorldData& d) {
  double e = 0.0;
  for (const ForceRecord& f : m.forces) {
    if (const auto* sp = std::get_if<SpringDef>(&f.def)) {
      const double stretch = spring_state(m, f, *sp, d.q, d.v).length - sp->rest_length;
      e += 0.5 * sp->stiffness * stretch * stretch;
    }
  }
  return e;
}

}  // namespace linkage
