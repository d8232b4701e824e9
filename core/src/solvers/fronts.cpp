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

// What a front of p pivot rows and n rows costs, in nanoseconds: a fixed
// cost per front, its n² entries zeroed, assembled and handed on (its
// update matrix added into its parent), the multiply-adds of
// its partial factorization, and the p·n entries of L its panel keeps and
// each solve reads (a factorization serves about four solves). Fitted to
// the per-front times of the numeric factorization on this machine (a
// mesh's order: 10,000 fronts of 1 to 101 pivots).
double front_cost(int p, int n) {
  double flops = 0.0;
  for (int c = 0; c < p; ++c) flops += 0.5 * (n - c - 1) * (n - c);
  return 32.0 + 0.6 * n * n + 0.056 * flops + 7.0 * p * n;
}

}  // namespace

FrontPlan analyse_fronts(const BlockJacobian& J, const ConstraintGraph& g, const Elimination& e, std::size_t max_fill) {
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
  std::size_t stored = 0;  // the structures' entries so far
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
    stored += s.size();
    if (stored > max_fill) {
      plan.over_budget = true;
      return plan;
    }
  }

  // Supernodes: the elimination's ranges, a mergeable range joined to the
  // next when that is exact (the next is its parent and its structure is the
  // rest of this one's): a chain of the elimination tree with one front.
  std::vector<int> starts;
  std::vector<char> mergeable;  // per supernode: of a fill-reducing order
  for (std::size_t s = 0; s + 1 < e.super_start.size(); ++s) {
    const int first = e.super_start[s];
    const bool merge = !starts.empty() && e.mergeable[s] && e.mergeable[s - 1] &&
                       parent[static_cast<std::size_t>(first - 1)] == first &&
                       structure[static_cast<std::size_t>(first - 1)].size() == structure[static_cast<std::size_t>(first)].size() + 1 &&
                       node_children[static_cast<std::size_t>(first)].size() == 1;
    if (!merge) {
      starts.push_back(first);
      mergeable.push_back(e.mergeable[s]);
    }
  }
  starts.push_back(m);

  const int ranges = static_cast<int>(starts.size()) - 1;
  std::vector<int> super_of(static_cast<std::size_t>(m));
  for (int s = 0; s < ranges; ++s)
    for (int k = starts[static_cast<std::size_t>(s)]; k < starts[static_cast<std::size_t>(s) + 1]; ++k) super_of[static_cast<std::size_t>(k)] = s;

  // Each front: its pivot nodes, and the union of their structures beyond
  // them (the update nodes), in order.
  auto node_of = [&](int k) -> const ConstraintGraph::Node& { return g.nodes[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])]; };
  std::vector<std::vector<int>> pivot_nodes(static_cast<std::size_t>(ranges)), update_nodes(static_cast<std::size_t>(ranges));
  std::vector<int> super_parent(static_cast<std::size_t>(ranges), -1);
  std::vector<std::vector<int>> super_children(static_cast<std::size_t>(ranges));
  for (int s = 0; s < ranges; ++s) {
    const int first = starts[static_cast<std::size_t>(s)], last = starts[static_cast<std::size_t>(s) + 1];
    for (int k = first; k < last; ++k) pivot_nodes[static_cast<std::size_t>(s)].push_back(k);
    std::vector<int>& update = update_nodes[static_cast<std::size_t>(s)];
    for (int k = first; k < last; ++k)
      for (int j : structure[static_cast<std::size_t>(k)])
        if (j >= last) update.push_back(j);
    std::sort(update.begin(), update.end());
    update.erase(std::unique(update.begin(), update.end()), update.end());
    if (!update.empty()) {
      super_parent[static_cast<std::size_t>(s)] = super_of[static_cast<std::size_t>(update.front())];
      super_children[static_cast<std::size_t>(super_parent[static_cast<std::size_t>(s)])].push_back(s);
    }
  }

  // Relaxed amalgamation: a child front of a fill-reducing order is merged
  // into its parent (its pivots join the parent's, its update rows are among
  // the parent's rows) when the merged front costs less than the two apart.
  // A front's own cost (zeroing, assembly, handing its update matrix to its
  // parent, the solves' visit) outweighs the flops on the explicit zeros a
  // merge adds for the many small fronts at the leaves of a mesh's order.
  // Children come before parents (a parent's range is later), so a child has
  // taken its own children in by the time its parent looks at it; children
  // of a merged child become the parent's and may merge in turn.
  auto rows = [&](const std::vector<int>& nodes) {
    int r = 0;
    for (int k : nodes) r += node_of(k).size;
    return r;
  };
  std::vector<char> alive(static_cast<std::size_t>(ranges), 1);
  for (int s = 0; s < ranges; ++s) {
    std::vector<int> kids = std::move(super_children[static_cast<std::size_t>(s)]);
    super_children[static_cast<std::size_t>(s)].clear();
    const int us = rows(update_nodes[static_cast<std::size_t>(s)]);
    for (std::size_t x = 0; x < kids.size(); ++x) {
      const int c = kids[x];
      if (mergeable[static_cast<std::size_t>(s)] && mergeable[static_cast<std::size_t>(c)]) {
        const int ps = rows(pivot_nodes[static_cast<std::size_t>(s)]), pc = rows(pivot_nodes[static_cast<std::size_t>(c)]);
        const int nc = pc + rows(update_nodes[static_cast<std::size_t>(c)]);
        if (front_cost(pc + ps, pc + ps + us) <= front_cost(pc, nc) + front_cost(ps, ps + us)) {
          std::vector<int>& to = pivot_nodes[static_cast<std::size_t>(s)];
          const std::vector<int>& from = pivot_nodes[static_cast<std::size_t>(c)];
          to.insert(to.end(), from.begin(), from.end());
          std::sort(to.begin(), to.end());
          alive[static_cast<std::size_t>(c)] = 0;
          for (int gc : super_children[static_cast<std::size_t>(c)]) kids.push_back(gc);
          continue;
        }
      }
      super_parent[static_cast<std::size_t>(c)] = s;
      super_children[static_cast<std::size_t>(s)].push_back(c);
    }
  }
  std::vector<std::vector<int>> front_nodes(static_cast<std::size_t>(ranges));
  for (int s = 0; s < ranges; ++s) {
    if (!alive[static_cast<std::size_t>(s)]) continue;
    std::vector<int>& nodes = front_nodes[static_cast<std::size_t>(s)];
    nodes = pivot_nodes[static_cast<std::size_t>(s)];
    nodes.insert(nodes.end(), update_nodes[static_cast<std::size_t>(s)].begin(), update_nodes[static_cast<std::size_t>(s)].end());
  }

  // A post-order of the supernode tree: each subtree's fronts consecutive,
  // so that independent subtrees can be factored apart.
  std::vector<int> post;
  for (int root = 0; root < ranges; ++root) {
    if (!alive[static_cast<std::size_t>(root)] || super_parent[static_cast<std::size_t>(root)] >= 0) continue;
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
  const int supers = static_cast<int>(post.size());
  std::vector<int> renumbered(static_cast<std::size_t>(ranges), -1);
  for (int i = 0; i < supers; ++i) renumbered[static_cast<std::size_t>(post[static_cast<std::size_t>(i)])] = i;

  // Places in elimination order: each front's pivots, consecutive.
  auto row_of = [&](int k, int r) { return J.groups()[static_cast<std::size_t>(node_of(k).group)].row + node_of(k).local[r]; };
  std::vector<int> place_of_row(static_cast<std::size_t>(J.rows()), -1);
  plan.supers.resize(static_cast<std::size_t>(supers));
  int place = 0;
  for (int i = 0; i < supers; ++i) {
    const int s = post[static_cast<std::size_t>(i)];
    FrontPlan::Super& sup = plan.supers[static_cast<std::size_t>(i)];
    sup.first = place;
    for (int k : pivot_nodes[static_cast<std::size_t>(s)])
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
    plan.max_size = std::max(plan.max_size, sup.size);
    for (int c = 0; c < sup.pivots; ++c) plan.factor_flops += 0.5 * (sup.size - c - 1) * (sup.size - c);
    plan.solve_flops += 2.0 * sup.pivots * sup.size;

    sup.products = static_cast<int>(plan.products.size());
    sup.pairs = static_cast<int>(plan.pairs.size());
    for (int k : pivot_nodes[static_cast<std::size_t>(s)]) {
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
          if (p.size_i == 1 && p.size_j == 1 && p.cols == 2) {
            plan.pairs.push_back({p.values_i + p.rows_i[0] * 2, p.values_j + p.rows_j[0] * 2, p.w, p.dest});
          } else {
            plan.products.push_back(p);
          }
        }
      }
    }
    sup.product_count = static_cast<int>(plan.products.size()) - sup.products;
    sup.pair_count = static_cast<int>(plan.pairs.size()) - sup.pairs;

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
  plan.over_budget = plan.panel_values > max_fill || plan.factor_flops > MultifrontalLdlt::kMaxFlops;
  return plan;
}

}  // namespace linkage
