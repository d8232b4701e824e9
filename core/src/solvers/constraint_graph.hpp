#pragma once
// The constraint graph of a Jacobian: a node per constraint (the rows it
// still has in the system), joined to the movable bodies it has blocks on.
// Two nodes that share a body couple in K = J W Jᵀ. Bodies joined through
// constraints form components, which the direct solver factors apart; a
// component whose bodies and two-body constraints form a tree (a chain, a
// rope, a linkage, a ragdoll; constraints to the world or to fixed bodies
// hang off it) factors in linear time without fill.

#include <array>
#include <vector>

#include "../block_jacobian.hpp"

namespace linkage {

struct ConstraintGraph {
  struct Node {
    int group = 0;        // the constraint's group in J
    int size = 0;         // rows kept, 1 to 3
    int local[3] = {};    // the kept rows, within the group (0 to rows − 1)
  };
  std::vector<Node> nodes;  // in J's group order; groups with no kept row or no block are left out
  int bodies = 0;           // movable bodies (distinct J column blocks)
  // Per J block: the body it sits on.
  std::vector<int> body_of_block;
  // Per body: its nodes, nodes[node_start[b] .. node_start[b + 1]) of body_nodes.
  std::vector<int> body_start, body_nodes;
  // Per node: its bodies (1 or 2), in block order; −1 when it has one.
  std::vector<std::array<int, 2>> node_bodies;

  struct Component {
    std::vector<int> nodes;   // in ascending order
    std::vector<int> bodies;  // in ascending order
    bool acyclic = false;     // bodies and two-body nodes form a tree
  };
  std::vector<Component> components;
};

// The graph of J's rows that are not `removed` (per row; empty: none).
ConstraintGraph build_constraint_graph(const BlockJacobian& J, const std::vector<char>& removed);

}  // namespace linkage
