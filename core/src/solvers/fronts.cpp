// The symbolic analysis of the multifrontal factorization: from the
// elimination order, the structure of every column of L (node level), the
// fronts, and the maps the numeric factorization follows.
#include <algorithm>
#include <cassert>

#include "multifrontal.hpp"

namespace linkage {
namespace {

// The block of `node`'s group on `body`, or −1.
int block_on(const BlockJacobian& J, const ConstraintGraph& g, int node, int body) {
  const BlockJacobian::Group& grp = J.groups()[static_cast<std::size_t>(g.nodes[static_cast<std::size_t>(node)].group)];
  for (int b = grp.first_block; b < grp.first_block + grp.blocks; ++b)
    if (g.body_of_block[static_cast<std::size_t>(b)] == body) return b;
  return -1;
}

}  // namespace

FrontPlan analyse_fronts(const BlockJacobian& J, const ConstraintGraph& g, const Elimination& e) {
  FrontPlan plan;
  plan.total_rows = J.rows();
  const int m = static_cast<int>(e.order.size());
  std::vector<int> pos(g.nodes.size(), -1);
  for (int k = 0; k < m; ++k) pos[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])] = k;

  // Column structures of L at node level, in order positions: struct(k) =
  // the later neighbours of k and what its children's structures pass up.
  std::vector<std::vector<int>> structure(static_cast<std::size_t>(m));
  std::vector<int> parent(static_cast<std::size_t>(m), -1), mark(static_cast<std::size_t>(m), -1);
  std::vector<std::vector<int>> node_children(static_cast<std::size_t>(m));
  for (int k = 0; k < m; ++k) {
    std::vector<int>& s = structure[static_cast<std::size_t>(k)];
    mark[static_cast<std::size_t>(k)] = k;
    auto add = [&](int j) {
      if (j > k && mark[static_cast<std::size_t>(j)] != k) {
        mark[static_cast<std::size_t>(j)] = k;
        s.push_back(j);
      }
    };
    const int node = e.order[static_cast<std::size_t>(k)];
    for (int body : g.node_bodies[static_cast<std::size_t>(node)]) {
      if (body < 0) continue;
      for (int x = g.body_start[static_cast<std::size_t>(body)]; x < g.body_start[static_cast<std::size_t>(body) + 1]; ++x)
        add(pos[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(x)])]);
    }
    for (int c : node_children[static_cast<std::size_t>(k)])
      for (int j : structure[static_cast<std::size_t>(c)]) add(j);
    std::sort(s.begin(), s.end());
    if (!s.empty()) {
      parent[static_cast<std::size_t>(k)] = s.front();
      node_children[static_cast<std::size_t>(s.front())].push_back(k);
    }
  }

  // Supernodes: the elimination's ranges, a mergeable range joined to the
  // next when that is exact (the next is its parent and its structure is the
  // rest of this one's): a chain of the elimination tree with one front.
  std::vector<int> starts;
  for (std::size_t s = 0; s + 1 < e.super_start.size(); ++s) {
    const int first = e.super_start[s], next = e.super_start[s + 1];
    const bool merge = !starts.empty() && e.mergeable[s] && e.mergeable[s - 1] &&
                       parent[static_cast<std::size_t>(first - 1)] == first &&
                       structure[static_cast<std::size_t>(first - 1)].size() == structure[static_cast<std::size_t>(first)].size() + 1 &&
                       node_children[static_cast<std::size_t>(first)].size() == 1;
    if (!merge) starts.push_back(first);
    (void)next;
  }
  starts.push_back(m);

  const int supers = static_cast<int>(starts.size()) - 1;
  std::vector<int> super_of(static_cast<std::size_t>(m));
  for (int s = 0; s < supers; ++s)
    for (int k = starts[static_cast<std::size_t>(s)]; k < starts[static_cast<std::size_t>(s) + 1]; ++k) super_of[static_cast<std::size_t>(k)] = s;

  // Each front: its pivot nodes, then the union of their structures beyond
  // them (the update nodes), in order.
  std::vector<std::vector<int>> front_nodes(static_cast<std::size_t>(supers));
  std::vector<int> super_parent(static_cast<std::size_t>(supers), -1);
  std::vector<std::vector<int>> super_children(static_cast<std::size_t>(supers));
  for (int s = 0; s < supers; ++s) {
    const int first = starts[static_cast<std::size_t>(s)], last = starts[static_cast<std::size_t>(s) + 1];
    std::vector<int>& nodes = front_nodes[static_cast<std::size_t>(s)];
    for (int k = first; k < last; ++k) nodes.push_back(k);
    std::vector<int> update;
    for (int k = first; k < last; ++k)
      for (int j : structure[static_cast<std::size_t>(k)])
        if (j >= last) update.push_back(j);
    std::sort(update.begin(), update.end());
    update.erase(std::unique(update.begin(), update.end()), update.end());
    nodes.insert(nodes.end(), update.begin(), update.end());
    if (!update.empty()) {
      super_parent[static_cast<std::size_t>(s)] = super_of[static_cast<std::size_t>(update.front())];
      super_children[static_cast<std::size_t>(super_parent[static_cast<std::size_t>(s)])].push_back(s);
    }
  }

  // A post-order of the supernode tree: each subtree's fronts consecutive,
  // so that independent subtrees can be factored apart.
  std::vector<int> post;
  post.reserve(static_cast<std::size_t>(supers));
  for (int root = 0; root < supers; ++root) {
    if (super_parent[static_cast<std::size_t>(root)] >= 0) continue;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [s, next] = stack.back();
      const std::vector<int>& kids = super_children[static_cast<std::size_t>(s)];
      if (next < kids.size()) {
        const int c = kids[next++];
        stack.push_back({c, 0});
      } else {
        post.push_back(s);
        stack.pop_back();
      }
    }
  }
  std::vector<int> renumbered(static_cast<std::size_t>(supers));
  for (int i = 0; i < supers; ++i) renumbered[static_cast<std::size_t>(post[static_cast<std::size_t>(i)])] = i;

  // Places in elimination order: each front's pivots, consecutive.
  auto node_of = [&](int k) -> const ConstraintGraph::Node& { return g.nodes[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])]; };
  auto row_of = [&](int k, int r) { return J.groups()[static_cast<std::size_t>(node_of(k).group)].row + node_of(k).local[r]; };
  std::vector<int> place_of_row(static_cast<std::size_t>(J.rows()), -1);
  plan.supers.resize(static_cast<std::size_t>(supers));
  int place = 0;
  for (int i = 0; i < supers; ++i) {
    const int s = post[static_cast<std::size_t>(i)];
    FrontPlan::Super& sup = plan.supers[static_cast<std::size_t>(i)];
    sup.first = place;
    for (int k = starts[static_cast<std::size_t>(s)]; k < starts[static_cast<std::size_t>(s) + 1]; ++k)
      for (int r = 0; r < node_of(k).size; ++r) {
        place_of_row[static_cast<std::size_t>(row_of(k, r))] = place++;
        plan.perm.push_back(row_of(k, r));
      }
    sup.pivots = place - sup.first;
  }

  // Each front's rows, block products, and its children's maps into it.
  std::vector<int> front_row_of(static_cast<std::size_t>(J.rows()), -1);
  std::vector<int> scalar_at(static_cast<std::size_t>(m));  // a node's first row within the current front
  for (int i = 0; i < supers; ++i) {
    const int s = post[static_cast<std::size_t>(i)];
    FrontPlan::Super& sup = plan.supers[static_cast<std::size_t>(i)];
    const int parent_s = super_parent[static_cast<std::size_t>(s)];
    sup.parent = parent_s < 0 ? -1 : renumbered[static_cast<std::size_t>(parent_s)];
    sup.index = static_cast<int>(plan.index.size());
    int at = 0;
    for (int k : front_nodes[static_cast<std::size_t>(s)]) {
      scalar_at[static_cast<std::size_t>(k)] = at;
      for (int r = 0; r < node_of(k).size; ++r) {
        front_row_of[static_cast<std::size_t>(row_of(k, r))] = at++;
        plan.index.push_back(place_of_row[static_cast<std::size_t>(row_of(k, r))]);
      }
    }
    sup.size = at;
    sup.panel = static_cast<int>(plan.panel_values);
    plan.panel_values += static_cast<std::size_t>(sup.size) * static_cast<std::size_t>(sup.pivots);
    sup.update = static_cast<int>(plan.update_values);
    plan.update_values += static_cast<std::size_t>(sup.size - sup.pivots) * static_cast<std::size_t>(sup.size - sup.pivots);
    plan.max_size = std::max(plan.max_size, sup.size);
    for (int c = 0; c < sup.pivots; ++c) plan.factor_flops += 0.5 * (sup.size - c - 1) * (sup.size - c);
    plan.solve_flops += 2.0 * sup.pivots * sup.size;

    sup.products = static_cast<int>(plan.products.size());
    for (int k = starts[static_cast<std::size_t>(s)]; k < starts[static_cast<std::size_t>(s) + 1]; ++k) {
      const int node_i = e.order[static_cast<std::size_t>(k)];
      for (int body : g.node_bodies[static_cast<std::size_t>(node_i)]) {
        if (body < 0) continue;
        const BlockJacobian::Block& bi = J.block(block_on(J, g, node_i, body));
        for (int x = g.body_start[static_cast<std::size_t>(body)]; x < g.body_start[static_cast<std::size_t>(body) + 1]; ++x) {
          const int node_j = g.body_nodes[static_cast<std::size_t>(x)];
          const int kj = pos[static_cast<std::size_t>(node_j)];
          if (kj < k) continue;
          const BlockJacobian::Block& bj = J.block(block_on(J, g, node_j, body));
          FrontPlan::Product p{};
          p.values_i = bi.values;
          p.values_j = bj.values;
          p.w = bi.col;
          p.cols = bi.cols;
          p.dest = scalar_at[static_cast<std::size_t>(k)] * sup.size + scalar_at[static_cast<std::size_t>(kj)];
          p.size_i = static_cast<std::uint8_t>(node_of(k).size);
          p.size_j = static_cast<std::uint8_t>(node_of(kj).size);
          for (int r = 0; r < 3; ++r) {
            p.rows_i[r] = static_cast<std::uint8_t>(node_of(k).local[r]);
            p.rows_j[r] = static_cast<std::uint8_t>(node_of(kj).local[r]);
          }
          p.diagonal = node_i == node_j;
          plan.assembly_flops += static_cast<double>(p.size_i) * p.size_j * p.cols;
          plan.products.push_back(p);
        }
      }
    }
    sup.product_count = static_cast<int>(plan.products.size()) - sup.products;

    sup.children = static_cast<int>(plan.children.size());
    for (int cs : super_children[static_cast<std::size_t>(s)]) {
      const int c = renumbered[static_cast<std::size_t>(cs)];
      plan.children.push_back(c);
      FrontPlan::Super& child = plan.supers[static_cast<std::size_t>(c)];
      child.relative = static_cast<int>(plan.relative.size());
      for (int x = child.pivots; x < child.size; ++x) {
        const int to = front_row_of[static_cast<std::size_t>(plan.perm[static_cast<std::size_t>(plan.index[static_cast<std::size_t>(child.index + x)])])];
        assert(to >= 0 && "a child's update row is in its parent's front");
        plan.relative.push_back(to);
      }
    }
    sup.child_count = static_cast<int>(plan.children.size()) - sup.children;
    for (int k : front_nodes[static_cast<std::size_t>(s)])
      for (int r = 0; r < node_of(k).size; ++r) front_row_of[static_cast<std::size_t>(row_of(k, r))] = -1;
  }
  return plan;
}

}  // namespace linkage
