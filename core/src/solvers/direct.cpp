#include "direct.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace linkage {
namespace {

// Rounds of "take the dependent rows out, analyse again" before the rest
// are left to the factorization's own handling.
constexpr int kRedundancyRounds = 4;
// The removed rows are no longer dependent when a combination of them
// leaves the span of the kept rows by more than this (relative, W-weighted);
// a row is found dependent when it leaves it by less than √1e-8 = 1e-4, so
// a row near the threshold is not taken out and put back step after step.
constexpr double kStillDependent = 1e-3;
// Never more PCG iterations than this before refactoring.
constexpr int kMaxReuse = 10;
// Conjugate-gradient iterations a solve of a system too large to factor
// (MultifrontalLdlt::kMaxFill) may take.
constexpr int kUnfactoredIterations = 200;

}  // namespace

void DirectSolver::reset() {
  ldlt_ = MultifrontalLdlt();
  structure_.clear();
  structure_layouts_[0] = structure_layouts_[1] = ~0ull;
  removed_.clear();
  held_valid_ = false;
  dependent_.clear();
  recheck_ = true;
  factored_ = strict_ = false;
  reuse_budget_ = 0;
  path_ = SolverPath::none;
}

bool DirectSolver::same_structure(const BlockJacobian& J) const {
  std::size_t i = 0;
  auto next = [&](int v) { return i < structure_.size() && structure_[i++] == v; };
  if (!next(J.rows()) || !next(J.cols()) || !next(static_cast<int>(J.groups().size()))) return false;
  for (const BlockJacobian::Group& g : J.groups()) {
    if (!next(g.row) || !next(g.rows) || !next(g.blocks)) return false;
    for (int b = g.first_block; b < g.first_block + g.blocks; ++b)
      if (!next(J.block(b).col) || !next(J.block(b).cols)) return false;
  }
  return i == structure_.size();
}

void DirectSolver::analyse(const BlockJacobian& J) {
  structure_ = {J.rows(), J.cols(), static_cast<int>(J.groups().size())};
  for (const BlockJacobian::Group& g : J.groups()) {
    structure_.insert(structure_.end(), {g.row, g.rows, g.blocks});
    for (int b = g.first_block; b < g.first_block + g.blocks; ++b) structure_.insert(structure_.end(), {J.block(b).col, J.block(b).cols});
  }
  removed_.assign(static_cast<std::size_t>(J.rows()), 0);
  held_valid_ = false;
  ldlt_.analyse(J, removed_);
  factored_ = false;
}

SystemView DirectSolver::kept(const SystemView& k) {
  if (std::find(removed_.begin(), removed_.end(), 1) == removed_.end()) return k;
  // Usually the held rows of the solve before: a comparison, not a rebuild.
  if (!held_valid_ || held_of_ != k.held) {
    held_valid_ = true;
    held_of_ = k.held;
    held_.assign(removed_.begin(), removed_.end());
    for (std::size_t i = 0; i < held_.size() && !k.held.empty(); ++i) held_[i] |= k.held[i];
  }
  return SystemView{k.J, k.w, k.reg, held_, k.parallel};
}

bool DirectSolver::factored_for(const SystemView& k) const {
  return factored_ && factored_j_.size() == k.J.value_count() &&
         (factored_j_.empty() ||  // memcmp wants valid pointers, and an empty J has none
          std::memcmp(factored_j_.data(), k.J.values(), factored_j_.size() * sizeof(double)) == 0) &&
         factored_w_.size() == k.w.size() && factored_w_ == k.w && factored_reg_.size() == k.reg.size() &&
         factored_reg_ == k.reg && factored_held_ == k.held;
}

void DirectSolver::remember(const SystemView& k) {
  factored_j_.assign(k.J.values(), k.J.values() + k.J.value_count());
  factored_w_ = k.w;
  factored_reg_ = k.reg;
  factored_held_ = k.held;
}

