#include "elimination.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

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

// Each node its own supernode (the symbolic analysis merges them).
void single_nodes(const std::vector<int>& order, Elimination& out) {
  for (int node : order) {
    out.super_start.push_back(static_cast<int>(out.order.size()));
    out.mergeable.push_back(1);
    out.order.push_back(node);
  }
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
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = c.nodes[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])];
  single_nodes(order, out);
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
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = c.nodes[static_cast<std::size_t>(perm.indices()[k])];
  single_nodes(order, out);
}

}  // namespace

bool has_large_loops(const ConstraintGraph& g) {
  for (const ConstraintGraph::Component& c : g.components)
    if (!c.acyclic && c.nodes.size() >= kNestedDissection) return true;
  return false;
}

namespace {

// plan_elimination, a large component with loops ordered by `large` (which
// returns false where it cannot: the plan then fails).
template <class Large>
bool plan(const ConstraintGraph& g, Elimination& out, Large large) {
  out = Elimination{};
  out.order.reserve(g.nodes.size());
  for (const ConstraintGraph::Component& c : g.components) {
    if (c.nodes.empty()) continue;
    if (c.acyclic) {
      tree_order(g, c, out);
      ++out.tree_components;
      continue;
    }
    if (c.nodes.size() < kNestedDissection) {
      fill_reducing_order(g, c, out);
    } else if (!large(c, out)) {
      return false;
    }
    ++out.loop_components;
  }
  out.super_start.push_back(static_cast<int>(out.order.size()));
  return true;
}

}  // namespace

Elimination plan_elimination(const ConstraintGraph& g, bool nested_dissection) {
  Elimination out;
  plan(g, out, [&](const ConstraintGraph::Component& c, Elimination& e) {
    if (nested_dissection) {
      nested_dissection_order(g, c, e);
    } else {
      fill_reducing_order(g, c, e);
    }
    return true;
  });
  return out;
}

NodeKeys node_keys(const BlockJacobian& J, const ConstraintGraph& g) {
  NodeKeys out;
  out.shape.reserve(g.nodes.size());
  out.col_start.reserve(g.nodes.size() + 1);
  for (const ConstraintGraph::Node& n : g.nodes) {
    const BlockJacobian::Group& grp = J.groups()[static_cast<std::size_t>(n.group)];
    int kept = 0;
    for (int r = 0; r < n.size; ++r) kept |= 1 << n.local[r];
    out.shape.push_back(grp.rows + 4 * kept);
    for (int b = grp.first_block; b < grp.first_block + grp.blocks; ++b) out.cols.push_back(J.block(b).col);
    out.col_start.push_back(static_cast<int>(out.cols.size()));
  }
  return out;
}

namespace {

// A node's keys hashed (FNV-1a over the ints).
std::uint64_t signature(const NodeKeys& keys, std::size_t node) {
  std::uint64_t h = 1469598103934665603ull;
  auto add = [&](int v) {
    for (int byte = 0; byte < 4; ++byte) h = (h ^ static_cast<std::uint8_t>(static_cast<unsigned>(v) >> (8 * byte))) * 1099511628211ull;
  };
  add(keys.shape[node]);
  for (int c = keys.col_start[node]; c < keys.col_start[node + 1]; ++c) add(keys.cols[static_cast<std::size_t>(c)]);
  return h;
}

std::vector<std::uint64_t> signatures(const NodeKeys& keys) {
  std::vector<std::uint64_t> out(keys.shape.size());
  for (std::size_t n = 0; n < out.size(); ++n) out[n] = signature(keys, n);
  return out;
}

}  // namespace

