#include "tree_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "multifrontal.hpp"

namespace linkage {
namespace {

int find(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
  return x;
}

}  // namespace

bool TreeElimination::analyse(const std::vector<Body>& bodies, const std::vector<Node>& nodes) {
  nodes_ = nodes;
  bodies_ = bodies;
  fronts_.clear();
  front_nodes_.clear();
  children_.clear();
  front_rows_.clear();
  products_.clear();
  spans_.clear();
  links_.clear();
  planned_for_ = 0;
  part_items_.clear();
  top_items_.clear();
  body_part_.clear();
  const int nb = static_cast<int>(bodies.size());

  // The pairs of bodies joined by constraints (several constraints on one
  // pair are one edge) must form a forest.
  std::vector<std::pair<int, int>> pairs;
  for (const Node& n : nodes)
    if (n.body[0] >= 0 && n.body[1] >= 0) pairs.push_back(std::minmax(n.body[0], n.body[1]));
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<int> set(static_cast<std::size_t>(nb));
  std::iota(set.begin(), set.end(), 0);
  for (const auto& [a, b] : pairs) {
    const int ra = find(set, a), rb = find(set, b);
    if (ra == rb) return false;
    set[static_cast<std::size_t>(ra)] = rb;
  }

  // Each body's nodes.
  std::vector<int> start(static_cast<std::size_t>(nb) + 1, 0), list;
  for (const Node& n : nodes)
    for (int b : n.body)
      if (b >= 0) ++start[static_cast<std::size_t>(b) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  list.resize(static_cast<std::size_t>(start.back()));
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (int b : nodes[i].body)
      if (b >= 0) list[static_cast<std::size_t>(fill[static_cast<std::size_t>(b)]++)] = static_cast<int>(i);
  auto other = [&](const Node& n, int b) { return n.body[0] == b ? n.body[1] : n.body[0]; };

  // Each component's centre (the body peeled last when leaves are peeled
  // off round by round) is its root: the tree is then as shallow as it
  // gets, and its branches independent as long as possible.
  std::vector<int> degree(static_cast<std::size_t>(nb), 0), peeled, root_of(static_cast<std::size_t>(nb), -1);
  for (const auto& [a, b] : pairs) {
    ++degree[static_cast<std::size_t>(a)];
    ++degree[static_cast<std::size_t>(b)];
  }
  for (int b = 0; b < nb; ++b)
    if (degree[static_cast<std::size_t>(b)] <= 1) peeled.push_back(b);
  for (std::size_t i = 0; i < peeled.size(); ++i) {
    const int b = peeled[i];
    root_of[static_cast<std::size_t>(find(set, b))] = b;
    for (int x = start[static_cast<std::size_t>(b)]; x < start[static_cast<std::size_t>(b) + 1]; ++x) {
      const int o = other(nodes[static_cast<std::size_t>(list[static_cast<std::size_t>(x)])], b);
      // A neighbour left with one unpeeled neighbour is a leaf now (several
      // constraints on one pair count once: the pair is gone with the first).
      if (o < 0 || degree[static_cast<std::size_t>(o)] <= 1 || degree[static_cast<std::size_t>(b)] == 0) continue;
      --degree[static_cast<std::size_t>(b)];
      if (--degree[static_cast<std::size_t>(o)] == 1) peeled.push_back(o);
    }
  }

  // A depth-first search from each root gives each body its parent and a
  // post-order (children before parents).
  constexpr int kUnseen = -2;
  std::vector<int> parent(static_cast<std::size_t>(nb), kUnseen), order;
  std::vector<std::pair<int, int>> stack;  // (body, its next node in list)
  for (int first = 0; first < nb; ++first) {
    const int root = root_of[static_cast<std::size_t>(find(set, first))];
    if (parent[static_cast<std::size_t>(root)] != kUnseen) continue;
    parent[static_cast<std::size_t>(root)] = -1;
    stack.push_back({root, start[static_cast<std::size_t>(root)]});
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      if (next == start[static_cast<std::size_t>(b) + 1]) {
        order.push_back(b);
        stack.pop_back();
        continue;
      }
      const int o = other(nodes[static_cast<std::size_t>(list[static_cast<std::size_t>(next++)])], b);
      if (o < 0 || parent[static_cast<std::size_t>(o)] != kUnseen) continue;
      parent[static_cast<std::size_t>(o)] = b;
      stack.push_back({o, start[static_cast<std::size_t>(o)]});
    }
  }
  // Fronts by height (leaves first), still children before parents: the
  // elimination of one front waits on its children's, so fronts of one
  // height from different branches interleave and their latencies overlap
  // (a chain's links then go in a row, order_chains: its own kernel has
  // no such wait).
  std::vector<int> height(static_cast<std::size_t>(nb), 0);
  for (int b : order)
    if (parent[static_cast<std::size_t>(b)] >= 0)
      height[static_cast<std::size_t>(parent[static_cast<std::size_t>(b)])] =
          std::max(height[static_cast<std::size_t>(parent[static_cast<std::size_t>(b)])], height[static_cast<std::size_t>(b)] + 1);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return height[static_cast<std::size_t>(a)] < height[static_cast<std::size_t>(b)]; });

  // A front per body with constraints, in that order: its children's edges
  // (each child's update rows, in the child's order), then its constraints
  // to the world or to bodies that do not move, then its parent's edge.
  std::vector<std::vector<int>> child_fronts(static_cast<std::size_t>(nb));
  std::size_t panels = 0, updates = 0;
  for (int b : order) {
    Front f;
    f.body = b;
    f.nodes = static_cast<int>(front_nodes_.size());
    f.children = static_cast<int>(children_.size());
    f.rows = static_cast<int>(front_rows_.size());
    auto place = [&](int node) {
      const Node& n = nodes[static_cast<std::size_t>(node)];
      front_nodes_.push_back({node, f.size, n.rows, n.body[0] == b ? n.values[0] : n.values[1]});
      for (int r = 0; r < n.rows; ++r) front_rows_.push_back(n.row + r);
      f.size += n.rows;
    };
    for (int c : child_fronts[static_cast<std::size_t>(b)]) {
      const Front& child = fronts_[static_cast<std::size_t>(c)];
      children_.push_back({c, f.size, 0, 0});
      for (int x = child.nodes; x < child.nodes + child.node_count; ++x)
        if (other(nodes[static_cast<std::size_t>(front_nodes_[static_cast<std::size_t>(x)].node)], child.body) == b)
          place(front_nodes_[static_cast<std::size_t>(x)].node);
    }
    for (int x = start[static_cast<std::size_t>(b)]; x < start[static_cast<std::size_t>(b) + 1]; ++x)
      if (other(nodes[static_cast<std::size_t>(list[static_cast<std::size_t>(x)])], b) < 0) place(list[static_cast<std::size_t>(x)]);
    f.pivots = f.size;
    const int p = parent[static_cast<std::size_t>(b)];
    for (int x = start[static_cast<std::size_t>(b)]; x < start[static_cast<std::size_t>(b) + 1]; ++x)
      if (p >= 0 && other(nodes[static_cast<std::size_t>(list[static_cast<std::size_t>(x)])], b) == p) place(list[static_cast<std::size_t>(x)]);
    if (f.size > kMaxFront) {
      fronts_.clear();
      return false;
    }
    f.node_count = static_cast<int>(front_nodes_.size()) - f.nodes;
    f.child_count = static_cast<int>(children_.size()) - f.children;
    f.products = static_cast<int>(products_.size());
    const int dof = bodies[static_cast<std::size_t>(b)].dof;
    for (int x = f.nodes; x < f.nodes + f.node_count; ++x)
      for (int y = x; y < f.nodes + f.node_count; ++y) {
        const Place& pi = front_nodes_[static_cast<std::size_t>(x)];
        const Place& pj = front_nodes_[static_cast<std::size_t>(y)];
        for (int r = 0; r < pi.rows; ++r)
          for (int c = x == y ? r : 0; c < pj.rows; ++c)
            products_.push_back({pi.values + r * dof, pj.values + c * dof, (pi.at + r) * f.size + pj.at + c});
      }
    f.product_count = static_cast<int>(products_.size()) - f.products;
    if (f.size == 0) continue;  // a body no constraint holds
    f.panel = static_cast<int>(panels);
    panels += static_cast<std::size_t>(f.size * f.pivots);
    f.update = static_cast<int>(updates);
    updates += static_cast<std::size_t>((f.size - f.pivots) * (f.size - f.pivots));
    if (p >= 0) child_fronts[static_cast<std::size_t>(p)].push_back(static_cast<int>(fronts_.size()));
    fronts_.push_back(f);
  }
  order_chains();
  panels_.assign(panels, 0.0);
  updates_.assign(updates, 0.0);
  return true;
}

