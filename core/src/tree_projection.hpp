#pragma once
// Position projection (Projection::nearest) on acyclic constraint graphs:
// the general path's Gauss–Newton iterations, each one evaluation of the
// constraints straight into per-constraint blocks, K = J W Jᵀ factored on
// the body tree (solvers/tree_elimination.hpp) and W Jᵀ μ applied, with no
// block Jacobian and no generic factorization plan in between. Same
// iterations, line search, held rows, λ and reactions as the general path
// (projection.cpp). A bounded row (a rope, a motor's force) whose bound
// binds, or a slack rope a correction draws taut, hands the projection to
// the general path's active set, from its start, as the tree path found it.

#include <cstdint>
#include <utility>
#include <vector>

#include "linkage/constraints.hpp"
#include "solvers/tree_elimination.hpp"

namespace linkage {

struct WorldModel;
struct WorldData;
struct Workspace;
struct ProjectionOutcome;

// What the tree path keeps in the workspace: its analysis of one model
// version (position projection's and the velocity-level solves' alike,
// tree_solve.hpp), and its scratch. The one number a later solve reuses is
// the velocity-level factorization, which a solve of the same K may reuse
// and give bit for bit what factoring again gives: a restored world
// continues bit-identically with or without it.
struct TreeProjection {
  bool enabled = true;  // false: every solve takes the general path (the tests compare the two)

  struct End {
    int body = -1;          // dense body index; −1: the world
    int offset = 0, dof = 0;  // its first DOF in q and its block's width (0: the world)
    bool rigid = false;
    bool moves = false;     // dynamic: in K; otherwise its reaction is reported
    int block = -1;         // a moving end's block among the step's (Workspace::block_forces)
    int values = -1;        // its block in J (row-major, rows × dof)
  };
  struct Node {
    int constraint = 0, row = 0, rows = 0;
    End end[2];
    // A rod or a rope (their C and J written out, see tree_projection.cpp):
    // its anchors and length.
    bool rod = false, rope = false;
    Vec3 anchor[2] = {Vec3::Zero(), Vec3::Zero()};
    double length = 0.0;
  };
  // A node of a model of particle rods (particle_rods) as the short loops
  // read it (evaluate_particle_rods, the forces), a third of a Node's bytes.
  struct Rod {
    int row = 0, dof = 2;        // its row; its particles' DOF
    int offset[2] = {-1, -1};  // each end's first DOF in q; −1: the world
    int values[2] = {-1, -1};  // its block in J
    int block[2] = {-1, -1};   // a moving end's block among the step's forces
    Vec3 anchor[2] = {Vec3::Zero(), Vec3::Zero()};
    double length = 0.0;
    // When sweep: the ends whose particle's step starts with this Rod, and
    // those whose step is complete after it (tree_projection.cpp,
    // schedule_sweep).
    bool first[2] = {false, false};
    bool last[2] = {false, false};
    bool rope = false;
  };
  std::uint64_t model = ~0ull;  // the model version analysed
  bool applies = false;         // every component is a tree of small fronts
  bool bounded = false;         // some row of the projection under way has a bound on λ
  bool any_slack = false;       // some rope of the projection under way is held slack (`slack`)
  bool motors = false;          // some motor of the projection under way is locked (in its solves)
  bool rigid = false;           // some body turns (its cos, sin are worked out once an evaluation)
  bool rods_only = false;       // every constraint of the model is a rod or a rope node
  bool particle_rods = false;   // every node is a rod or a rope between particles and the world
  bool rods_move = false;       // ... and every particle end moves (no reaction to report)
  bool planar = false;          // particle_rods in 2D, every anchor at z = 0: Rods evaluated two at a time
  bool sweep = false;           // planar and rods_move: the forces and the step in one sweep (tree_projection.cpp)
  std::vector<Node> nodes;      // constraints with a moving body, not soft, in model order
  std::vector<Rod> rods;        // the nodes as Rods, when particle_rods
  std::vector<int> idle;        // when sweep: the DOF no Rod moves
  TreeElimination elimination;
  std::vector<int> moving;      // per body of the model: its index among the elimination's (−1: it does not move)
  // When sweep and the elimination splits between threads: the sweep in
  // its parts (tree_projection.cpp, iterate_in_parts). Per part (the top
  // last) its Rods (those on its particles; the top's: those on its
  // particles alone) and, but for the top, the same as its sweep takes
  // them (no end on the top's particles); the top's particles, each with
  // its Rods' ends in the Rods' order.
  struct RodEnd {
    int row = 0, values = 0, block = 0;  // its Rod's row, its block in J and among the step's forces
    bool lambda = false;                 // it adds its Rod's λ
  };
  struct Particle {
    int offset = 0;
    std::vector<RodEnd> ends;
  };
  struct Part {
    std::vector<Rod> rods, sweep;
    std::vector<Particle> particles;
  };
  std::vector<Part> parts;
  int parts_for = 0;  // the elimination's part count `parts` is for (0: none; negative: they cannot be)

