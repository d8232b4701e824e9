#include "constraint_graph.hpp"

#include <numeric>

namespace linkage {
namespace {

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

ConstraintGraph build_constraint_graph(const BlockJacobian& J, const std::vector<char>& removed) {
  ConstraintGraph g;
  const auto& groups = J.groups();
  const int blocks = groups.empty() ? 0 : groups.back().first_block + groups.back().blocks;
  // Bodies are J's column blocks, numbered in order of first appearance.
  std::vector<int> body_at_col(static_cast<std::size_t>(J.cols()), -1);
  g.body_of_block.assign(static_cast<std::size_t>(blocks), -1);
  for (int b = 0; b < blocks; ++b) {
    int& body = body_at_col[static_cast<std::size_t>(J.block(b).col)];
    if (body < 0) body = g.bodies++;
    g.body_of_block[static_cast<std::size_t>(b)] = body;
  }

  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const BlockJacobian::Group& grp = groups[gi];
    if (grp.blocks == 0) continue;  // touches nothing movable: held, never solved for
    ConstraintGraph::Node node;
    node.group = static_cast<int>(gi);
    for (int r = 0; r < grp.rows; ++r)
      if (removed.empty() || !removed[static_cast<std::size_t>(grp.row + r)]) node.local[node.size++] = r;
    if (node.size == 0) continue;
    g.nodes.push_back(node);
    std::array<int, 2> bodies{-1, -1};
    for (int k = 0; k < grp.blocks && k < 2; ++k) bodies[static_cast<std::size_t>(k)] = g.body_of_block[static_cast<std::size_t>(grp.first_block + k)];
    g.node_bodies.push_back(bodies);
  }

  // Body → nodes, as compressed lists.
  g.body_start.assign(static_cast<std::size_t>(g.bodies) + 1, 0);
  for (const auto& nb : g.node_bodies)
    for (int b : nb)
      if (b >= 0) ++g.body_start[static_cast<std::size_t>(b) + 1];
  std::partial_sum(g.body_start.begin(), g.body_start.end(), g.body_start.begin());
  g.body_nodes.resize(static_cast<std::size_t>(g.body_start.back()));
  std::vector<int> fill(g.body_start.begin(), g.body_start.end() - 1);
  for (std::size_t n = 0; n < g.node_bodies.size(); ++n)
    for (int b : g.node_bodies[n])
      if (b >= 0) g.body_nodes[static_cast<std::size_t>(fill[static_cast<std::size_t>(b)]++)] = static_cast<int>(n);

  // Components: bodies joined by nodes.
  std::vector<int> parent(static_cast<std::size_t>(g.bodies));
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& nb : g.node_bodies)
    if (nb[1] >= 0) parent[static_cast<std::size_t>(find(parent, nb[0]))] = find(parent, nb[1]);
  std::vector<int> component_of_root(static_cast<std::size_t>(g.bodies), -1);
  std::vector<int> component_of_body(static_cast<std::size_t>(g.bodies));
  for (int b = 0; b < g.bodies; ++b) {
    int& c = component_of_root[static_cast<std::size_t>(find(parent, b))];
    if (c < 0) {
      c = static_cast<int>(g.components.size());
      g.components.emplace_back();
    }
    component_of_body[static_cast<std::size_t>(b)] = c;
    g.components[static_cast<std::size_t>(c)].bodies.push_back(b);
  }
  std::vector<int> edges(g.components.size(), 0);
  for (std::size_t n = 0; n < g.node_bodies.size(); ++n) {
    const int c = component_of_body[static_cast<std::size_t>(g.node_bodies[n][0])];
    g.components[static_cast<std::size_t>(c)].nodes.push_back(static_cast<int>(n));
    if (g.node_bodies[n][1] >= 0) ++edges[static_cast<std::size_t>(c)];
  }
  // A connected graph is a tree when it has one edge fewer than vertices.
  for (std::size_t c = 0; c < g.components.size(); ++c)
    g.components[c].acyclic = edges[c] + 1 == static_cast<int>(g.components[c].bodies.size());
  return g;
}

}  // namespace linkage