void TreeElimination::order_chains() {
  // A link (two rows, one pivot) whose parent is a link too continues a
  // chain; each chain goes where its first link was, its links in a row:
  // still children before parents (a chain's links wait on nothing outside
  // it but its first link's child, which comes before).
  const std::size_t nf = fronts_.size();
  auto link = [&](std::size_t i) { return fronts_[i].size == 2 && fronts_[i].pivots == 1; };
  std::vector<int> next(nf, -1);
  std::vector<char> continues(nf, 0);
  for (std::size_t i = 0; i < nf; ++i)
    for (int x = fronts_[i].children; x < fronts_[i].children + fronts_[i].child_count; ++x) {
      const auto child = static_cast<std::size_t>(children_[static_cast<std::size_t>(x)].node);
      if (!link(i) || !link(child)) continue;
      next[child] = static_cast<int>(i);
      continues[i] = 1;
    }
  std::vector<Front> ordered;
  std::vector<int> moved_to(nf);
  spans_.clear();
  links_.clear();
  for (std::size_t i = 0; i < nf; ++i) {
    if (continues[i]) continue;
    const bool chain = link(i);
    if (chain || spans_.empty() || spans_.back().chain)
      spans_.push_back({static_cast<int>(ordered.size()), 0, static_cast<int>(links_.size()), chain});
    for (int f = static_cast<int>(i); f >= 0; f = chain ? next[static_cast<std::size_t>(f)] : -1) {
      const Front& front = fronts_[static_cast<std::size_t>(f)];
      moved_to[static_cast<std::size_t>(f)] = static_cast<int>(ordered.size());
      ordered.push_back(front);
      ++spans_.back().count;
      if (!chain) continue;
      // Its products are (0, 0), (0, 1) and (1, 1): two blocks on its body.
      const Body& body = bodies_[static_cast<std::size_t>(front.body)];
      const int* rows = front_rows_.data() + front.rows;
      links_.push_back({products_[static_cast<std::size_t>(front.products)].i, products_[static_cast<std::size_t>(front.products) + 2].i,
                        body.offset, body.dof, rows[0], rows[1], front.panel});
    }
  }
  fronts_ = std::move(ordered);
  for (Place& c : children_) c.node = moved_to[static_cast<std::size_t>(c.node)];
  // Back-substitution partners: a chain and the chain before it, when only
  // fronts without pivots (nothing to back-substitute) lie between them.
  // The later chain's parent front has pivots (the edge from the chain
  // is one), so it comes after both.
  for (std::size_t i = spans_.size(); i-- > 0;) {
    if (!spans_[i].chain || spans_[i].partnered) continue;
    auto pivotless = [&](const Span& s) {
      return !s.chain && std::all_of(fronts_.begin() + s.first, fronts_.begin() + s.first + s.count, [](const Front& f) { return f.pivots == 0; });
    };
    std::size_t j = i;
    while (j > 0 && pivotless(spans_[j - 1])) --j;
    if (j > 0 && spans_[j - 1].chain && !spans_[j - 1].partnered) {
      spans_[i].partner = static_cast<int>(j - 1);
      spans_[j - 1].partnered = true;
    }
  }
}

