#pragma once
// A 2D model's rods and pins as the evaluation's short loop reads them: one
// compact record a constraint, with where its bodies are in q and where its
// blocks are in J, in place of the constraint's record, its bodies' records
// and J's groups and blocks. Most of a large model's evaluation waited on
// those reads (cloth_100_slack: about 0.9 ms an evaluation on one thread,
// five a step).

#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace linkage {

struct WorldModel;
struct Workspace;

struct PlanarRow {  // 72 bytes
  int row = -1;              // −1: neither a rod nor a pin (the generic evaluation's)
  int offset[2] = {-1, -1};  // each end's first DOF in q
  int values[2] = {-1, -1};  // its block in J; −1: the end does not move
  int body[2] = {-1, -1};    // each end's body (its rotation); −1: the world
  bool pin = false;          // a pin's two rows, else a rod's one
  bool particles = false;    // a rod between particles (and the world): written out here
  bool rigid[2] = {false, false};
  double anchor[2][2] = {};  // each end's anchor (x, y): on its body, or in the world
  double length = 0.0;       // a rod's
};

// Per constraint of the model, its PlanarRow, for the layout of the
// workspace's J. Made once per model version and layout; two kept, as the
// workspace's J and step_J take turns.
struct PlanarRows {
  std::uint64_t model = ~0ull, layout = 0;
  std::vector<PlanarRow> rows;
  bool any = false;
};

const PlanarRows& planar_rows(const WorldModel& m, Workspace& ws);

// The rows of rows[first, last) at (q, v), up to the first that is neither
// a rod nor a pin (row −1), whose index it returns; as evaluate_constraints
// writes a rod's or a pin's (write_rod_rows_2d, write_pin_rows_2d: the same
// operations in the same order, hence the same bits): C, Ċ, J̇q̇ (where
// `second_order`), J's blocks, the bounds (and c_tt) of an equality and,
// where `w`, the rows' diag(J W Jᵀ). One loop over a model's rods, not a
// call each.
int write_planar_rows(const PlanarRow* rows, int first, int last, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                      const double* w, bool second_order, Workspace& ws, double* values);

}  // namespace linkage
