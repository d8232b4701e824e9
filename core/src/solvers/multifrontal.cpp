// The numeric multifrontal LDLᵀ: fronts assembled from J's blocks and the
// children's update matrices, partially factored, their L kept as panels.
#include "multifrontal.hpp"

#include <algorithm>

#include <Eigen/Dense>

namespace linkage {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Fronts with at least this many pivots are factored by blocks (a
// triangular solve and a rank-p update through Eigen's dense kernels); the
// many small ones by loops of their own (update_block).
constexpr int kBlockedPivots = 8;
// Fronts of at most this many rows are zeroed in one pass over their n²
// entries: the upper triangle is not read, but n short fills cost more.
constexpr int kWholeZero = 32;
// How many subtrees the split between threads opens, at most, looking for
// the best balance (each opening moves one front to the top).
constexpr int kSplitOpenings = 64;

// Lays out the fronts of one region (the supernodes one thread factors, in
// that order) as a stack from `base` into `pool`, and returns the region's
// end. A front goes on top; its update then takes the place of its
// children's in the region when they are the stack's last entries (as they
// are in a post-order), else its front's first values.
std::size_t lay_out(const FrontPlan& plan, const std::vector<int>& order, std::size_t base, FrontPool& pool,
                    std::vector<char>& here) {
  struct Entry {
    int super;
    std::size_t at;
  };
  std::vector<Entry> stack;
  std::size_t top = base, end = base;
  for (int s : order) here[static_cast<std::size_t>(s)] = 1;
  for (int s : order) {
    const FrontPlan::Super& f = plan.supers[static_cast<std::size_t>(s)];
    std::size_t mine = 0;  // its children in this region
    for (int x = f.children; x < f.children + f.child_count; ++x)
      mine += static_cast<std::size_t>(here[static_cast<std::size_t>(plan.children[static_cast<std::size_t>(x)])]);
    bool on_top = mine > 0 && mine <= stack.size();
    for (std::size_t e = stack.size() - (on_top ? mine : 0); on_top && e < stack.size(); ++e) {
      const FrontPlan::Super& c = plan.supers[static_cast<std::size_t>(stack[e].super)];
      on_top = c.parent == s;
    }
    const std::size_t size = static_cast<std::size_t>(f.size), updates = size - static_cast<std::size_t>(f.pivots);
    pool.front[static_cast<std::size_t>(s)] = top;
    end = std::max(end, top + size * size);
    std::size_t at = top;
    if (on_top) {
      at = stack[stack.size() - mine].at;
      stack.resize(stack.size() - mine);
    }
    pool.update[static_cast<std::size_t>(s)] = at;
    stack.push_back({s, at});
    top = at + updates * updates;
  }
  for (int s : order) here[static_cast<std::size_t>(s)] = 0;
  return end;
}

// F22 −= (L21 D) L21ᵀ for a front of P pivots (0: any), the lower
// triangle, one column at a time: each entry takes the pivots' terms in
// pivot order, as the pivot loop would have given them one by one. L21 D
// is the pivot columns' update rows, still in the front; L21 is the panel's.
template <int P>
void update_block_of(double* f, int n, int pivots, const double* l21) {
  const int p = P > 0 ? P : pivots, nu = n - p;
  for (int j = 0; j < nu; ++j) {
    const double* lj = l21 + j * p;
    double* to = f + (p + j) * n + p;
    for (int r = j; r < nu; ++r) {
      double t = to[r];
      for (int c = 0; c < p; ++c) t -= f[c * n + p + r] * lj[c];
      to[r] = t;
    }
  }
}

void update_block(double* f, int n, int p, const double* l21) {
  switch (p) {
    case 1: return update_block_of<1>(f, n, p, l21);
    case 2: return update_block_of<2>(f, n, p, l21);
    case 3: return update_block_of<3>(f, n, p, l21);
    case 4: return update_block_of<4>(f, n, p, l21);
    case 5: return update_block_of<5>(f, n, p, l21);
    case 6: return update_block_of<6>(f, n, p, l21);
    case 7: return update_block_of<7>(f, n, p, l21);
    default: return update_block_of<0>(f, n, p, l21);
  }
}

// Regions start on a cache line of their own.
std::size_t line_up(std::size_t at) { return (at + 7) / 8 * 8; }

}  // namespace

MultifrontalLdlt::MultifrontalLdlt(const MultifrontalLdlt& o)
    : graph_(o.graph_),
      elimination_(o.elimination_),
      kept_order_(o.kept_order_),
      plan_(o.plan_),
      analysed_(o.analysed_),
      panels_(o.panels_),
      serial_pool_(o.serial_pool_),
      inverse_pivot_(o.inverse_pivot_),
      dependent_(o.dependent_) {}

MultifrontalLdlt& MultifrontalLdlt::operator=(const MultifrontalLdlt& o) {
  if (this != &o) *this = MultifrontalLdlt(o);
  return *this;
}

void MultifrontalLdlt::analyse(const BlockJacobian& J, const std::vector<char>& removed, std::size_t max_fill) {
  split_ = {};
  graph_ = build_constraint_graph(J, removed);
  const NodeKeys keys = node_keys(J, graph_);
  if (has_large_loops(graph_) && kept_order_.follow(graph_, keys, elimination_)) {
    plan_ = analyse_fronts(J, graph_, elimination_, max_fill);
  } else {
    elimination_ = plan_elimination(graph_, false);
    plan_ = analyse_fronts(J, graph_, elimination_, max_fill);
    if (has_large_loops(graph_)) {
      // Minimum degree or nested dissection, whichever factors in fewer
      // operations (and fits).
      Elimination nested = plan_elimination(graph_, true);
      FrontPlan plan = analyse_fronts(J, graph_, nested, max_fill);
      if (!plan.over_budget && (plan_.over_budget || plan.factor_flops < plan_.factor_flops)) {
        elimination_ = std::move(nested);
        plan_ = std::move(plan);
      }
    }
    kept_order_.made(keys, elimination_);
  }
  analysed_ = true;
  dependent_.clear();
  fronts_ = {};  // the last plan's may be far larger (joint_grid's before its dependent rows are out)
  if (plan_.over_budget) {  // not to be factored: hold none of its memory
    panels_ = {};
    serial_pool_ = {};
    inverse_pivot_ = {};
    return;
  }
  panels_.assign(plan_.panel_values, 0.0);
  const std::size_t supers = plan_.supers.size();
  serial_pool_ = FrontPool{std::vector<std::size_t>(supers), std::vector<std::size_t>(supers), 0};
  std::vector<int> order(supers);
  for (std::size_t s = 0; s < supers; ++s) order[s] = static_cast<int>(s);
  std::vector<char> here(supers, 0);
  serial_pool_.values = lay_out(plan_, order, 0, serial_pool_, here);
  inverse_pivot_.assign(plan_.perm.size(), 0.0);
}

const MultifrontalLdlt::Split& MultifrontalLdlt::split_for(int parts) {
  if (split_.parts == parts) return split_;
  Split sp;
  sp.parts = parts;
  const int n = static_cast<int>(plan_.supers.size());
  // Each subtree's work, and its first supernode (post-order: a subtree is
  // the range [first, root]).
  auto own = [&](int s) {
    const FrontPlan::Super& f = plan_.supers[static_cast<std::size_t>(s)];
    return 64.0 + static_cast<double>(f.pivots) * f.size * f.size;
  };
  std::vector<double> work(static_cast<std::size_t>(n));
  std::vector<int> first(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const FrontPlan::Super& f = plan_.supers[static_cast<std::size_t>(s)];
    double w = own(s);
    first[static_cast<std::size_t>(s)] = s;
    for (int x = f.children; x < f.children + f.child_count; ++x) {
      const int c = plan_.children[static_cast<std::size_t>(x)];
      w += work[static_cast<std::size_t>(c)];
      first[static_cast<std::size_t>(s)] = std::min(first[static_cast<std::size_t>(s)], first[static_cast<std::size_t>(c)]);
    }
    work[static_cast<std::size_t>(s)] = w;
  }
  // Open the heaviest subtree (its root goes to the top, factored by one
  // thread, its children become subtrees) again and again, and keep the
  // opening whose time is least: the heaviest part, each subtree given to the
  // least loaded part (heaviest first), plus the top. Opening more balances
  // the parts better and puts more into the top.
  auto heavier = [&](int a, int b) {
    return work[static_cast<std::size_t>(a)] != work[static_cast<std::size_t>(b)] ? work[static_cast<std::size_t>(a)] > work[static_cast<std::size_t>(b)] : a < b;
  };
  auto assign = [&](std::vector<int>& open, std::vector<std::vector<std::pair<int, int>>>* ranges) {
    std::sort(open.begin(), open.end(), heavier);
    std::vector<double> load(static_cast<std::size_t>(parts), 0.0);
    for (int s : open) {
      const std::size_t p = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[p] += work[static_cast<std::size_t>(s)];
      if (ranges) (*ranges)[p].push_back({first[static_cast<std::size_t>(s)], s});
    }
    return *std::max_element(load.begin(), load.end());
  };
  std::vector<int> open;
  for (int s = 0; s < n; ++s)
    if (plan_.supers[static_cast<std::size_t>(s)].parent < 0) open.push_back(s);
  std::vector<int> top, best_open = open;
  double top_work = 0.0, best = assign(open, nullptr);
  std::size_t best_top = 0;
  for (int opened = 0; opened < kSplitOpenings && !open.empty(); ++opened) {
    const int heaviest = open.front();  // `assign` sorted them
    const FrontPlan::Super& h = plan_.supers[static_cast<std::size_t>(heaviest)];
    if (h.child_count == 0) break;
    open.erase(open.begin());
    top.push_back(heaviest);
    top_work += own(heaviest);
    for (int x = h.children; x < h.children + h.child_count; ++x) open.push_back(plan_.children[static_cast<std::size_t>(x)]);
    const double time = assign(open, nullptr) + top_work;
    if (time < best) {
      best = time;
      best_open = open;
      best_top = top.size();
    }
  }
  sp.top.assign(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(best_top));
  sp.ranges.assign(static_cast<std::size_t>(parts), {});
  assign(best_open, &sp.ranges);
  sp.owner.assign(plan_.perm.size(), -1);
  for (int p = 0; p < parts; ++p) {
    std::sort(sp.ranges[static_cast<std::size_t>(p)].begin(), sp.ranges[static_cast<std::size_t>(p)].end());
    for (const auto& [lo, hi] : sp.ranges[static_cast<std::size_t>(p)])
      for (int s = lo; s <= hi; ++s) {
        const FrontPlan::Super& f = plan_.supers[static_cast<std::size_t>(s)];
        for (int c = 0; c < f.pivots; ++c) sp.owner[static_cast<std::size_t>(f.first + c)] = p;
      }
  }
  std::sort(sp.top.begin(), sp.top.end());
  sp.pool = FrontPool{std::vector<std::size_t>(static_cast<std::size_t>(n)), std::vector<std::size_t>(static_cast<std::size_t>(n)), 0};
  std::vector<char> here(static_cast<std::size_t>(n), 0);
  for (const auto& ranges : sp.ranges) {
    std::vector<int> order;
    for (const auto& [lo, hi] : ranges)
      for (int s = lo; s <= hi; ++s) order.push_back(s);
    sp.pool.values = line_up(lay_out(plan_, order, sp.pool.values, sp.pool, here));
  }
  sp.pool.values = lay_out(plan_, sp.top, sp.pool.values, sp.pool, here);
  split_ = std::move(sp);
  return split_;
}

void MultifrontalLdlt::factor(const SystemView& k, const Parallel& parallel, double dependent_pivot) {
  dependent_pivot_ = dependent_pivot;
  any_held_ = std::find(k.held.begin(), k.held.end(), 1) != k.held.end();
  const std::size_t scales = static_cast<std::size_t>(plan_.max_size);  // a front's pivots, at most
  pivot_scale_.resize(scales);
  dependent_.clear();
  const int parts = std::min(parallel.count, static_cast<int>(plan_.supers.size()));
  pool_ = parts <= 1 ? &serial_pool_ : &split_for(parts).pool;
  if (fronts_.size() < pool_->values) fronts_.resize(pool_->values);
  if (parts <= 1) {
    for (int s = 0; s < static_cast<int>(plan_.supers.size()); ++s) factor_front(s, k, pivot_scale_.data(), dependent_);
  } else {
    const Split& sp = split_for(parts);
    part_pivot_scale_.resize(static_cast<std::size_t>(parts));
    part_dependent_.resize(static_cast<std::size_t>(parts));
    parallel.for_parts(parts, [&](int p, int) {
      std::vector<double>& mine = part_pivot_scale_[static_cast<std::size_t>(p)];
      mine.resize(scales);
      std::vector<int>& dependent = part_dependent_[static_cast<std::size_t>(p)];
      dependent.clear();
      for (const auto& [lo, hi] : sp.ranges[static_cast<std::size_t>(p)])
        for (int s = lo; s <= hi; ++s) factor_front(s, k, mine.data(), dependent);
    });
    for (int s : sp.top) factor_front(s, k, pivot_scale_.data(), dependent_);
    for (const std::vector<int>& d : part_dependent_) dependent_.insert(dependent_.end(), d.begin(), d.end());
  }
  std::sort(dependent_.begin(), dependent_.end());
}

void MultifrontalLdlt::factor_front(int si, const SystemView& k, double* pivot_scale, std::vector<int>& dependent) {
  // Most fronts of a tree are tiny (a chain's hold two rows): their size as a
  // constant lets the compiler unroll every loop below.
  switch (plan_.supers[static_cast<std::size_t>(si)].size) {
    case 1: return factor_front<1>(si, k, pivot_scale, dependent);
    case 2: return factor_front<2>(si, k, pivot_scale, dependent);
    case 3: return factor_front<3>(si, k, pivot_scale, dependent);
    case 4: return factor_front<4>(si, k, pivot_scale, dependent);
    default: return factor_front<0>(si, k, pivot_scale, dependent);
  }
}

template <int N>
void MultifrontalLdlt::factor_front(int si, const SystemView& k, double* pivot_scale, std::vector<int>& dependent) {
  const FrontPlan::Super& s = plan_.supers[static_cast<std::size_t>(si)];
  const int n = N > 0 ? N : s.size, p = s.pivots;
  const int* index = plan_.index.data() + s.index;
  double* f = fronts_.data() + pool_->front[static_cast<std::size_t>(si)];
  // Only the lower triangle is assembled and read (the solves read L below
  // its diagonal): a small front is zeroed whole, at once, a large one
  // column by column below its diagonal.
  if (n <= kWholeZero) {
    std::fill(f, f + n * n, 0.0);
  } else {
    for (int c = 0; c < n; ++c) std::fill(f + c * n + c, f + (c + 1) * n, 0.0);
  }

  // K's own entries: B_j W B_iᵀ for every pair of blocks on one body.
  const double* jv = k.J.values();
  const double* w = k.w.data();
  for (int x = s.pairs; x < s.pairs + s.pair_count; ++x) {
    const FrontPlan::RowPair& pr = plan_.pairs[static_cast<std::size_t>(x)];
    const double *ri = jv + pr.i, *rj = jv + pr.j, *wb = w + pr.w;
    f[pr.dest] += rj[0] * wb[0] * ri[0] + rj[1] * wb[1] * ri[1];
  }
  for (int x = s.products; x < s.products + s.product_count; ++x) {
    const FrontPlan::Product& pr = plan_.products[static_cast<std::size_t>(x)];
    const double* wb = w + pr.w;
    const int cols = pr.cols;
    if (pr.size_i == 1 && pr.size_j == 1) {  // two one-row constraints (rods, most often)
      const double* ri = jv + pr.values_i + pr.rows_i[0] * cols;
      const double* rj = jv + pr.values_j + pr.rows_j[0] * cols;
      double sum = rj[0] * wb[0] * ri[0] + rj[1] * wb[1] * ri[1];
      if (cols == 3) sum += rj[2] * wb[2] * ri[2];
      f[pr.dest] += sum;
      continue;
    }
    for (int c = 0; c < pr.size_i; ++c) {
      const double* ri = jv + pr.values_i + pr.rows_i[c] * cols;
      double* to = f + pr.dest + c * n;
      for (int a = pr.diagonal ? c : 0; a < pr.size_j; ++a) {
        const double* rj = jv + pr.values_j + pr.rows_j[a] * cols;
        double sum = rj[0] * wb[0] * ri[0] + rj[1] * wb[1] * ri[1];  // every block has 2 or 3 DOF
        if (cols == 3) sum += rj[2] * wb[2] * ri[2];
        to[a] += sum;
      }
    }
  }
  // Held rows are identity rows: nothing couples to them.
  if (any_held_) {
    for (int x = 0; x < n; ++x) {
      if (!k.held[static_cast<std::size_t>(plan_.perm[static_cast<std::size_t>(index[x])])]) continue;
      for (int c = 0; c <= x; ++c) f[c * n + x] = 0.0;
      for (int r = x; r < n; ++r) f[x * n + r] = 0.0;
    }
  }
  for (int c = 0; c < p; ++c) {
    f[c * n + c] += k.reg[plan_.perm[static_cast<std::size_t>(s.first + c)]];
    pivot_scale[c] = f[c * n + c];
  }

  // The children's update matrices, where each child's factorization left
  // them in the pool (their rows are in this front, in order).
  for (int x = s.children; x < s.children + s.child_count; ++x) {
    const int c = plan_.children[static_cast<std::size_t>(x)];
    const FrontPlan::Super& child = plan_.supers[static_cast<std::size_t>(c)];
    const int nu = child.size - child.pivots;
    const double* u = fronts_.data() + pool_->update[static_cast<std::size_t>(c)];
    const int* rel = plan_.relative.data() + child.relative;
    for (int cc = 0; cc < nu; ++cc) {
      const double* col = u + cc * nu;
      double* to = f + rel[cc] * n;
      for (int rr = cc; rr < nu; ++rr) to[rel[rr]] += col[rr];
    }
  }

  // Partial LDLᵀ of the pivots. A pivot that vanishes against its row's
  // diagonal is a dependent row: out of the solve, its column dropped.
  // Small fronts update only their pivot columns here (the update rows'
  // entries of L D stay in the front) and the update block after, in one
  // pass; large ones factor their pivot block alone and go by blocks.
  double* inverse = inverse_pivot_.data() + s.first;
  const bool blocked = p >= kBlockedPivots;
  const int rows_end = blocked ? p : n;  // rows the pivot loop reaches
  for (int c = 0; c < p; ++c) {
    double* col = f + c * n;
    const double d = col[c];
    if (!(d > dependent_pivot_ * pivot_scale[c])) {
      inverse[c] = 0.0;
      for (int r = c + 1; r < n; ++r) col[r] = 0.0;
      const int row = plan_.perm[static_cast<std::size_t>(s.first + c)];
      if (!k.is_held(row)) dependent.push_back(row);
      continue;
    }
    const double inv = 1.0 / d;
    inverse[c] = inv;
    for (int j = c + 1; j < p; ++j) {
      const double lj = col[j] * inv;
      if (lj == 0.0) continue;
      double* to = f + j * n;
      for (int r = j; r < rows_end; ++r) to[r] -= col[r] * lj;
    }
    for (int r = c + 1; r < p; ++r) col[r] *= inv;
  }

  // The panel as the solve reads it: L11 column by column, then L21 row by
  // row (each update row's p entries side by side, one dot product forward
  // and one axpy back per row, through one index).
  double* panel = panels_.data() + s.panel;
  for (int c = 0; c < p; ++c)
    for (int r = c; r < p; ++r) panel[c * p + r] = f[c * n + r];  // the lower triangle: the front's is all there is
  double* l21 = panel + p * p;
  const int nu = n - p;
  if (blocked && nu > 0) {
    // L21 D = F21 L11⁻ᵀ (left in the front), L21 to the panel, then
    // F22 −= (L21 D) L21ᵀ.
    Eigen::Map<Eigen::MatrixXd> F(f, n, n);
    auto f21 = F.bottomLeftCorner(nu, p);
    F.topLeftCorner(p, p).triangularView<Eigen::UnitLower>().transpose().solveInPlace<Eigen::OnTheRight>(f21);
    for (int c = 0; c < p; ++c)
      if (inverse[c] == 0.0) f21.col(c).setZero();
    Eigen::Map<RowMatrix> L21(l21, nu, p);
    L21.noalias() = f21 * Eigen::Map<const Eigen::VectorXd>(inverse, p).asDiagonal();
    F.bottomRightCorner(nu, nu).triangularView<Eigen::Lower>() -= f21 * L21.transpose();
  } else if (nu > 0) {
    for (int r = 0; r < nu; ++r)
      for (int c = 0; c < p; ++c) l21[r * p + c] = f[c * n + p + r] * inverse[c];
    update_block(f, n, p, l21);
  }

  // The update matrix to its place (lay_out): at or below the front, so
  // that each value goes down and none is overwritten before it is read.
  double* update = fronts_.data() + pool_->update[static_cast<std::size_t>(si)];
  for (int c = 0; c < nu; ++c) {
    const double* from = f + (p + c) * n + p;
    double* to = update + c * nu;
    for (int r = c; r < nu; ++r) to[r] = from[r];
  }
}

namespace {

// Forward substitution through front s (L z = b, then D⁻¹ z on its pivots):
// the pivots' triangle, then each update row's dot product with them,
// handed to `update` (the vector of its part, or the top's). P is the
// front's pivot count, or 0: any (the pivots are then read in place).
template <int P, class Update>
void forward_front(const FrontPlan& plan, const std::vector<double>& panels, const double* inverse, int si, double* y, Update update) {
  const FrontPlan::Super& s = plan.supers[static_cast<std::size_t>(si)];
  const int p = P > 0 ? P : s.pivots, u = s.size - p;
  const double* l11 = panels.data() + s.panel;
  const double* l21 = l11 + p * p;
  const int* index = plan.index.data() + s.index + p;
  double local[P > 0 ? P : 1];
  double* z = P > 0 ? local : y + s.first;
  if constexpr (P > 0)
    for (int c = 0; c < P; ++c) z[c] = y[s.first + c];
  if constexpr (P > 0) {
    for (int c = 0; c < p; ++c)
      for (int r = c + 1; r < p; ++r) z[r] -= l11[c * p + r] * z[c];
    for (int r = 0; r < u; ++r) {
      const double* row = l21 + r * p;
      double t = 0.0;
      for (int c = 0; c < p; ++c) t += row[c] * z[c];
      update(index[r], t);
    }
  } else {
    // Larger fronts through Eigen's vectorised triangular solve and product.
    Eigen::Map<Eigen::VectorXd> zv(z, p);
    Eigen::Map<const Eigen::MatrixXd>(l11, p, p).triangularView<Eigen::UnitLower>().solveInPlace(zv);
    thread_local Eigen::VectorXd t;
    t.resize(u);
    t.noalias() = Eigen::Map<const RowMatrix>(l21, u, p) * zv;
    for (int r = 0; r < u; ++r) update(index[r], t[r]);
  }
  for (int c = 0; c < p; ++c) y[s.first + c] = z[c] * inverse[s.first + c];
}

// Back substitution through front s: Lᵀ x = z on its pivots, the update
// rows' x already known; each pivot's x also goes to its row of `out`.
template <int P>
void backward_front(const FrontPlan& plan, const std::vector<double>& panels, int si, double* y, double* out) {
  const FrontPlan::Super& s = plan.supers[static_cast<std::size_t>(si)];
  const int p = P > 0 ? P : s.pivots, u = s.size - p;
  const double* l11 = panels.data() + s.panel;
  const double* l21 = l11 + p * p;
  const int* index = plan.index.data() + s.index + p;
  double local[P > 0 ? P : 1];
  double* x = P > 0 ? local : y + s.first;
  if constexpr (P > 0)
    for (int c = 0; c < P; ++c) x[c] = y[s.first + c];
  if constexpr (P > 0) {
    for (int r = 0; r < u; ++r) {
      const double* row = l21 + r * p;
      const double xr = y[index[r]];
      for (int c = 0; c < p; ++c) x[c] -= row[c] * xr;
    }
    for (int c = p - 1; c >= 0; --c)
      for (int r = c + 1; r < p; ++r) x[c] -= l11[c * p + r] * x[r];
  } else {
    thread_local Eigen::VectorXd t;
    t.resize(u);
    for (int r = 0; r < u; ++r) t[r] = y[index[r]];
    Eigen::Map<Eigen::VectorXd> xv(x, p);
    xv.noalias() -= Eigen::Map<const RowMatrix>(l21, u, p).transpose() * t;
    Eigen::Map<const Eigen::MatrixXd>(l11, p, p).transpose().triangularView<Eigen::UnitUpper>().solveInPlace(xv);
  }
  const int* rows = plan.perm.data() + s.first;
  for (int c = 0; c < p; ++c) {
    if constexpr (P > 0) y[s.first + c] = x[c];
    out[rows[c]] = x[c];
  }
}

// The kernels by pivot count: most fronts have a few pivots, and a constant
// count keeps them in registers and unrolls every loop.
template <class Update>
void forward(const FrontPlan& plan, const std::vector<double>& panels, const double* inverse, int si, double* y, Update update) {
  switch (plan.supers[static_cast<std::size_t>(si)].pivots) {
    case 1: return forward_front<1>(plan, panels, inverse, si, y, update);
    case 2: return forward_front<2>(plan, panels, inverse, si, y, update);
    case 3: return forward_front<3>(plan, panels, inverse, si, y, update);
    case 4: return forward_front<4>(plan, panels, inverse, si, y, update);
    case 5: return forward_front<5>(plan, panels, inverse, si, y, update);
    case 6: return forward_front<6>(plan, panels, inverse, si, y, update);
    default: return forward_front<0>(plan, panels, inverse, si, y, update);
  }
}

void backward(const FrontPlan& plan, const std::vector<double>& panels, int si, double* y, double* out) {
  switch (plan.supers[static_cast<std::size_t>(si)].pivots) {
    case 1: return backward_front<1>(plan, panels, si, y, out);
    case 2: return backward_front<2>(plan, panels, si, y, out);
    case 3: return backward_front<3>(plan, panels, si, y, out);
    case 4: return backward_front<4>(plan, panels, si, y, out);
    case 5: return backward_front<5>(plan, panels, si, y, out);
    case 6: return backward_front<6>(plan, panels, si, y, out);
    default: return backward_front<0>(plan, panels, si, y, out);
  }
}

}  // namespace

void MultifrontalLdlt::solve(Eigen::VectorXd& x, const Parallel& parallel) {
  const std::vector<int>& perm = plan_.perm;
  permuted_.resize(static_cast<Eigen::Index>(perm.size()));
  double* y = permuted_.data();
  for (std::size_t i = 0; i < perm.size(); ++i) y[i] = x[perm[i]];
  x.setZero();
  const double* inverse = inverse_pivot_.data();
  const int supers = static_cast<int>(plan_.supers.size());
  const int parts = std::min(parallel.count, supers);
  if (parts <= 1) {
    for (int s = 0; s < supers; ++s) forward(plan_, panels_, inverse, s, y, [y](int place, double v) { y[place] -= v; });
    for (int s = supers - 1; s >= 0; --s) backward(plan_, panels_, s, y, x.data());
  } else {
    // Each part updates its own rows in y, and the top's rows in a vector of
    // its own, added in part order.
    const Split& sp = split_for(parts);
    part_updates_.resize(static_cast<std::size_t>(parts));
    parallel.for_parts(parts, [&](int p, int) {
      Eigen::VectorXd& top = part_updates_[static_cast<std::size_t>(p)];
      top.resize(permuted_.size());
      for (int s : sp.top) {
        const FrontPlan::Super& f = plan_.supers[static_cast<std::size_t>(s)];
        top.segment(f.first, f.pivots).setZero();
      }
      double* mine = top.data();
      const int* owner = sp.owner.data();
      for (const auto& [lo, hi] : sp.ranges[static_cast<std::size_t>(p)])
        for (int s = lo; s <= hi; ++s)
          forward(plan_, panels_, inverse, s, y, [&](int place, double v) { (owner[place] == p ? y : mine)[place] -= v; });
    });
    for (const Eigen::VectorXd& top : part_updates_)
      for (int s : sp.top) {
        const FrontPlan::Super& f = plan_.supers[static_cast<std::size_t>(s)];
        permuted_.segment(f.first, f.pivots) += top.segment(f.first, f.pivots);
      }
    for (int s : sp.top) forward(plan_, panels_, inverse, s, y, [y](int place, double v) { y[place] -= v; });
    for (auto it = sp.top.rbegin(); it != sp.top.rend(); ++it) backward(plan_, panels_, *it, y, x.data());
    parallel.for_parts(parts, [&](int p, int) {
      const auto& ranges = sp.ranges[static_cast<std::size_t>(p)];
      for (auto r = ranges.rbegin(); r != ranges.rend(); ++r)
        for (int s = r->second; s >= r->first; --s) backward(plan_, panels_, s, y, x.data());
    });
  }
}

}  // namespace linkage