bool TreeElimination::plan_parts(int threads) {
  if (threads == planned_for_) return parts() > 1;
  planned_for_ = threads;
  part_items_.clear();
  top_items_.clear();
  body_part_.assign(bodies_.size(), -1);
  for (int parts = threads; parts >= 2; --parts)
    if (split(parts)) return true;
  return false;
}

bool TreeElimination::split(int parts) {
  // Units: a chain (its links go together) or one other front; each
  // unit's parent, and its own work (a front's products, its elimination
  // and one for the visit: 6 a link).
  const std::size_t nf = fronts_.size();
  std::vector<int> unit_of(nf), parent_front(nf, -1);
  for (std::size_t f = 0; f < nf; ++f)
    for (int x = fronts_[f].children; x < fronts_[f].children + fronts_[f].child_count; ++x)
      parent_front[static_cast<std::size_t>(children_[static_cast<std::size_t>(x)].node)] = static_cast<int>(f);
  struct Unit {
    int span, first, count;
    double cost, subtree;
    int parent;
  };
  std::vector<Unit> units;
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    const Span& s = spans_[i];
    const int count = s.chain ? s.count : 1;
    for (int f = s.first; f < s.first + s.count; f += count) {
      double cost = 0.0;
      for (int g = f; g < f + count; ++g) {
        const Front& front = fronts_[static_cast<std::size_t>(g)];
        cost += front.product_count + front.size * front.pivots + 1;
        unit_of[static_cast<std::size_t>(g)] = static_cast<int>(units.size());
      }
      units.push_back({static_cast<int>(i), f, count, cost, 0.0, -1});
    }
  }
  double total = 0.0;
  for (Unit& u : units) {  // children before parents
    const int up = parent_front[static_cast<std::size_t>(u.first + u.count - 1)];
    u.parent = up < 0 ? -1 : unit_of[static_cast<std::size_t>(up)];
    u.subtree += u.cost;
    total += u.cost;
    if (u.parent >= 0) units[static_cast<std::size_t>(u.parent)].subtree += u.subtree;
  }
  if (total < kParallelWork) return false;
  std::vector<std::vector<int>> children(units.size());
  std::vector<int> roots;
  for (std::size_t u = 0; u < units.size(); ++u)
    (units[u].parent < 0 ? roots : children[static_cast<std::size_t>(units[u].parent)]).push_back(static_cast<int>(u));
  // The subtrees under a top of their ancestors, dealt to the parts by
  // their work (the largest first, each to the lightest part); the top
  // takes the largest subtree's root until the parts balance.
  std::vector<char> top(units.size(), 0);
  std::vector<int> dealt(units.size(), -1);
  double top_cost = 0.0;
  for (;;) {
    std::sort(roots.begin(), roots.end(), [&](int a, int b) {
      const double wa = units[static_cast<std::size_t>(a)].subtree, wb = units[static_cast<std::size_t>(b)].subtree;
      return wa > wb || (wa == wb && a < b);
    });
    std::vector<double> load(static_cast<std::size_t>(parts), 0.0);
    for (int r : roots) {
      const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[lightest] += units[static_cast<std::size_t>(r)].subtree;
      dealt[static_cast<std::size_t>(r)] = static_cast<int>(lightest);
    }
    if (*std::max_element(load.begin(), load.end()) <= kBalance * (total - top_cost) / parts) break;
    const int grow = roots.front();
    top_cost += units[static_cast<std::size_t>(grow)].cost;
    if (children[static_cast<std::size_t>(grow)].empty() || top_cost > kTopShare * total) return false;
    top[static_cast<std::size_t>(grow)] = 1;
    roots.erase(roots.begin());
    roots.insert(roots.end(), children[static_cast<std::size_t>(grow)].begin(), children[static_cast<std::size_t>(grow)].end());
  }
  // Each unit's part: its subtree root's (parents before children), and
  // the runs of a span's fronts in one part, in the fronts' order.
  std::vector<int> part(units.size(), -1);
  for (std::size_t u = units.size(); u-- > 0;) {
    if (top[u]) continue;
    const int up = units[u].parent;
    part[u] = up >= 0 && !top[static_cast<std::size_t>(up)] ? part[static_cast<std::size_t>(up)] : dealt[u];
  }
  part_items_.assign(static_cast<std::size_t>(parts), {});
  part_dependent_.assign(static_cast<std::size_t>(parts), 0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    std::vector<Item>& items = part[u] < 0 ? top_items_ : part_items_[static_cast<std::size_t>(part[u])];
    if (!items.empty() && items.back().span == unit.span && !spans_[static_cast<std::size_t>(unit.span)].chain &&
        items.back().first + items.back().count == unit.first) {
      items.back().count += unit.count;
    } else {
      items.push_back({unit.span, unit.first, unit.count});
    }
    for (int f = unit.first; f < unit.first + unit.count; ++f)
      body_part_[static_cast<std::size_t>(fronts_[static_cast<std::size_t>(f)].body)] = part[u];
  }
  lay_out_by_part();
  return true;
}