void DirectSolver::take_out_dependent(const SystemView& k, double pivot, int& made) {
  // Analysed again without them, the fill they would cause goes with them.
  for (int round = 0; round < kRedundancyRounds && !ldlt_.dependent_rows().empty(); ++round) {
    for (int r : ldlt_.dependent_rows()) removed_[static_cast<std::size_t>(r)] = 1;
    held_valid_ = false;
    ldlt_.analyse(k.J, removed_);
    ldlt_.factor(kept(k), parallel_, pivot);
    ++factorizations;
    ++made;
  }
}

bool DirectSolver::take_out_yielding(const SystemView& k, const std::vector<char>& yielding, double pivot, int& made) {
  std::vector<int> rows;
  for (std::size_t i = 0; i < yielding.size(); ++i)
    if (yielding[i] && !k.is_held(static_cast<int>(i))) rows.push_back(static_cast<int>(i));
  if (rows.empty()) return false;
  std::vector<char> without = k.held.empty() ? std::vector<char>(static_cast<std::size_t>(k.J.rows()), 0) : k.held;
  for (int r : rows) without[static_cast<std::size_t>(r)] = 1;
  const SystemView others{k.J, k.w, k.reg, without, k.parallel};
  ldlt_.factor(kept(others), parallel_, pivot);
  ++factorizations;
  ++made;
  take_out_dependent(others, pivot, made);
  // A row is dependent where its pivot would vanish against its diagonal:
  // the pivot is its squared W-distance from the span of the rows before.
  const double within = std::sqrt(pivot);
  bool any = false;
  Eigen::VectorXd rho = Eigen::VectorXd::Zero(k.J.rows());
  for (int r : rows) {
    rho[r] = 1.0;
    if (span_distance(others, rho) <= within) {
      removed_[static_cast<std::size_t>(r)] = 1;
      any = true;
    }
    rho[r] = 0.0;
  }
  held_valid_ = false;
  if (any) ldlt_.analyse(k.J, removed_);
  return true;
}

void DirectSolver::factor(const SystemView& k, bool strict, const std::vector<char>* yielding) {
  const double pivot = MultifrontalLdlt::dependent_pivot(strict);
  strict_ = strict;
  if (recheck_ && std::find(removed_.begin(), removed_.end(), 1) != removed_.end()) {
    removed_.assign(removed_.size(), 0);
    held_valid_ = false;
    ldlt_.analyse(k.J, removed_);
  }
  ldlt_.factor(kept(k), parallel_, pivot);
  ++factorizations;
  int made = 1;
  if (recheck_) {
    // Where rows depend on one another, the motors go first.
    if (yielding && !ldlt_.dependent_rows().empty() && take_out_yielding(k, *yielding, pivot, made)) {
      ldlt_.factor(kept(k), parallel_, pivot);
      ++factorizations;
      ++made;
    }
    take_out_dependent(k, pivot, made);
    recheck_ = false;
  } else if (!ldlt_.dependent_rows().empty()) {
    recheck_ = true;  // a row became dependent (a singular configuration): analyse again next time
  }
  dependent_.clear();
  for (std::size_t i = 0; i < removed_.size(); ++i)
    if (removed_[i]) dependent_.push_back(static_cast<int>(i));
  for (int r : ldlt_.dependent_rows()) dependent_.push_back(r);
  std::sort(dependent_.begin(), dependent_.end());

  // What a factorization is worth in PCG iterations, from the plan's counts
  // (nanoseconds per unit, fitted on this machine's solver_bench: counts,
  // not the clock, so that the choice is the same on every run). A fresh
  // factorization also copies J and, with rows taken out, checks them (two
  // products and a solve). Trees always refactor: without fill their
  // factorization costs about what a solve does.
  const FrontPlan& plan = ldlt_.plan();
  const Elimination& e = ldlt_.elimination();
  const double fronts = static_cast<double>(plan.supers.size());
  const double j_values = static_cast<double>(k.J.value_count());
  const double iteration_ns = 0.35 * plan.solve_flops + 4.0 * fronts + 5.0 * static_cast<double>(plan.perm.size()) +
                              2.0 * j_values;
  const bool removed = std::find(removed_.begin(), removed_.end(), 1) != removed_.end();
  const double factor_ns = 0.4 * plan.factor_flops + 2.4 * plan.assembly_flops + 33.0 * fronts + 2.0 * j_values +
                           (removed ? iteration_ns : 0.0);
  work += made * factor_ns;
  solve_cost_ = iteration_ns;
  const int worth = static_cast<int>(factor_ns / std::max(iteration_ns, 1.0)) - 1;
  reuse_budget_ = e.loop_components == 0 ? 0 : std::clamp(worth, 0, kMaxReuse);
  path_ = e.tree_components && e.loop_components ? SolverPath::mixed
          : e.loop_components                    ? SolverPath::graph
          : e.tree_components                    ? SolverPath::tree
                                                 : SolverPath::none;
  remember(k);
  factored_ = true;
}

