// The symbolic analysis of the multifrontal factorization: from the
// elimination order, the structure of every column of L (node level), the
// fronts, and the maps the numeric factorization follows.
#include <algorithm>
#include <cassert>
#include <numeric>
#include <span>

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

// Σ_{c<p} ½ (n − c − 1)(n − c): the multiply-adds of eliminating p pivots
// from a front of n rows, C(n + 1, 3) − C(n − p + 1, 3). Exact (the
// products are whole and below 2⁵³) for fronts under about 200,000 rows.
double partial_flops(int p, int n) {
  const double a = n + 1.0, b = n - p + 1.0;
  return (a * (a - 1.0) * (a - 2.0) - b * (b - 1.0) * (b - 2.0)) / 6.0;
}

// What a front of p pivot rows and n rows costs, in nanoseconds: a fixed
// cost per front, its n² entries zeroed, assembled and handed on (its
// update matrix added into its parent), the multiply-adds of
// its partial factorization, and the p·n entries of L its panel keeps and
// each solve reads (a factorization serves about four solves). Fitted to
// the per-front times of the numeric factorization on this machine (a
// mesh's order: 10,000 fronts of 1 to 101 pivots).
double front_cost(int p, int n) { return 32.0 + 0.6 * n * n + 0.056 * partial_flops(p, n) + 7.0 * p * n; }

// Lists of ints in one array: list i is at[start[i] .. start[i + 1]).
struct Lists {
  std::vector<std::size_t> start{0};
  std::vector<int> at;
  std::size_t count(int i) const { return start[static_cast<std::size_t>(i) + 1] - start[static_cast<std::size_t>(i)]; }
  const int* begin(int i) const { return at.data() + start[static_cast<std::size_t>(i)]; }
  const int* end(int i) const { return at.data() + start[static_cast<std::size_t>(i) + 1]; }
  std::span<const int> operator[](int i) const { return {begin(i), end(i)}; }
  void close() { start.push_back(at.size()); }  // the list being appended to ends here
};

}  // namespace

