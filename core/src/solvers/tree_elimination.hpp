#pragma once
// K = J W Jᵀ factored on an acyclic body graph (Baraff 1996, "Linear-Time
// Dynamics using Lagrange Multipliers", in the rows' own space): each
// component's bodies are rooted at its centre and taken leaves to root
// (by height, so that independent branches interleave); at a body, its
// front holds the rows of every constraint on it (the rows that share it,
// all coupled in K), the constraints to its children and to the world are
// eliminated there, and what is left on the constraints to its parent (a
// small dense block) goes to the parent's front. No fill beyond the fronts,
// no generic sparse plan: O(n) with dense kernels on blocks of a few rows.
// A chain (bodies of two one-row constraints each, ropes and rods end to
// end) is one kernel whose links do not wait on a division each
// (factor_chain, in the .cpp).
//
// Everything numeric comes from the caller's arrays: J's blocks (row-major,
// rows × the body's DOF), W per DOF, and per row (the caller's numbering):
// the rows to leave out (λ = 0), K's diagonal (the dependent-row test) and
// the right-hand side. A pivot below kDependentPivot of its row's diagonal
// marks a dependent row: out of the solve (λ = 0), as the multifrontal
// factorization does.

#include <vector>

#include "multifrontal.hpp"

namespace linkage {

class TreeElimination {
 public:
  // Beyond this many rows a front is a dense clique (a hub body): the
  // general factorization's blocked kernels serve it better.
  static constexpr int kMaxFront = 24;
  // plan_parts: the least work (a chain's link is 6) worth a second
  // thread, the parts' imbalance allowed, the top's largest share.
  static constexpr double kParallelWork = 1500.0, kBalance = 1.15, kTopShare = 0.1;

  struct Body {
    int offset = 0, dof = 0;  // its W (and q) range
  };
  struct Node {  // one constraint: its rows and its blocks on movable bodies
    int row = 0, rows = 0;      // in the caller's row numbering
    int body[2] = {-1, -1};     // index into the bodies (−1: none at this end)
    int values[2] = {-1, -1};   // offset of each block's values
  };

  // The fronts for these bodies and constraints. False (and nothing to
  // factor) when the bodies joined by constraints form a loop, or a front
  // would hold more than kMaxFront rows.
  bool analyse(const std::vector<Body>& bodies, const std::vector<Node>& nodes);

  // Factors K over the rows not `skip`ped, and forward-substitutes y
  // (per row, the right-hand side; skipped rows must read 0). A pivot
  // below `dependent_pivot` of its row's diagonal is a dependent row.
  void factor(const double* J, const double* w, const char* skip, const double* diag, double* y,
              double dependent_pivot = MultifrontalLdlt::kDependentPivot);
  // After factor: y ← K⁻¹ r (0 on skipped and dependent rows).
  void back_substitute(double* y) const;
  // y ← K⁻¹ y with the last factorization (the same rows skipped): the
  // forward substitution factor fuses, then back_substitute; bit for bit
  // what factor and back_substitute give on the same K.
  void solve(double* y) const;
  // Splits the fronts between as many of `threads` as balance (parts()):
  // subtrees whose work balances within kBalance, dealt to the parts, under
  // a top of their ancestors (at most kTopShare of the work) factored
  // after them and back-substituted before. False (parts() 0) when the
  // tree has less work than kParallelWork or no split in two balances.
  // Kept until the next analyse or another count.
  bool plan_parts(int threads);
  int parts() const { return static_cast<int>(part_items_.size()); }
  // A body's part (−1: the top's, or no front).
  int body_part(int body) const { return body_part_[static_cast<std::size_t>(body)]; }
  // factor in parts: factor_part for every part (at once, in any order),
  // then factor_top, which reads their updates. Each front reads its
  // children's updates in the same order either way: the same bits as
  // factor.
  void factor_part(int part, const double* J, const double* w, const char* skip, const double* diag, double* y,
                   double dependent_pivot);
  void factor_top(const double* J, const double* w, const char* skip, const double* diag, double* y,
                  double dependent_pivot);
  // back_substitute in parts: the top's fronts, then each part's (which
  // read only what the top and they themselves wrote), the same bits.
  void back_top(double* y) const;
  void back_part(int part, double* y) const;
  // Rows the last factor found dependent.
  int dependent_rows() const { return dependent_; }