std::optional<SolveStats> DirectSolver::reuse(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& x,
                                              const SolveRequest& how, int budget) {
  const double tolerance = how.tolerance;
  Eigen::VectorXd* w_jt_x = how.w_jt_lambda;
  // PCG over the free rows, its vector operations fused into as few passes
  // over the rows as the recurrence allows, each split between the threads
  // (chunked_sum: the same sums on any thread count).
  SolveStats stats;
  const SystemView kk = kept(k);
  const Parallel& threads = k.parallel;
  const int n = static_cast<int>(r.size());
  const char* held = kk.held.empty() ? nullptr : kk.held.data();
  auto free = [held](int i) { return !held || !held[i]; };
  Eigen::VectorXd res(n);  // r over the free rows, then r − K x
  // From the caller's λ (a step's warm start: a structure at rest asks for
  // the same λ again), where it leaves less of r than λ = 0 does: the
  // first pass also takes it over the free rows and checks it.
  const bool given = x.size() == n;
  struct First {
    double res2 = 0.0;
    bool finite = true, zero = true;  // of the given λ
  };
  const First opening = chunked_reduce(
      threads, n, First{},
      [&](int from, int to) {
        First f;
        for (int i = from; i < to; ++i) {
          const double v = free(i) ? r[i] : 0.0;
          res[i] = v;
          f.res2 += v * v;
        }
        for (int i = from; given && i < to; ++i) {
          const double v = free(i) ? x[i] : 0.0;
          x[i] = v;
          f.finite = f.finite && std::isfinite(v);
          f.zero = f.zero && v == 0.0;
        }
        return f;
      },
      [](const First& a, const First& b) { return First{a.res2 + b.res2, a.finite && b.finite, a.zero && b.zero}; });
  double res2 = opening.res2;
  const double norm_r = std::sqrt(res2);
  bool warm = given && norm_r > 0.0 && opening.finite && !opening.zero;
  if (warm) {
    Eigen::VectorXd left(n);
    kk.apply(x, left, scratch_);
    const double left2 = chunked_sum(threads, n, [&](int first, int last) {
      double sum = 0.0;
      for (int i = first; i < last; ++i) {
        const double v = res[i] - left[i];
        left[i] = v;
        sum += v * v;
      }
      return sum;
    });
    warm = left2 < res2;
    if (warm) {
      res.swap(left);
      res2 = left2;
    }
  }
  if (!warm) x.setZero(n);
  // W Jᵀ x, kept beside x from the products K p makes anyway (apply leaves
  // W Jᵀ p in scratch_).
  if (w_jt_x) {
    if (warm) w_jt_x->swap(scratch_);
    else w_jt_x->setZero(k.J.cols());
    stats.w_jt_lambda = true;
  }
  if (norm_r == 0.0) return stats;
  stats.residual = std::sqrt(res2) / norm_r;
  if (stats.residual <= tolerance) return stats;
  // z = M⁻¹ res over the free rows (the factorization may be of another
  // held set: held rows stay out); returns res · z. Then p = z + β p.
  Eigen::VectorXd z(n), p(n), kp(n);
  auto precondition = [&] {
    z = res;
    ldlt_.solve(z, parallel_);
    return chunked_sum(threads, n, [&](int first, int last) {
      double sum = 0.0;
      for (int i = first; i < last; ++i) {
        const double v = free(i) ? z[i] : 0.0;
        z[i] = v;
        sum += res[i] * v;
      }
      return sum;
    });
  };
  auto next_direction = [&](double beta) {
    chunked_sum(threads, n, [&](int first, int last) {
      for (int i = first; i < last; ++i) p[i] = z[i] + beta * p[i];
      return 0.0;
    });
  };
  double rz = precondition();
  p = z;
  for (int it = 0; it <= budget; ++it) {
    kk.apply(p, kp, scratch_);
    const double pkp = chunked_sum(threads, n, [&](int first, int last) {
      double sum = 0.0;
      for (int i = first; i < last; ++i) sum += p[i] * kp[i];
      return sum;
    });
    if (!(pkp > 0.0)) break;
    const double alpha = rz / pkp;
    struct Residual {
      double sum2 = 0.0, worst = 0.0;
    };
    const Residual left = chunked_reduce(
        threads, n, Residual{},
        [&](int first, int last) {
          Residual part;
          for (int i = first; i < last; ++i) {
            x[i] += alpha * p[i];
            const double v = res[i] - alpha * kp[i];
            res[i] = v;
            part.sum2 += v * v;
            part.worst = std::max(part.worst, std::abs(v));
          }
          return part;
        },
        [](const Residual& a, const Residual& b) { return Residual{a.sum2 + b.sum2, std::max(a.worst, b.worst)}; });
    res2 = left.sum2;
    if (w_jt_x) *w_jt_x += alpha * scratch_;
    ++stats.iterations;
    ++pcg_iterations;
    work += solve_cost_;
    stats.residual = std::sqrt(res2) / norm_r;
    if (stats.residual <= tolerance) return stats;
    if (left.worst <= how.row_residual) return stats;
    // Give up as soon as the rate so far would not reach the tolerance
    // within the budget: a refactorization is cheaper than the iterations
    // left. Judged from the first iteration on: a projection's Newton steps
    // move K far between solves, and a second iteration to confirm it cost
    // a K p and a solve each time (cloth_100_slack: 12 -> 6 PCG iterations
    // a step for 3.8 -> 4.3 factorizations, about 5 % less time).
    const int done = it + 1;
    if (stats.residual >= 1.0) break;
    const double needed = done * std::log(tolerance) / std::log(stats.residual);
    if (needed > budget + 1) break;
    const double rz_next = precondition();
    next_direction(rz_next / rz);
    rz = rz_next;
  }
  return std::nullopt;  // not converged: refactor
}