void TreeElimination::lay_out_by_part() {
  std::size_t panels = 0, updates = 0;
  auto place = [&](const std::vector<Item>& items) {
    for (const Item& item : items)
      for (Front *f = fronts_.data() + item.first, *end = f + item.count; f != end; ++f) {
        f->panel = static_cast<int>(panels);
        panels += static_cast<std::size_t>(f->size * f->pivots);
        f->update = static_cast<int>(updates);
        updates += static_cast<std::size_t>((f->size - f->pivots) * (f->size - f->pivots));
      }
    // At least a cache line (8 values) before the next part's.
    panels = (panels + 15) / 8 * 8;
    updates = (updates + 15) / 8 * 8;
  };
  for (const std::vector<Item>& items : part_items_) place(items);
  place(top_items_);
  for (const Span& s : spans_)
    if (s.chain)
      for (int k = 0; k < s.count; ++k)
        links_[static_cast<std::size_t>(s.link + k)].panel = fronts_[static_cast<std::size_t>(s.first + k)].panel;
  panels_.assign(panels, 0.0);
  updates_.assign(updates, 0.0);
}

void TreeElimination::factor(const double* J, const double* w, const char* skip, const double* diag, double* y,
                             double dependent_pivot) {
  Pivots pivots{dependent_pivot};
  for (std::size_t i = 0; i < spans_.size(); ++i)
    factor_item({static_cast<int>(i), spans_[i].first, spans_[i].count}, J, w, skip, diag, y, pivots);
  dependent_ = pivots.dependent;
}