FrontPlan analyse_fronts(const BlockJacobian& J, const ConstraintGraph& g, const Elimination& e, std::size_t max_fill) {
  FrontPlan plan;
  plan.total_rows = J.rows();
  const int m = static_cast<int>(e.order.size());
  std::vector<int> pos(g.nodes.size(), -1);
  for (int k = 0; k < m; ++k) pos[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])] = k;
  // f(j) for each node j coupled to the node at place k (the nodes on its
  // bodies; k itself and repeats included), in order places.
  auto each_coupled = [&](int k, auto&& f) {
    for (int body : g.node_bodies[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])]) {
      if (body < 0) continue;
      for (int x = g.body_start[static_cast<std::size_t>(body)]; x < g.body_start[static_cast<std::size_t>(body) + 1]; ++x)
        f(pos[static_cast<std::size_t>(g.body_nodes[static_cast<std::size_t>(x)])]);
    }
  };

  // The elimination tree (Liu's algorithm, with path compression), then
  // the column structures of L at node level from its row subtrees: row k
  // of L reaches the columns on the tree's paths from k's earlier
  // neighbours up to k. The work is L's entries, with no sets and no
  // sorting: each column's list, filled from the rows in order, comes out
  // sorted.
  std::vector<int> parent(static_cast<std::size_t>(m), -1), ancestor(static_cast<std::size_t>(m), -1);
  for (int k = 0; k < m; ++k)
    each_coupled(k, [&](int j) {
      if (j >= k) return;
      int r = j;
      while (ancestor[static_cast<std::size_t>(r)] != -1 && ancestor[static_cast<std::size_t>(r)] != k) {
        const int next = ancestor[static_cast<std::size_t>(r)];
        ancestor[static_cast<std::size_t>(r)] = k;
        r = next;
      }
      if (ancestor[static_cast<std::size_t>(r)] == -1) {
        ancestor[static_cast<std::size_t>(r)] = k;
        parent[static_cast<std::size_t>(r)] = k;
      }
    });
  // Rows of L first (each row's columns as its walks meet them), then the
  // columns from them by a counting sort (a second walk cost more).
  std::vector<int> mark(static_cast<std::size_t>(m), -1);
  Lists row_entries;  // per place: the earlier places of its row of L
  row_entries.start.reserve(static_cast<std::size_t>(m) + 1);
  Lists structure;  // per place: the later places of its column of L
  structure.start.assign(static_cast<std::size_t>(m) + 1, 0);
  for (int k = 0; k < m; ++k) {
    mark[static_cast<std::size_t>(k)] = k;
    each_coupled(k, [&](int j) {
      if (j >= k) return;
      for (int x = j; mark[static_cast<std::size_t>(x)] != k; x = parent[static_cast<std::size_t>(x)]) {
        assert(x >= 0 && "an earlier neighbour's path up the tree reaches its row");
        mark[static_cast<std::size_t>(x)] = k;
        row_entries.at.push_back(x);
        ++structure.start[static_cast<std::size_t>(x) + 1];
      }
    });
    row_entries.close();
    if (row_entries.at.size() > max_fill) {
      plan.over_budget = true;
      return plan;
    }
  }
  std::partial_sum(structure.start.begin(), structure.start.end(), structure.start.begin());
  structure.at.resize(row_entries.at.size());
  {
    std::vector<std::size_t> next(structure.start.begin(), structure.start.end() - 1);
    for (int k = 0; k < m; ++k)
      for (int x : row_entries[k]) structure.at[next[static_cast<std::size_t>(x)]++] = k;
  }
  row_entries = {};
  std::vector<int> node_children(static_cast<std::size_t>(m), 0);  // per place: its children in the tree
  for (int k = 0; k < m; ++k)
    if (parent[static_cast<std::size_t>(k)] >= 0) ++node_children[static_cast<std::size_t>(parent[static_cast<std::size_t>(k)])];

  // Supernodes: the elimination's ranges, a mergeable range joined to the
  // next when that is exact (the next is its parent and its structure is the
  // rest of this one's): a chain of the elimination tree with one front.
  std::vector<int> starts;
  std::vector<char> mergeable;  // per supernode: of a fill-reducing order
  for (std::size_t s = 0; s + 1 < e.super_start.size(); ++s) {
    const int first = e.super_start[s];
    const bool merge = !starts.empty() && e.mergeable[s] && e.mergeable[s - 1] &&
                       parent[static_cast<std::size_t>(first - 1)] == first &&
                       structure.count(first - 1) == structure.count(first) + 1 &&
                       node_children[static_cast<std::size_t>(first)] == 1;
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

  // Each front's update nodes: the union of its pivots' structures beyond
  // them, in order. A range that is a path of the tree (each pivot's parent
  // the next: a clique at a body, a merged chain) has them as its last
  // pivot's structure.
  auto node_of = [&](int k) -> const ConstraintGraph::Node& { return g.nodes[static_cast<std::size_t>(e.order[static_cast<std::size_t>(k)])]; };
  auto rows = [&](const int* first, const int* last) {
    int r = 0;
    for (const int* k = first; k != last; ++k) r += node_of(*k).size;
    return r;
  };
  Lists update_nodes;
  std::vector<int> super_parent(static_cast<std::size_t>(ranges), -1);
  std::vector<int> pivot_rows(static_cast<std::size_t>(ranges)), update_rows(static_cast<std::size_t>(ranges));
  for (int s = 0; s < ranges; ++s) {
    const int first = starts[static_cast<std::size_t>(s)], last = starts[static_cast<std::size_t>(s) + 1];
    bool path = true;
    for (int k = first; k + 1 < last; ++k) path = path && parent[static_cast<std::size_t>(k)] == k + 1;
    const std::size_t from = update_nodes.at.size();
    if (path) {
      update_nodes.at.insert(update_nodes.at.end(), structure.begin(last - 1), structure.end(last - 1));
    } else {
      for (int k = first; k < last; ++k)
        for (const int* j = structure.begin(k); j != structure.end(k); ++j)
          if (*j >= last) update_nodes.at.push_back(*j);
      std::sort(update_nodes.at.begin() + static_cast<std::ptrdiff_t>(from), update_nodes.at.end());
      update_nodes.at.erase(std::unique(update_nodes.at.begin() + static_cast<std::ptrdiff_t>(from), update_nodes.at.end()),
                            update_nodes.at.end());
    }
    update_nodes.close();
    if (update_nodes.count(s) > 0) super_parent[static_cast<std::size_t>(s)] = super_of[static_cast<std::size_t>(*update_nodes.begin(s))];
    update_rows[static_cast<std::size_t>(s)] = rows(update_nodes.begin(s), update_nodes.end(s));
    pivot_rows[static_cast<std::size_t>(s)] = 0;
    for (int k = first; k < last; ++k) pivot_rows[static_cast<std::size_t>(s)] += node_of(k).size;
  }
  Lists first_children;  // per front, before amalgamation: its children, ascending
  {
    first_children.start.assign(static_cast<std::size_t>(ranges) + 1, 0);
    for (int s = 0; s < ranges; ++s)
      if (super_parent[static_cast<std::size_t>(s)] >= 0) ++first_children.start[static_cast<std::size_t>(super_parent[static_cast<std::size_t>(s)]) + 1];
    std::partial_sum(first_children.start.begin(), first_children.start.end(), first_children.start.begin());
    first_children.at.resize(first_children.start.back());
    std::vector<std::size_t> next(first_children.start.begin(), first_children.start.end() - 1);
    for (int s = 0; s < ranges; ++s)
      if (super_parent[static_cast<std::size_t>(s)] >= 0) first_children.at[next[static_cast<std::size_t>(super_parent[static_cast<std::size_t>(s)])]++] = s;
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
  std::vector<char> alive(static_cast<std::size_t>(ranges), 1);
  std::vector<int> merged_into(static_cast<std::size_t>(ranges), -1);
  Lists super_children;  // per front, after amalgamation (an empty list for a merged one)
  std::vector<int> kids;
  for (int s = 0; s < ranges; ++s) {
    kids.assign(first_children.begin(s), first_children.end(s));
    const int us = update_rows[static_cast<std::size_t>(s)];
    for (std::size_t x = 0; x < kids.size(); ++x) {
      const int c = kids[x];
      if (mergeable[static_cast<std::size_t>(s)] && mergeable[static_cast<std::size_t>(c)]) {
        const int ps = pivot_rows[static_cast<std::size_t>(s)], pc = pivot_rows[static_cast<std::size_t>(c)];
        const int nc = pc + update_rows[static_cast<std::size_t>(c)];
        if (front_cost(pc + ps, pc + ps + us) <= front_cost(pc, nc) + front_cost(ps, ps + us)) {
          pivot_rows[static_cast<std::size_t>(s)] += pc;
          alive[static_cast<std::size_t>(c)] = 0;
          merged_into[static_cast<std::size_t>(c)] = s;
          kids.insert(kids.end(), super_children.begin(c), super_children.end(c));
          continue;
        }
      }
      super_parent[static_cast<std::size_t>(c)] = s;
      super_children.at.push_back(c);
    }
    super_children.close();
  }
  // Each live front's pivots: its range and those merged into it, in order.
  Lists pivot_nodes;
  {
    std::vector<int> into(static_cast<std::size_t>(ranges));  // the live front each range's pivots went to
    pivot_nodes.start.assign(static_cast<std::size_t>(ranges) + 1, 0);
    for (int s = ranges - 1; s >= 0; --s) {
      into[static_cast<std::size_t>(s)] = alive[static_cast<std::size_t>(s)] ? s : into[static_cast<std::size_t>(merged_into[static_cast<std::size_t>(s)])];
      pivot_nodes.start[static_cast<std::size_t>(into[static_cast<std::size_t>(s)]) + 1] +=
          static_cast<std::size_t>(starts[static_cast<std::size_t>(s) + 1] - starts[static_cast<std::size_t>(s)]);
    }
    std::partial_sum(pivot_nodes.start.begin(), pivot_nodes.start.end(), pivot_nodes.start.begin());
    pivot_nodes.at.resize(pivot_nodes.start.back());
    std::vector<std::size_t> next(pivot_nodes.start.begin(), pivot_nodes.start.end() - 1);
    for (int s = 0; s < ranges; ++s)
      for (int k = starts[static_cast<std::size_t>(s)]; k < starts[static_cast<std::size_t>(s) + 1]; ++k)
        pivot_nodes.at[next[static_cast<std::size_t>(into[static_cast<std::size_t>(s)])]++] = k;
  }

  // A post-order of the supernode tree: each subtree's fronts consecutive,
  // so that independent subtrees can be factored apart.
  std::vector<int> post;
  for (int root = 0; root < ranges; ++root) {
    if (!alive[static_cast<std::size_t>(root)] || super_parent[static_cast<std::size_t>(root)] >= 0) continue;
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [s, next] = stack.back();
      if (next < super_children.count(s)) {
        const int c = super_children.begin(s)[next++];
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
    for (int k : pivot_nodes[s])
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
    for (std::span<const int> part : {pivot_nodes[s], update_nodes[s]})  // pivots first
      for (int k : part) {
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
    plan.factor_flops += partial_flops(sup.pivots, sup.size);
    plan.solve_flops += 2.0 * sup.pivots * sup.size;

    sup.products = static_cast<int>(plan.products.size());
    sup.pairs = static_cast<int>(plan.pairs.size());
    for (int k : pivot_nodes[s]) {
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
    for (int cs : super_children[s]) {
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
    for (std::span<const int> part : {pivot_nodes[s], update_nodes[s]})
      for (int k : part)
        for (int r = 0; r < node_of(k).size; ++r) front_row_of[static_cast<std::size_t>(row_of(k, r))] = -1;
  }
  plan.over_budget = plan.panel_values > max_fill || plan.factor_flops > MultifrontalLdlt::kMaxFlops;
  return plan;
}

}  // namespace linkage
