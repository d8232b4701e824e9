#pragma once
// The direct solver's factorization of K = J W Jᵀ + diag(reg): a multifrontal
// LDLᵀ over the constraint graph.
//
// Each supernode (a range of the elimination order, see elimination.hpp) owns
// a dense front: its own rows (the pivots) and the rows they couple to later
// in the order (the update rows). A front is assembled straight from J's
// blocks (the products B_i W B_jᵀ of two blocks on one body) and from its
// children's update matrices, then partially factored in place; what is
// left of its update rows waits in the front pool (FrontPool) until the
// parent adds it in. No sparse matrix is formed.
//
// A pivot that vanishes against its row's own diagonal (below 1e-8 of it)
// marks a dependent row: a redundant constraint. The row is taken out of the
// solve (λ = 0), which is exact for a consistent system, and listed, so that
// the caller can report it and analyse again without it.
//
// Rows held by the caller (SystemView::held) are identity rows: λ = r = 0.

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "constraint_graph.hpp"
#include "../parallel.hpp"
#include "elimination.hpp"
#include "solvers.hpp"

namespace linkage {

// The symbolic analysis: fronts, their rows, where each block product lands,
// and how each child's update matrix maps into its parent. Depends only on
// J's structure and the elimination; built once per topology.
struct FrontPlan {
  struct Super {
    int pivots = 0;   // rows eliminated in this front
    int size = 0;     // rows of the front (pivots first)
    int first = 0;    // the pivots' place in elimination order (the solver's permuted vector)
    int index = 0;    // offset into `index`: each front row's place in elimination order
    int panel = 0;    // offset of its L panel in the factor's values: L11 (pivots², column-major), then L21 (row-major)
    int parent = -1;  // supernode, or −1 for a root
    int children = 0, child_count = 0;  // offset into `children`
    int relative = 0;  // offset into `relative`: each update row's front row in the parent
    int products = 0, product_count = 0;  // offset into `products`
    int pairs = 0, pair_count = 0;        // offset into `pairs`
  };
  // One block product B_j W B_iᵀ added into a front: node i's block on a
  // body and node j's block on the same body, j not before i. Offsets are
  // into J's values and W; a node's kept rows are consecutive in its block
  // unless some were taken out (`rows_i`, `rows_j` are then the kept ones).
  struct Product {
    int values_i, values_j;  // first value of each block (row-major, `cols` wide)
    int w;                   // the body's first DOF
    int cols;                // the body's DOF
    int dest;                // front entry of (first row of j, first row of i)
    std::uint8_t size_i, size_j;
    std::uint8_t rows_i[3], rows_j[3];  // kept rows within each block
    bool diagonal;           // i == j: only the lower triangle
  };
  // The products of two one-row blocks on a body of 2 DOF (two rods on a
  // particle, most often), apart: four offsets, half a Product's bytes and
  // no row lookups. Their rows' first values, the body's first DOF, the entry.
  struct RowPair {
    int i, j, w, dest;
  };
  std::vector<Super> supers;  // in a post-order of the supernode tree: children before parents
  std::vector<int> index, children, relative;
  std::vector<int> perm;      // place in elimination order → J row
  std::vector<Product> products;
  std::vector<RowPair> pairs;
  std::size_t panel_values = 0;
  int max_size = 0;
  int total_rows = 0;         // J's rows
  double factor_flops = 0.0;  // multiply-adds of one numeric factorization
  double solve_flops = 0.0;   // multiply-adds of one solve
  double assembly_flops = 0.0;  // multiply-adds of the block products
  // L would hold more than the analysis' `max_fill` entries: the analysis
  // stopped there, and the plan is not to be factored.
  bool over_budget = false;
};

// The plan for this order; over_budget (and stopped short) once its column
// structures or L pass `max_fill` entries, or its factorization
// MultifrontalLdlt::kMaxFlops multiply-adds.
FrontPlan analyse_fronts(const BlockJacobian& J, const ConstraintGraph& g, const Elimination& e, std::size_t max_fill);

// Where each front is assembled and where its update matrix ((size −
// pivots)², column-major, lower triangle) waits for its parent, in the
// front pool. The fronts a thread factors in turn (all of them, a part's,
// the top's) are a stack in a region of their own: a front goes on top,
// and once it has read its children's updates (the stack's last entries,
// children before parents) its own takes their place. The pool is then a
// few fronts deep and stays in cache, where a place for every front (19
// MB on cloth_100_slack) had each factorization zero and read it from
// memory.
struct FrontPool {
  std::vector<std::size_t> front, update;  // per supernode
  std::size_t values = 0;
};

class MultifrontalLdlt {
 public:
  MultifrontalLdlt() = default;
  // A copy keeps the analysis and the factorization (what the next solves
  // use), not the scratch of the factorization itself.
  MultifrontalLdlt(const MultifrontalLdlt& o);
  MultifrontalLdlt& operator=(const MultifrontalLdlt& o);
  MultifrontalLdlt(MultifrontalLdlt&&) noexcept = default;
  MultifrontalLdlt& operator=(MultifrontalLdlt&&) noexcept = default;