void TreeElimination::factor_part(int part, const double* J, const double* w, const char* skip, const double* diag, double* y,
                                  double dependent_pivot) {
  Pivots pivots{dependent_pivot};
  for (const Item& item : part_items_[static_cast<std::size_t>(part)]) factor_item(item, J, w, skip, diag, y, pivots);
  part_dependent_[static_cast<std::size_t>(part)] = pivots.dependent;
}

void TreeElimination::factor_top(const double* J, const double* w, const char* skip, const double* diag, double* y,
                                 double dependent_pivot) {
  Pivots pivots{dependent_pivot};
  for (const Item& item : top_items_) factor_item(item, J, w, skip, diag, y, pivots);
  dependent_ = pivots.dependent;
  for (int d : part_dependent_) dependent_ += d;
}

void TreeElimination::factor_item(const Item& item, const double* J, const double* w, const char* skip, const double* diag,
                                  double* y, Pivots& pivots) {
  const Span& s = spans_[static_cast<std::size_t>(item.span)];
  if (s.chain) {
    factor_chain(s, J, w, skip, diag, y, pivots);
    return;
  }
  for (const Front *f = fronts_.data() + item.first, *end = f + item.count; f != end; ++f) {
    // Most other fronts of a tree are tiny: their shape as constants lets
    // the compiler unroll every loop.
    switch (f->size * 8 + f->pivots) {
      case 1 * 8 + 0: factor_front<1, 0>(*f, J, w, skip, diag, y, pivots); break;
      case 1 * 8 + 1: factor_front<1, 1>(*f, J, w, skip, diag, y, pivots); break;
      case 2 * 8 + 0: factor_front<2, 0>(*f, J, w, skip, diag, y, pivots); break;
      case 2 * 8 + 2: factor_front<2, 2>(*f, J, w, skip, diag, y, pivots); break;
      case 3 * 8 + 1: factor_front<3, 1>(*f, J, w, skip, diag, y, pivots); break;
      case 3 * 8 + 2: factor_front<3, 2>(*f, J, w, skip, diag, y, pivots); break;
      case 3 * 8 + 3: factor_front<3, 3>(*f, J, w, skip, diag, y, pivots); break;
      case 4 * 8 + 2: factor_front<4, 2>(*f, J, w, skip, diag, y, pivots); break;
      case 4 * 8 + 4: factor_front<4, 4>(*f, J, w, skip, diag, y, pivots); break;
      default: factor_front<0, 0>(*f, J, w, skip, diag, y, pivots);
    }
  }
}