 private:
  struct Front {
    int body = 0;
    int nodes = 0, node_count = 0;  // into front_nodes_: rows in front order, the parent's nodes last
    int rows = 0;                   // into front_rows_: each front row's row in the caller's numbering
    int size = 0, pivots = 0;
    int panel = 0;   // L's columns (size × pivots, column-major; on the diagonal D⁻¹, 0 for a row out), in panels_
    int update = 0;  // its update matrix ((size − pivots)², column-major), in updates_
    int children = 0, child_count = 0;  // into children_: (front, its first row here)
    int products = 0, product_count = 0;  // into products_
  };
  // One entry of K through the front's body: rows i and j of two blocks on
  // it (their values' offsets), and where B_j W B_iᵀ goes in the front.
  struct Product {
    int i, j, dest;
  };
  struct Place {
    int node, at;  // a node (in children_: a child's front) and its first row in the front
    int rows;      // its rows
    int values;    // its block on the front's body
  };
  // Fronts in order: a chain of links (fronts of two rows and one pivot,
  // each the next one's only child), or other fronts one at a time.
  struct Span {
    int first, count;
    int link;  // a chain's first link in links_
    bool chain;
    // A chain back-substituted side by side with an earlier chain (its
    // span's index), which is then `partnered` (order_chains).
    int partner = -1;
    bool partnered = false;
  };
  // What a chain's kernels read of a link, in one place: its two blocks
  // on its body (the pivot row's, the parent row's), the body's W, its
  // rows and its panel (D⁻¹, L's entry).
  struct Link {
    int pivot, parent;
    int offset, dof;
    int row0, row1;
    int panel;
  };
  // A factorization's dependent-row test (a pivot below `threshold` of its
  // row's diagonal), and the rows it found.
  struct Pivots {
    double threshold;
    int dependent = 0;
  };
  // A run of one span's fronts (a chain's: all of them), as plan_parts
  // gives the parts and the top theirs.
  struct Item {
    int span, first, count;
  };
  // Makes each chain's fronts contiguous, in the place of its first, and
  // lists the spans and the links.
  void order_chains();
  bool split(int parts);  // plan_parts for `parts` parts
  // Each part's panels and updates in a region of their own, the top's
  // last: analyse lays fronts out by height, which interleaves the parts'
  // (a path's two halves link by link), and two cores writing one cache
  // line stall each other at every write.
  void lay_out_by_part();
  void factor_item(const Item& item, const double* J, const double* w, const char* skip, const double* diag, double* y,
                   Pivots& pivots);
  void back_item(const Item& item, double* y) const;
  // N, P: the front's size and pivots when the compiler may unroll for
  // them, 0: any.
  template <int N, int P>
  void factor_front(const Front& f, const double* J, const double* w, const char* skip, const double* diag, double* y,
                    Pivots& pivots);
  void factor_chain(const Span& s, const double* J, const double* w, const char* skip, const double* diag, double* y,
                    Pivots& pivots);
  template <int N, int P>
  void forward_front(const Front& f, double* y) const;
  void forward_chain(const Span& s, double* y) const;
  template <int N, int P>
  void back_front(const Front& f, double* y) const;
  void back_chain(const Span& s, double* y) const;
  void back_chains(const Span& a, const Span& b, double* y) const;  // two partners side by side

  std::vector<Node> nodes_;
  std::vector<Body> bodies_;
  std::vector<Front> fronts_;  // children before parents
  std::vector<Span> spans_;    // over fronts_, in order
  std::vector<Link> links_;    // the chains' links, each chain's in a row
  std::vector<Place> front_nodes_;
  std::vector<Place> children_;  // node: the child's front
  std::vector<int> front_rows_;
  std::vector<Product> products_;
  std::vector<double> panels_, updates_;
  std::vector<std::vector<Item>> part_items_;  // per part (plan_parts), in the fronts' order
  std::vector<Item> top_items_;
  std::vector<int> body_part_;
  std::vector<int> part_dependent_;  // the dependent rows each part's last factor_part found
  int planned_for_ = 0;  // the thread count plan_parts last split for
  int dependent_ = 0;
};

}  // namespace linkage