  // Relative pivot below which a row is dependent.
  static constexpr double kDependentPivot = 1e-8;
  // The same for a Newton step that must still correct nearly dependent
  // rows (SolveRequest::strict): only rows dependent to round-off are out.
  static constexpr double kStrictPivot = 1e-12;
  static constexpr double dependent_pivot(bool strict) { return strict ? kStrictPivot : kDependentPivot; }

  // The most entries of L a factorization may take (doubles; its analysis
  // stores about as many ints), and the most multiply-adds: a system past
  // either (a pile of bodies in one place, whose contact rows all couple:
  // 150 disks, 9,600 rows, a dense factor of 300 G multiply-adds) is not
  // factored, and over_budget() says so. 2²⁴ entries (128 MB of L) and 2³⁰
  // multiply-adds (about a second), 38 and 100 times cloth_100_slack's.
  static constexpr std::size_t kMaxFill = std::size_t{1} << 24;
  static constexpr double kMaxFlops = 1073741824.0;
  void analyse(const BlockJacobian& J, const std::vector<char>& removed, std::size_t max_fill = kMaxFill);
  // Bodies were taken out and J's other columns moved (KeptOrder::columns_moved).
  void columns_moved(const std::vector<int>& new_column) { kept_order_.columns_moved(new_column); }
  bool over_budget() const { return plan_.over_budget; }
  bool analysed() const { return analysed_; }
  const ConstraintGraph& graph() const { return graph_; }
  const FrontPlan& plan() const { return plan_; }
  const Elimination& elimination() const { return elimination_; }
  const KeptOrder& kept_order() const { return kept_order_; }
  const FrontPool& serial_pool() const { return serial_pool_; }  // the fronts' places on one thread

  // Assembles K from J (whose structure must be the analysed one) and factors
  // it, independent subtrees of the elimination tree on parallel threads.
  // `dependent_pivot`: the relative pivot below which a row is out.
  void factor(const SystemView& k, const Parallel& parallel = {}, double dependent_pivot = kDependentPivot);
  // x ← K⁻¹ x over the rows in the plan; every other row comes out 0.
  void solve(Eigen::VectorXd& x, const Parallel& parallel = {});
  // Rows found dependent by the last factorization, ascending.
  const std::vector<int>& dependent_rows() const { return dependent_; }

 private:
  // How the fronts split between `parts` threads: each part a list of whole
  // subtrees (ranges of supernodes, children before parents), and the fronts
  // above them (`top`), factored after the parts.
  struct Split {
    int parts = 0;
    std::vector<std::vector<std::pair<int, int>>> ranges;  // per part: [first, last] supernodes
    std::vector<int> top;                                   // ascending
    std::vector<int> owner;                                 // per place in elimination order: its part, −1 for top
    FrontPool pool;
  };
  const Split& split_for(int parts);
  // `pivot_scale`: room for a front's pivots' diagonals before elimination
  // (the dependent-row test's scale).
  void factor_front(int s, const SystemView& k, double* pivot_scale, std::vector<int>& dependent);
  template <int N>  // the front's size, or 0: any
  void factor_front(int s, const SystemView& k, double* pivot_scale, std::vector<int>& dependent);
  const FrontPool* pool_ = nullptr;  // of the factorization under way

  ConstraintGraph graph_;
  Elimination elimination_;
  KeptOrder kept_order_;  // the fill-reducing order a change of topology keeps
  FrontPlan plan_;
  bool analysed_ = false;
  std::vector<double> panels_;   // L below each pivot, per front
  FrontPool serial_pool_;             // the fronts' places when one thread factors them all
  std::vector<double> fronts_;   // the front pool
  std::vector<double> inverse_pivot_;  // per place in elimination order: 1/d, 0 for a dependent or held row
  std::vector<double> pivot_scale_;  // the stepping thread's factor_front pivot scales
  std::vector<int> dependent_;
  bool any_held_ = false;  // of the factorization under way
  double dependent_pivot_ = kDependentPivot;  // of the factorization under way
  Split split_;
  std::vector<std::vector<double>> part_pivot_scale_;  // per part: its factor_front pivot scales
  std::vector<std::vector<int>> part_dependent_;   // per part: dependent rows found
  std::vector<Eigen::VectorXd> part_updates_;      // per part: its forward solve's updates to top rows
  Eigen::VectorXd permuted_;  // a solve's vector in elimination order
};

}  // namespace linkage