void TreeElimination::factor_chain(const Span& s, const double* J, const double* w, const char* skip, const double* diag,
                                   double* y, Pivots& pivots) {
  // The chain's K is tridiagonal: link k's pivot row has A_k = k0_k + k2_{k−1}
  // on the diagonal (its products through this body and the one before) and
  // b_k = k1_{k−1} beside it; LDLᵀ's pivots are d_k = A_k − b_k² / d_{k−1}.
  // Written so, each link's division waits on the one before (a chain's
  // whole time). Instead, two recurrences without a division in them:
  // - continuants, P_k = A_k P_{k−1} − b_k² P_{k−2}, whose ratios are the
  //   pivots: g_k = P_{k−1} / P_k ≈ 1 / d_k, divided off the critical path
  //   (P grows or shrinks by d_k a link: it is rescaled by a power of two,
  //   exactly, when it leaves [2⁻⁶⁰⁰, 2⁶⁰⁰]);
  // - the pivots themselves, with 1 / d_{k−1} taken as one Newton step from
  //   g_{k−1}, g (2 − d g): d_k = (A_k − 2 b_k² g) + b_k² g² d_{k−1}, one
  //   multiplication and one addition from link to link.
  // The continuants alone drift on a taut chain (P nearly constant, its
  // roundings alike from link to link: ten times LDLᵀ's error); the Newton
  // step squares their relative error e = 1 − d g away, so that the pivots
  // are LDLᵀ's to its own rounding (tree_elimination_test). e stays far
  // below 1e-7: a pivot kept is over kDependentPivot of its row's
  // diagonal, which bounds the cancellation either recurrence suffers to
  // 1e8 roundings, and e² is then under the rounding. (A strict
  // factorization keeps pivots down to kStrictPivot: e up to about 1e-4,
  // the pivots good to 1e-8, enough for the stalled Newton step that asks
  // for it.) A dropped pivot (a skipped or dependent row) couples nothing
  // to the next link: both recurrences start afresh.
  constexpr double kHuge = 0x1p600, kTiny = 0x1p-600;
  const Front& first = fronts_[static_cast<std::size_t>(s.first)];
  double carry = 0.0;  // k2 of the link before (the first's: its child's update)
  if (first.child_count) carry = updates_[static_cast<std::size_t>(fronts_[static_cast<std::size_t>(children_[static_cast<std::size_t>(first.children)].node)].update)];
  double p1 = 1.0, p2 = 0.0;  // P_{k−1}, P_{k−2}, scaled alike
  double c = 0.0;             // b_k², 0 after a dropped pivot
  double g = 0.0, d1 = 0.0;   // g_{k−1} and d_{k−1} (0 after a dropped pivot)
  double inv = 0.0;           // the last pivot's 1 / d
  const Link* link = links_.data() + s.link;
  double yc = y[link->row0];  // the pivot row's y, the link before's forward substitution in
  for (const Link* end = link + s.count; link != end; ++link) {
    // The link's products (0, 0), (0, 1) and (1, 1) as factor_front sums
    // them, here in the loop: a call would spill the recurrences' registers.
    const double* wb = w + link->offset;
    const double* u = J + link->pivot;
    const double* v = J + link->parent;
    double k[3] = {u[0] * wb[0] * u[0] + u[1] * wb[1] * u[1], v[0] * wb[0] * u[0] + v[1] * wb[1] * u[1],
                   v[0] * wb[0] * v[0] + v[1] * wb[1] * v[1]};
    if (link->dof == 3) {
      k[0] += u[2] * wb[2] * u[2];
      k[1] += v[2] * wb[2] * u[2];
      k[2] += v[2] * wb[2] * v[2];
    }
    const int rows[2] = {link->row0, link->row1};
    double* panel = panels_.data() + link->panel;
    const double a = k[0] + carry;
    const double p = a * p1 - c * p2;
    const double cg = c * g;
    const double d = (a - 2.0 * cg) + cg * g * d1;
    const double y1 = y[rows[1]];
    carry = k[2];
    if (skip[rows[0]] || !(d > pivots.threshold * diag[rows[0]])) {
      if (!skip[rows[0]]) ++pivots.dependent;
      panel[0] = panel[1] = 0.0;
      y[rows[0]] = 0.0;
      yc = y1;
      c = g = d1 = inv = 0.0;
      continue;
    }
    g = p1 / p;
    inv = g + g * (1.0 - d * g);  // g (2 − d g)
    p2 = p1;
    p1 = p;
    if (!(p1 < kHuge && p1 > kTiny)) {
      int x = 0;
      std::frexp(p1, &x);
      p1 = std::ldexp(p1, -x);
      p2 = std::ldexp(p2, -x);
    }
    const double l = k[1] * inv;
    panel[0] = inv;
    panel[1] = l;
    y[rows[0]] = yc * inv;
    yc = y1 - l * yc;
    c = k[1] * k[1];
    d1 = d;
  }
  y[link[-1].row1] = yc;
  updates_[static_cast<std::size_t>(fronts_[static_cast<std::size_t>(s.first + s.count - 1)].update)] = carry - c * inv;
}