double DirectSolver::span_distance(const SystemView& k, const Eigen::VectorXd& rho) {
  // g is in the span of the kept rows iff its W-weighted projection onto
  // them leaves nothing: K_kept μ = J_kept W g, e = g − J_keptᵀ μ.
  const int n = k.J.rows();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(k.J.cols());
  k.J.add_transpose_product(rho, g, k.parallel);
  const double norm_g = std::sqrt(g.dot(k.w.cwiseProduct(g)));
  if (norm_g == 0.0) return 0.0;
  Eigen::VectorXd mu;
  k.J.multiply(k.w.cwiseProduct(g), mu, k.parallel);
  const SystemView kk = kept(k);
  for (int i = 0; i < n; ++i)
    if (kk.is_held(i)) mu[i] = 0.0;
  ldlt_.solve(mu, parallel_);
  Eigen::VectorXd e = g;
  Eigen::VectorXd back = Eigen::VectorXd::Zero(k.J.cols());
  k.J.add_transpose_product(mu, back, k.parallel);
  e -= back;
  return std::sqrt(e.dot(k.w.cwiseProduct(e))) / norm_g;
}

bool DirectSolver::still_dependent(const SystemView& k) {
  // g = Σ ρ_i J_i over the removed rows, with fixed pseudo-random weights ρ
  // (a combination of them all, tested at once).
  const int n = k.J.rows();
  Eigen::VectorXd rho = Eigen::VectorXd::Zero(n);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < n; ++i) {
    if (!removed_[static_cast<std::size_t>(i)] || k.is_held(i)) continue;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    rho[i] = 0.5 + static_cast<double>(state >> 11) * 0x1.0p-53;  // in [0.5, 1.5)
  }
  return span_distance(k, rho) <= kStillDependent;
}