bool KeptOrder::follow(const ConstraintGraph& g, const NodeKeys& keys, Elimination& out) {
  if (signatures_.empty()) return false;
  const std::vector<std::uint64_t> now = signatures(keys);
  // Each node to the last graph's node of its signature, in order: the
  // last graph's nodes of one signature as a list (first, then `after`).
  std::unordered_map<std::uint64_t, int> first;
  first.reserve(signatures_.size());
  std::vector<int> after(signatures_.size(), -1);
  for (int i = static_cast<int>(signatures_.size()) - 1; i >= 0; --i) {
    auto [it, fresh] = first.try_emplace(signatures_[static_cast<std::size_t>(i)], i);
    if (!fresh) {
      after[static_cast<std::size_t>(i)] = it->second;
      it->second = i;
    }
  }
  std::vector<int> was(now.size(), -1);
  int added = 0;
  for (std::size_t n = 0; n < now.size(); ++n) {
    const auto it = first.find(now[n]);
    if (it == first.end() || it->second < 0) {
      ++added;
      continue;
    }
    was[n] = it->second;
    it->second = after[static_cast<std::size_t>(it->second)];
  }
  const int gone = static_cast<int>(signatures_.size() + static_cast<std::size_t>(added) - now.size());
  const int changed = changed_ + added + gone;
  if (changed > kReorderShare * static_cast<double>(now.size())) return false;
  std::vector<int> by_place(static_cast<std::size_t>(places_), -1);  // a component's kept nodes at their last places
  const bool kept = plan(g, out, [&](const ConstraintGraph::Component& c, Elimination& e) {
    std::vector<std::pair<int, int>> placed;  // (place in the last order, node)
    std::vector<int> later;                   // new, or in a tree last time: after the rest
    int lo = static_cast<int>(by_place.size()), hi = -1;
    for (int node : c.nodes) {
      const int from = was[static_cast<std::size_t>(node)];
      const int at = from < 0 ? -1 : place_[static_cast<std::size_t>(from)];
      if (at < 0) {
        later.push_back(node);
      } else {
        placed.emplace_back(at, node);
        lo = std::min(lo, at);
        hi = std::max(hi, at);
      }
    }
    if (static_cast<double>(later.size()) > kReorderShare * static_cast<double>(c.nodes.size())) return false;
    // Into place order: by bucket where the places are dense (the usual
    // case: the component was one last time), else by sorting.
    if (hi - lo < 4 * static_cast<int>(placed.size())) {
      for (const auto& [at, node] : placed) by_place[static_cast<std::size_t>(at)] = node;  // places are distinct
      std::size_t next = 0;
      for (int at = lo; at <= hi; ++at)
        if (by_place[static_cast<std::size_t>(at)] >= 0) {
          placed[next++] = {at, by_place[static_cast<std::size_t>(at)]};
          by_place[static_cast<std::size_t>(at)] = -1;
        }
    } else {
      std::sort(placed.begin(), placed.end());
    }
    std::vector<int> order;
    order.reserve(c.nodes.size());
    for (const auto& [at, node] : placed) order.push_back(node);
    order.insert(order.end(), later.begin(), later.end());
    single_nodes(order, e);
    return true;
  });
  if (!kept) return false;
  keep(keys, out);
  changed_ = changed;
  return true;
}

void KeptOrder::made(const NodeKeys& keys, const Elimination& e) {
  keep(keys, e);
  changed_ = 0;
}

void KeptOrder::columns_moved(const std::vector<int>& new_column) {
  NodeKeys moved;
  std::vector<int> place;
  for (std::size_t n = 0; n < keys_.shape.size(); ++n) {
    const std::size_t first = moved.cols.size();
    bool here = true;
    for (int c = keys_.col_start[n]; c < keys_.col_start[n + 1]; ++c) {
      const int col = keys_.cols[static_cast<std::size_t>(c)];
      const int to = col < static_cast<int>(new_column.size()) ? new_column[static_cast<std::size_t>(col)] : -1;
      here = here && to >= 0;
      moved.cols.push_back(to);
    }
    if (!here) {  // on a body taken out: gone with it
      moved.cols.resize(first);
      ++changed_;
      continue;
    }
    moved.shape.push_back(keys_.shape[n]);
    moved.col_start.push_back(static_cast<int>(moved.cols.size()));
    place.push_back(place_[n]);
  }
  keys_ = std::move(moved);
  place_ = std::move(place);
  signatures_ = signatures(keys_);
}

void KeptOrder::keep(const NodeKeys& keys, const Elimination& e) {
  keys_ = keys;
  signatures_ = signatures(keys);
  places_ = static_cast<int>(e.order.size());
  // The places of the nodes of fill-reducing orders (single mergeable
  // supernodes); a tree's nodes have none: trees are ordered afresh.
  place_.assign(keys.shape.size(), -1);
  for (std::size_t s = 0; s + 1 < e.super_start.size(); ++s)
    if (e.mergeable[s] && e.super_start[s + 1] - e.super_start[s] == 1)
      place_[static_cast<std::size_t>(e.order[static_cast<std::size_t>(e.super_start[s])])] = e.super_start[s];
}

}  // namespace linkage