  // Per iteration: J's blocks, and per row (the model's row order) C, μ
  // (y; also the velocity-level solves' right-hand side and λ) and the
  // right-hand side −C of the next solve (rhs); read at the projection's
  // start: the bounds, diag(K), held rows (and rows of no node), velocity
  // rows.
  std::vector<double> J, C, lo, hi, diag, y, rhs;
  std::vector<char> held, velocity;
  std::vector<char> slack;  // per row: a rope held because it began the projection slack
  std::vector<double> dq, start, moved;  // the last step, where a cut one began (made for the cut), their sum
  std::vector<std::pair<double, double>> rotation;
  std::vector<char> in_tree;  // per row: a node's (the other rows must be held for the tree to solve)
  std::vector<double> rows_q;  // q of the last projection's last evaluation (its C and J); empty: none
  // Layouts of the workspace's J (by stamp; 0: none) found to be the
  // model's, one group a node and a block per moving end, and per node
  // each end's block values in them (−1: the end does not move): RATTLE's
  // rows go there and the velocity-level solves read them from there. Two,
  // as the workspace's J and step_J take turns; `older` is replaced next.
  struct JLayout {
    std::uint64_t stamp = 0;
    std::vector<int> values;
  };
  JLayout j_layouts[2];
  int older = 0;

  // The elimination holds the factorization of a velocity-level solve (not
  // a projection's), made with the workspace's J of this values stamp
  // (also in tp.J's blocks on moving bodies), the inverse masses of this
  // model version and these held rows. A stamp is new with every write of
  // J's values and a copy keeps it: equal stamps mean the same values (a
  // J rewritten with the same values factors again, to the same bits).
  bool factored = false;
  std::uint64_t factored_values = 0, factored_w = ~0ull;
  std::vector<char> factored_held;
  // The values stamp of the workspace's J whose blocks tp.J holds (0:
  // none; the projection's evaluations write their own): RATTLE's rows go
  // from tp.J into J, and its solve need not copy them back.
  std::uint64_t blocks_of = 0;
};

// Whether the tree path may solve the world's systems now: it is on, the
// direct solver unregularized, no contact rows in the substep, and every
// component of the constraint graph (less soft rows) a tree of small
// fronts. Analyses the model once per version.
bool tree_applies(const WorldModel& m, Workspace& ws);

// The general path's line search (projection.cpp): halvings, and the growth
// of |C| that counts as diverging.
struct LineSearch {
  int max_cuts = 0;
  double max_growth = 0.0;
};

// Projects d.q as project_positions does, when the tree path applies: the
// nearest-point projection with the direct solver, no contact in the step,
// and every component of the constraint graph (less soft rows) a tree.
// False, with nothing changed, when it does not.
bool project_positions_on_tree(const WorldModel& m, WorldData& d, Workspace& ws, double t, double h,
                               const LineSearch& search, ProjectionOutcome& out);

}  // namespace linkage