template <int N, int P>
void TreeElimination::factor_front(const Front& f, const double* J, const double* w, const char* skip,
                                   const double* diag, double* y, Pivots& pivots) {
  const int n = N > 0 ? N : f.size, p = N > 0 ? P : f.pivots;
  double F[N > 0 ? N * N : kMaxFront * kMaxFront];  // column-major; the lower triangle is used
  std::fill(F, F + n * n, 0.0);
  double yf[N > 0 ? N : kMaxFront];
  const int* rows = front_rows_.data() + f.rows;
  for (int x = 0; x < n; ++x) yf[x] = y[rows[x]];
  const double* wb = w + bodies_[static_cast<std::size_t>(f.body)].offset;
  const bool three = bodies_[static_cast<std::size_t>(f.body)].dof == 3;  // else 2
  // K's entries through this body: B_j W B_iᵀ for every two blocks on it.
  const Product* products = products_.data() + f.products;
  for (int x = 0; x < f.product_count; ++x) {
    const double* ri = J + products[x].i;
    const double* rj = J + products[x].j;
    double sum = rj[0] * wb[0] * ri[0] + rj[1] * wb[1] * ri[1];
    if (three) sum += rj[2] * wb[2] * ri[2];
    F[products[x].dest] += sum;
  }
  // What the children left on their edges to this body.
  for (int x = f.children; x < f.children + f.child_count; ++x) {
    const Place& ch = children_[static_cast<std::size_t>(x)];
    const Front& c = fronts_[static_cast<std::size_t>(ch.node)];
    const int nu = c.size - c.pivots;
    const double* u = updates_.data() + c.update;
    for (int cc = 0; cc < nu; ++cc)
      for (int rr = cc; rr < nu; ++rr) F[(ch.at + cc) * n + ch.at + rr] += u[cc * nu + rr];
  }

  // LDLᵀ of the pivots, and the forward substitution with it; a skipped or
  // dependent row is out (its column dropped, λ = 0).
  double* panel = panels_.data() + f.panel;
  for (int c = 0; c < p; ++c) {
    double* col = F + c * n;
    const int row = rows[c];
    const double d = col[c];
    if (skip[row] || !(d > pivots.threshold * diag[row])) {
      if (!skip[row]) ++pivots.dependent;
      for (int r = c; r < n; ++r) col[r] = 0.0;
      yf[c] = 0.0;
      continue;
    }
    const double inv = 1.0 / d;
    col[c] = inv;
    for (int j = c + 1; j < n; ++j) {
      // (F_rc F_jc) / d: the product does not wait for the division, which
      // waits on the children's updates (a chain's critical path).
      const double cj = col[j];
      double* to = F + j * n;
      for (int r = j; r < n; ++r) to[r] -= col[r] * cj * inv;
    }
    const double yc = yf[c];
    for (int r = c + 1; r < n; ++r) {
      col[r] *= inv;
      yf[r] -= col[r] * yc;
    }
    yf[c] = yc * inv;
  }
  for (int x = 0; x < n * p; ++x) panel[x] = F[x];
  const int nu = n - p;
  double* update = updates_.data() + f.update;
  for (int cc = 0; cc < nu; ++cc)
    for (int rr = cc; rr < nu; ++rr) update[cc * nu + rr] = F[(p + cc) * n + p + rr];
  for (int x = 0; x < n; ++x) y[rows[x]] = yf[x];
}

void TreeElimination::back_substitute(double* y) const {
  for (std::size_t i = spans_.size(); i-- > 0;) {
    const Span& s = spans_[i];
    if (s.chain) {
      if (s.partner >= 0) {
        back_chains(s, spans_[static_cast<std::size_t>(s.partner)], y);
      } else if (!s.partnered) {
        back_chain(s, y);
      }
      continue;
    }
    back_item({static_cast<int>(i), s.first, s.count}, y);
  }
}

void TreeElimination::back_top(double* y) const {
  for (auto item = top_items_.rbegin(); item != top_items_.rend(); ++item) back_item(*item, y);
}

void TreeElimination::back_part(int part, double* y) const {
  const std::vector<Item>& items = part_items_[static_cast<std::size_t>(part)];
  for (auto item = items.rbegin(); item != items.rend(); ++item) back_item(*item, y);
}

void TreeElimination::back_item(const Item& item, double* y) const {
  const Span& s = spans_[static_cast<std::size_t>(item.span)];
  if (s.chain) {
    back_chain(s, y);
    return;
  }
  const Front* first = fronts_.data() + item.first;
  for (const Front* f = first + item.count; f-- != first;) {
    switch (f->size * 8 + f->pivots) {  // as factor's
      case 1 * 8 + 0: case 2 * 8 + 0: break;  // no pivots
      case 1 * 8 + 1: back_front<1, 1>(*f, y); break;
      case 2 * 8 + 2: back_front<2, 2>(*f, y); break;
      default: back_front<0, 0>(*f, y);
    }
  }
}

void TreeElimination::solve(double* y) const {
  for (const Span& s : spans_) {
    const Front* f = fronts_.data() + s.first;
    if (s.chain) {
      forward_chain(s, y);
      continue;
    }
    for (const Front* end = f + s.count; f != end; ++f) {
      switch (f->size * 8 + f->pivots) {  // as factor's
        case 1 * 8 + 0: case 2 * 8 + 0: break;  // no pivots
        case 1 * 8 + 1: forward_front<1, 1>(*f, y); break;
        case 2 * 8 + 2: forward_front<2, 2>(*f, y); break;
        default: forward_front<0, 0>(*f, y);
      }
    }
  }
  back_substitute(y);
}

