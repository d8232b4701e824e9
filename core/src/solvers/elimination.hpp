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

}  // namespace linkage
