#include "elimination.hpp"

#include <algorithm>

#include <metis.h>

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

namespace linkage {
namespace {

// Components with loops and at least this many constraints may be ordered by
// nested dissection; smaller ones always by minimum degree.
constexpr std::size_t kNestedDissection = 1000;

// The tree order of one acyclic component.
void tree_order(const ConstraintGraph& g, const ConstraintGraph::Component& c, Elimination& out) {
  // Local body numbers, and each body's incident nodes.
  const int nb = static_cast<int>(c.bodies.size());
  std::vector<int> local(static_cast<std::size_t>(g.bodies), -1);
  for (int i = 0; i < nb; ++i) local[static_cast<std::size_t>(c.bodies[static_cast<std::size_t>(i)])] = i;
  auto other_end = [&](int node, int body) {
    const auto& e = g.node_bodies[static_cast<std::size_t>(node)];
    return e[1] < 0 ? -1 : local[static_cast<std::size_t>(e[0] == body ? e[1] : e[0])];
  };
  auto incident = [&](int lb) {
    const int b = c.bodies[static_cast<std::size_t>(lb)];
    return std::pair{g.body_nodes.begin() + g.body_start[static_cast<std::size_t>(b)],
                     g.body_nodes.begin() + g.body_start[static_cast<std::size_t>(b) + 1]};
  };

  // Depth-first from body 0: parents and a pre-order, without recursion
  // (a rope of 100 000 links is a path that deep).
  std::vector<int> parent(static_cast<std::size_t>(nb), -2), preorder;
  preorder.reserve(static_cast<std::size_t>(nb));
  auto search = [&](int root) {
    std::fill(parent.begin(), parent.end(), -2);
    preorder.clear();
    std::vector<int> stack{root};
    parent[static_cast<std::size_t>(root)] = -1;
    while (!stack.empty()) {
      const int b = stack.back();
      stack.pop_back();
      preorder.push_back(b);
      const auto [first, last] = incident(b);
      for (auto it = first; it != last; ++it) {
        const int o = other_end(*it, c.bodies[static_cast<std::size_t>(b)]);
        if (o < 0 || parent[static_cast<std::size_t>(o)] != -2) continue;
        parent[static_cast<std::size_t>(o)] = b;
        stack.push_back(o);
      }
    }
  };
  // The centroid: the body whose largest remaining subtree is smallest.
  search(0);
  std::vector<int> subtree(static_cast<std::size_t>(nb), 1);
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it)
    if (parent[static_cast<std::size_t>(*it)] >= 0) subtree[static_cast<std::size_t>(parent[static_cast<std::size_t>(*it)])] += subtree[static_cast<std::size_t>(*it)];
  int root = 0, best = nb + 1;
  for (int b = 0; b < nb; ++b) {
    int largest = nb - subtree[static_cast<std::size_t>(b)];
    const auto [first, last] = incident(b);
    for (auto it = first; it != last; ++it) {
      const int o = other_end(*it, c.bodies[static_cast<std::size_t>(b)]);
      if (o >= 0 && parent[static_cast<std::size_t>(o)] == b) largest = std::max(largest, subtree[static_cast<std::size_t>(o)]);
    }
    if (largest < best) best = largest, root = b;
  }
  search(root);

  // Post-order: children before parents. At each body, its child edges and
  // its pendants (constraints to the world) make one supernode.
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    const int b = *it;
    const std::size_t start = out.order.size();
    const auto [first, last] = incident(b);
    for (auto n = first; n != last; ++n) {
      const int o = other_end(*n, c.bodies[static_cast<std::size_t>(b)]);
      if (o < 0 || parent[static_cast<std::size_t>(o)] == b) out.order.push_back(*n);
    }
    if (out.order.size() == start) continue;
    out.super_start.push_back(static_cast<int>(start));
    out.mergeable.push_back(0);
  }
}