void TreeElimination::forward_chain(const Span& s, double* y) const {
  // factor_chain's forward substitution, with its operations: each link's
  // y carried to the next in a register.
  const Link* link = links_.data() + s.link;
  double yc = y[link->row0];
  for (const Link* end = link + s.count; link != end; ++link) {
    const double* panel = panels_.data() + link->panel;
    const double y1 = y[link->row1];
    if (panel[0] == 0.0) {  // a row out
      y[link->row0] = 0.0;
      yc = y1;
      continue;
    }
    y[link->row0] = yc * panel[0];
    yc = y1 - panel[1] * yc;
  }
  y[link[-1].row1] = yc;
}

void TreeElimination::back_chain(const Span& s, double* y) const {
  // From the last link to the first, each link's parent row's λ carried in
  // a register.
  const Link* first = links_.data() + s.link;
  double yc = y[first[s.count - 1].row1];
  for (const Link* link = first + s.count; link-- != first;) {
    yc = y[link->row0] - panels_[static_cast<std::size_t>(link->panel) + 1] * yc;
    y[link->row0] = yc;
  }
}

void TreeElimination::back_chains(const Span& a, const Span& b, double* y) const {
  // Two chains side by side (a chain's parent front is never another
  // chain's link, so neither reads what the other writes; order_chains
  // pairs them): each link's
  // back-substitution waits on the one above it, a multiplication and a
  // subtraction, and two chains' recurrences overlap where one would wait.
  // The same operations on each chain as back_chain's.
  const Link* fa = links_.data() + a.link;
  const Link* fb = links_.data() + b.link;
  double ya = y[fa[a.count - 1].row1], yb = y[fb[b.count - 1].row1];
  const Link* la = fa + a.count;
  const Link* lb = fb + b.count;
  for (; la != fa && lb != fb;) {
    --la;
    --lb;
    ya = y[la->row0] - panels_[static_cast<std::size_t>(la->panel) + 1] * ya;
    yb = y[lb->row0] - panels_[static_cast<std::size_t>(lb->panel) + 1] * yb;
    y[la->row0] = ya;
    y[lb->row0] = yb;
  }
  for (; la != fa;) {
    --la;
    ya = y[la->row0] - panels_[static_cast<std::size_t>(la->panel) + 1] * ya;
    y[la->row0] = ya;
  }
  for (; lb != fb;) {
    --lb;
    yb = y[lb->row0] - panels_[static_cast<std::size_t>(lb->panel) + 1] * yb;
    y[lb->row0] = yb;
  }
}

template <int N, int P>
void TreeElimination::forward_front(const Front& f, double* y) const {
  // factor's forward substitution, in its order and with its operations.
  const int n = N > 0 ? N : f.size, p = N > 0 ? P : f.pivots;
  const int* rows = front_rows_.data() + f.rows;
  double yf[N > 0 ? N : kMaxFront];
  for (int x = 0; x < n; ++x) yf[x] = y[rows[x]];
  const double* panel = panels_.data() + f.panel;
  for (int c = 0; c < p; ++c) {
    const double* col = panel + c * n;
    const double inv = col[c];
    if (inv == 0.0) {  // a row out
      yf[c] = 0.0;
      continue;
    }
    const double yc = yf[c];
    for (int r = c + 1; r < n; ++r) yf[r] -= col[r] * yc;
    yf[c] = yc * inv;
  }
  for (int x = 0; x < n; ++x) y[rows[x]] = yf[x];
}

template <int N, int P>
void TreeElimination::back_front(const Front& f, double* y) const {
  const int n = N > 0 ? N : f.size, p = N > 0 ? P : f.pivots;
  const int* rows = front_rows_.data() + f.rows;
  double yf[N > 0 ? N : kMaxFront];
  for (int x = p; x < n; ++x) yf[x] = y[rows[x]];
  const double* panel = panels_.data() + f.panel;
  for (int c = p - 1; c >= 0; --c) {
    const double* col = panel + c * n;
    double acc = y[rows[c]];
    for (int r = c + 1; r < n; ++r) acc -= col[r] * yf[r];
    yf[c] = acc;
    y[rows[c]] = acc;
  }
}

}  // namespace linkage
