#pragma once
// A model and its state built directly (no World): for the tests that look
// at a step's stages and caches in the workspace.

#include <random>
#include <vector>

#include "body_view.hpp"
#include "constraints/constraint.hpp"
#include "world_data.hpp"

namespace linkage {

// A model and its state built directly, so that both paths see the same.
struct Scene {
  WorldModel m;
  WorldData d;
  std::vector<int> free_motor_rows;  // motors at their bound in the step's velocity solve

  explicit Scene(int dimension) {
    m.settings = with_preset(Preset::exact);
    m.settings.dimension = dimension;
  }

  int body(BodyKind kind, const Vec3& x, double angle = 0.0, double mass = 1.0, Motion motion = Motion::dynamic) {
    BodyRecord b;
    b.kind = kind;
    b.motion = motion;
    b.offset = d.dof();
    b.dof = kind == BodyKind::rigid ? 3 : m.settings.dimension;
    b.mass = mass;
    b.inertia = kind == BodyKind::rigid ? 0.2 * mass : 0.0;
    const bool dynamic = motion == Motion::dynamic;
    b.inv_mass = dynamic ? 1.0 / mass : 0.0;
    b.inv_inertia = dynamic && kind == BodyKind::rigid ? 1.0 / b.inertia : 0.0;
    d.q.conservativeResize(b.offset + b.dof);
    d.v.conservativeResize(b.offset + b.dof);
    for (int i = 0; i < m.settings.dimension; ++i) d.q[b.offset + i] = x[i];
    if (kind == BodyKind::rigid) d.q[b.offset + 2] = angle;
    d.v.segment(b.offset, b.dof).setZero();
    m.bodies.push_back(b);
    return static_cast<int>(m.bodies.size()) - 1;
  }

  // Lengths and angles left "current" are measured here, before perturb().
  int add(const ConstraintDef& def, int a, int b, Softness softness = {}) {
    ConstraintRecord c;
    c.def = resolve_constraint(def, body_view(m, a, d.q, d.v), body_view(m, b, d.q, d.v), 0.0);
    c.softness = softness;
    c.rows = constraint_rows(def, m.settings.dimension);
    c.body_a = a;
    c.body_b = b;
    m.constraints.push_back(c);
    d.constraints.emplace_back();
    return static_cast<int>(m.constraints.size()) - 1;
  }

  int first_row(int constraint) const {
    int row = 0;
    for (int i = 0; i < constraint; ++i) row += m.constraints[static_cast<std::size_t>(i)].rows;
    return row;
  }

  // Every moving DOF off by up to `size`: the rows no longer hold.
  void perturb(unsigned seed, double size) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-size, size);
    for (const BodyRecord& b : m.bodies)
      if (b.motion == Motion::dynamic)
        for (int i = 0; i < b.dof; ++i) d.q[b.offset + i] += u(rng);
  }
};

}  // namespace linkage