SolveStats DirectSolver::solve(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda,
                               const SolveRequest& how) {
  parallel_ = k.parallel;
  ++solves;
  SolveStats stats;
  const int n = static_cast<int>(r.size());
  if (n == 0) {
    lambda.resize(0);
    stats.rank_deficiency = 0;
    return stats;
  }
  const std::uint64_t layout = k.J.layout();
  if (layout != structure_layouts_[0] && layout != structure_layouts_[1]) {
    structure_layouts_[1] = structure_layouts_[0];
    if (!same_structure(k.J)) {
      analyse(k.J);
      recheck_ = true;
      structure_layouts_[1] = ~0ull;
    }
    structure_layouts_[0] = layout;
  }
  if (ldlt_.over_budget()) return solve_unfactored(k, r, lambda, how);
  if (how.strict && !strict_ && !dependent_.empty()) {  // rows out that may be only nearly dependent
    recheck_ = true;
    factored_ = false;
  }
  bool fresh = false;
  if (!factored_for(k)) {
    const int budget = how.max_reuse < 0 ? reuse_budget_ : std::min(reuse_budget_, how.max_reuse);
    if (factored_ && budget > 0 && !recheck_) {
      if (std::optional<SolveStats> reused = reuse(k, r, lambda, how, budget)) {
        reused->rank_deficiency = static_cast<int>(dependent_.size());
        return *reused;
      }
    }
    factor(k, how.strict, how.yielding);
    fresh = true;
    stats.w_jt_lambda = false;
  }
  const SystemView kk = kept(k);
  lambda = r;
  kk.zero_held(lambda);
  ldlt_.solve(lambda, parallel_);
  work += solve_cost_;
  stats.iterations = 1;
  if (fresh && &kk.held == &held_ && !still_dependent(k)) recheck_ = true;
  stats.rank_deficiency = static_cast<int>(dependent_.size());
  if (!how.residual) {
    stats.residual = std::numeric_limits<double>::quiet_NaN();
    return stats;
  }
  Eigen::VectorXd kx(n);
  kk.apply(lambda, kx, scratch_);
  double res = 0.0, norm = 0.0;
  for (int i = 0; i < n; ++i) {
    if (kk.is_held(i)) continue;
    res += (r[i] - kx[i]) * (r[i] - kx[i]);
    norm += r[i] * r[i];
  }
  stats.residual = norm > 0.0 ? std::sqrt(res / norm) : 0.0;
  return stats;
}

SolveStats DirectSolver::solve_unfactored(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda,
                                          const SolveRequest& how) {
  factored_ = false;
  dependent_.clear();
  path_ = SolverPath::iterative;
  if (lambda.size() != r.size()) lambda.setZero(r.size());  // from the λ passed in (a step's warm start) where there is one
  k.zero_held(lambda);
  SolveStats stats = solve_cg(k, r, lambda, how.tolerance, kUnfactoredIterations);
  work += stats.iterations * sweep_cost(k.J);
  stats.rank_deficiency = 0;  // not known without a factorization
  if (how.w_jt_lambda) {
    how.w_jt_lambda->setZero(k.J.cols());
    k.J.add_transpose_product(lambda, *how.w_jt_lambda, k.parallel);
    how.w_jt_lambda->array() *= k.w.array();
    stats.w_jt_lambda = true;
  }
  return stats;
}

int count_dependent_rows(const SystemView& k) {
  // Without the regularization, which would hide them; held rows stay identity rows.
  Eigen::VectorXd reg = Eigen::VectorXd::Zero(k.J.rows());
  for (int i = 0; i < reg.size(); ++i)
    if (k.is_held(i)) reg[i] = 1.0;
  DirectSolver once;
  Eigen::VectorXd lambda;
  return once.solve(SystemView{k.J, k.w, reg, k.held}, Eigen::VectorXd::Zero(k.J.rows()), lambda, SolveRequest{})
      .rank_deficiency;
}

}  // namespace linkage
