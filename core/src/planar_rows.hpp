#pragma once
// A 2D model's rods between particles (and the world) as the evaluation's
// short loop reads them: one compact record a rod, with where its particles
// are in q and where its blocks are in J, in place of the constraint's
// record, its bodies' records and J's groups and blocks. A cloth's
// evaluation is most of a projection iteration's work outside the
// factorization, and it waited on those reads (cloth_100_slack: about
// 0.9 ms an evaluation on one thread, five a step).

#include <cstdint>
#include <vector>

namespace linkage {

struct WorldModel;
struct Workspace;

struct PlanarRod {
  int row = -1;                // −1: not such a rod (the generic evaluation's)
  int offset[2] = {-1, -1};    // each end's first DOF in q; −1: the world
  int values[2] = {-1, -1};    // its block in J; −1: the end does not move
  double anchor[2][2] = {};    // each end's anchor (x, y): on its particle, or in the world
  double length = 0.0;
};

// Per constraint of the model, its PlanarRod (row −1 for every other
// constraint), for the layout of the workspace's J. Made once per model
// version and layout; two kept, as the workspace's J and step_J take turns.
struct PlanarRods {
  std::uint64_t model = ~0ull, layout = 0;
  std::vector<PlanarRod> rods;
  bool any = false;
};

const PlanarRods& planar_rods(const WorldModel& m, Workspace& ws);

// Rows out of one PlanarRod at (q, v), as write_rod_rows_2d and the rest of
// evaluate_constraints write them (the same operations in the same order,
// hence the same bits): C, Ċ, J̇q̇ (where `second_order`), J's blocks, the
// bounds (and c_tt) of an equality and, where `w`, its diag(J W Jᵀ).
void write_planar_rod(const PlanarRod& r, const double* q, const double* v, const double* w, bool second_order,
                      Workspace& ws, double* values);

}  // namespace linkage
