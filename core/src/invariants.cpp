#include "invariants.hpp"

#include <cassert>

namespace linkage {

void assert_invariants([[maybe_unused]] const WorldModel& m, [[maybe_unused]] const WorldData& d) {
#ifndef NDEBUG
  const int bodies = static_cast<int>(m.bodies.size());
  int offset = 0;
  for (int i = 0; i < bodies; ++i) {
    const BodyRecord& b = m.bodies[static_cast<std::size_t>(i)];
    assert(b.offset == offset && "bodies' DOF ranges tile q in order");
    assert((b.dof == 2 || b.dof == 3) && "a body has 2 or 3 DOF");
    assert(m.body_ids.find(b.id) == i && "a body's id maps to its dense index");
    offset += b.dof;
  }
  assert(offset == d.q.size() && offset == d.v.size() && "q and q̇ hold every body's DOF and no more");
  assert(d.constraints.size() == m.constraints.size() && "every constraint has its data, in the model's order");
  assert(d.steps_left.size() == m.forces.size() && "every force has its data, in the model's order");
  auto body_in_range = [&](int body) { return body >= -1 && body < bodies; };
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    const ConstraintRecord& c = m.constraints[i];
    assert(m.constraint_ids.find(c.id) == static_cast<int>(i) && "a constraint's id maps to its dense index");
    assert(c.rows >= 1 && c.rows <= 3 && "a constraint has 1 to 3 rows");
    assert(body_in_range(c.body_a) && body_in_range(c.body_b) && "a constraint names bodies that exist");
  }
  for (std::size_t i = 0; i < m.forces.size(); ++i) {
    const ForceRecord& f = m.forces[i];
    assert(m.force_ids.find(f.id) == static_cast<int>(i) && "a force's id maps to its dense index");
    assert(body_in_range(f.body_a) && body_in_range(f.body_b) && "a force names bodies that exist");
  }
#endif
}

}  // namespace linkage