// The node graph of one component: each node's neighbours (nodes sharing a
// body), in local numbers.
std::vector<std::vector<int>> node_graph(const ConstraintGraph& g, const ConstraintGraph::Component& c,
                                         std::vector<int>& local) {
  const int n = static_cast<int>(c.nodes.size());
  local.assign(g.nodes.size(), -1);
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(i)])] = i;
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
  for (int b : c.bodies)
    for (int x = g.body_start[static_cast<std::size_t>(b)]; x < g.body_start[static_cast<std::size_t>(b) + 1]; ++x)
      for (int y = g.body_start[static_cast<std::size_t>(b)]; y < g.body_start[static_cast<std::size_t>(b) + 1]; ++y)
        if (x != y)
          adj[static_cast<std::size_t>(local[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(x)])])].push_back(
              local[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(y)])]);
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  return adj;
}

// Nested dissection (METIS) on the node graph of a large component with
// loops: less fill than minimum degree on meshes and grids, and an
// elimination tree whose halves can be factored apart.
void nested_dissection_order(const ConstraintGraph& g, const ConstraintGraph::Component& c, Elimination& out) {
  std::vector<int> local;
  const std::vector<std::vector<int>> adj = node_graph(g, c, local);
  idx_t n = static_cast<idx_t>(c.nodes.size());
  std::vector<idx_t> xadj{0}, adjncy, weight, perm(static_cast<std::size_t>(n)), iperm(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int j : adj[static_cast<std::size_t>(i)]) adjncy.push_back(j);
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
    weight.push_back(g.nodes[static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(i)])].size);
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same order on every run
  options[METIS_OPTION_NUMBERING] = 0;
  METIS_NodeND(&n, xadj.data(), adjncy.data(), weight.data(), options, perm.data(), iperm.data());
  for (int k = 0; k < n; ++k) {
    out.super_start.push_back(static_cast<int>(out.order.size()));
    out.mergeable.push_back(1);
    out.order.push_back(c.nodes[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])]);
  }
}

// Approximate minimum degree on the node graph of one component with loops.
void fill_reducing_order(const ConstraintGraph& g, const ConstraintGraph::Component& c, Elimination& out) {
  const int n = static_cast<int>(c.nodes.size());
  std::vector<int> local(g.nodes.size(), -1);
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(c.nodes[static_cast<std::size_t>(i)])] = i;
  std::vector<Eigen::Triplet<double>> pattern;
  for (int b : c.bodies)
    for (int x = g.body_start[static_cast<std::size_t>(b)]; x < g.body_start[static_cast<std::size_t>(b) + 1]; ++x)
      for (int y = g.body_start[static_cast<std::size_t>(b)]; y < g.body_start[static_cast<std::size_t>(b) + 1]; ++y)
        pattern.emplace_back(local[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(x)])],
                             local[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(y)])], 1.0);
  Eigen::SparseMatrix<double> a(n, n);
  a.setFromTriplets(pattern.begin(), pattern.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> perm;
  Eigen::AMDOrdering<int>()(a, perm);
  for (int k = 0; k < n; ++k) {
    out.super_start.push_back(static_cast<int>(out.order.size()));
    out.mergeable.push_back(1);
    out.order.push_back(c.nodes[static_cast<std::size_t>(perm.indices()[k])]);
  }
}

}  // namespace

bool has_large_loops(const ConstraintGraph& g) {
  for (const ConstraintGraph::Component& c : g.components)
    if (!c.acyclic && c.nodes.size() >= kNestedDissection) return true;
  return false;
}

Elimination plan_elimination(const ConstraintGraph& g, bool nested_dissection) {
  Elimination out;
  out.order.reserve(g.nodes.size());
  for (const ConstraintGraph::Component& c : g.components) {
    if (c.nodes.empty()) continue;
    if (c.acyclic) {
      tree_order(g, c, out);
      ++out.tree_components;
    } else {
      if (nested_dissection && c.nodes.size() >= kNestedDissection) {
        nested_dissection_order(g, c, out);
      } else {
        fill_reducing_order(g, c, out);
      }
      ++out.loop_components;
    }
  }
  out.super_start.push_back(static_cast<int>(out.order.size()));
  return out;
}

}  // namespace linkage
