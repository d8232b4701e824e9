#pragma once
// The order in which the direct solver eliminates the constraint graph's
// nodes, and how it groups them into supernodes (ranges of that order that
// share one dense front).
//
// Acyclic components get the tree order (Baraff, "Linear-Time Dynamics using
// Lagrange Multipliers", 1996): bodies from the leaves to a root, and at each
// body the constraints to its children and to the world. The constraints at
// one body form a clique of K; eliminated together, in one front with the
// constraint to the body's parent, they create no fill: the factorization
// costs O(Σ_b deg(b)³), linear in the size of the mechanism for bounded
// degree. The root is the tree's centroid, so the two halves of a chain are
// independent subtrees (the factorization runs them in parallel).
// Components with loops get a fill-reducing order: approximate minimum degree
// on the node graph, or for large ones (with `nested_dissection`) METIS's
// nested dissection, whose balanced elimination tree also splits between
// threads. Their supernodes come from the symbolic analysis.

#include <cstdint>
#include <vector>

#include "constraint_graph.hpp"

namespace linkage {

struct Elimination {
  std::vector<int> order;        // graph nodes, in elimination order
  std::vector<int> super_start;  // positions in `order` where a supernode starts; ends with order.size()
  // Per supernode: may the symbolic analysis merge it with its parent when
  // that adds no fill (true for fill-reducing orders, false for tree fronts).
  std::vector<char> mergeable;
  int tree_components = 0, loop_components = 0;
};

Elimination plan_elimination(const ConstraintGraph& g, bool nested_dissection);
bool has_large_loops(const ConstraintGraph& g);

// What matches a node of one graph to a node of the next: its group's rows
// and the rows it keeps (its shape), and the J columns its blocks are on.
struct NodeKeys {
  std::vector<int> shape;              // per node: rows + 4 · (kept rows as a bit mask)
  std::vector<int> col_start{0}, cols;  // per node: its blocks' first columns, cols[col_start[n] .. col_start[n + 1])
};
NodeKeys node_keys(const BlockJacobian& J, const ConstraintGraph& g);

// A fill-reducing order kept across changes of topology. Ordering a large
// component with loops costs tens of milliseconds (METIS's nested
// dissection of cloth_100_slack's 19,800 constraints: 60–80 ms, most of a
// topology change's analysis), while a constraint added or taken out leaves
// the order of the others about as good: eliminating a node fewer fills no
// more, and a new node last fills only its own row. So a graph that differs
// from the last one in a few nodes keeps the last order for each large
// component with loops (its nodes still there in their order, the new ones
// after them), and orders only its trees and small components afresh, until
// kReorderShare of the nodes have come or gone since an order was made
// afresh. Nodes are matched by their keys (NodeKeys: kept rows, and the J
// columns of their blocks); a body taken out moves every later body's
// columns, which the world reports (columns_moved), so that the last
// graph's nodes follow their bodies.
class KeptOrder {
 public:
  static constexpr double kReorderShare = 0.05;
  // The order for `g` (whose nodes' keys are `keys`) from the last one, or
  // false: order afresh (and call made() with the result).
  bool follow(const ConstraintGraph& g, const NodeKeys& keys, Elimination& out);
  // An order made afresh for a graph of these keys.
  void made(const NodeKeys& keys, const Elimination& e);
  // Bodies were taken out and the others' columns moved down (J's column c
  // is now new_column[c], −1 for a column gone): the last graph's nodes
  // follow their bodies, and those on a body taken out are gone.
  void columns_moved(const std::vector<int>& new_column);
  int changed() const { return changed_; }  // nodes come or gone since the order was made afresh

 private:
  void keep(const NodeKeys& keys, const Elimination& e);
  NodeKeys keys_;                          // of the last graph's nodes
  std::vector<std::uint64_t> signatures_;  // their keys hashed
  std::vector<int> place_;                 // per node of the last graph: its place in its order
  int places_ = 0;                         // the last order's length
  int changed_ = 0;
};

}  // namespace linkage
