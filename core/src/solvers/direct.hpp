#pragma once
// The direct solver of K λ = r (LinearSolver::ldlt): a multifrontal LDLᵀ over
// the constraint graph (multifrontal.hpp), kept between solves.
//
// - Analysis once per topology: components, a tree order for acyclic ones
//   (linear time, no fill) and a fill-reducing order for the rest.
// - Redundancy by elimination: the first factorization of a topology finds
//   the dependent rows (vanishing pivots); they are taken out of the system
//   (λ = 0, exact for a consistent system), the graph analysed again without
//   them, and reported. A later factorization that meets a new vanishing
//   pivot, or a solve whose removed rows no longer hold, checks again.
// - Factor reuse: a K bit-identical to the one factored is solved at once;
//   another K, where a factorization costs several solves, is solved by
//   conjugate gradient preconditioned with the last factorization (from the
//   λ passed in when that is closer than 0: a step's warm start), and
//   refactored only when that would take more iterations than a
//   factorization is worth (a cost model of the plan, not the clock, so
//   that runs stay deterministic).
// - A factor past MultifrontalLdlt's budget (a pile whose contact rows all
//   couple) is not made: conjugate gradient solves instead, in bounded
//   memory and iterations.

#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "linkage/diagnostics.hpp"
#include "multifrontal.hpp"
#include "solvers.hpp"

namespace linkage {

class DirectSolver {
 public:
  // Copies keep the analysis, the dependent rows and the factorization:
  // what the next solves reuse decides their round-off, so a saved world
  // continues bit-identically only with them.

  // Solves K λ = r over the free rows (held and dependent rows: λ = 0).
  SolveStats solve(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda, const SolveRequest& how);

  // Forget everything (settings changed).
  void reset();
  // The model changed (a constraint's parameters, a body's mass): the
  // dependent rows are found again at the next factorization.
  void recheck() { recheck_ = true; }
  // Bodies were taken out and J's other columns moved down (new_column[c]:
  // where column c went, −1 gone): the next analysis keeps its order for
  // the constraints left, as it does when constraints alone change.
  void columns_moved(const std::vector<int>& new_column) { ldlt_.columns_moved(new_column); }
  // A solve the tree path (tree_solve.hpp) did in this solver's place, on
  // a model whose components are all trees: counted with its own.
  void count_tree_solve(bool factored) {
    ++solves;
    factorizations += factored ? 1 : 0;
    path_ = SolverPath::tree;
  }

  // Rows taken out as dependent (ascending), and how the last solves went.
  const std::vector<int>& dependent_rows() const { return dependent_; }
  SolverPath path() const { return path_; }
  int factorizations = 0;  // numeric factorizations
  int solves = 0;          // systems solved
  int pcg_iterations = 0;  // conjugate-gradient iterations on a reused factorization
  // What the solves cost, by the cost model that weighs a factorization
  // against PCG iterations (nanoseconds on the machine it was fitted on;
  // counts, not the clock, so the same on every run). The caller resets
  // it, as the counts above.
  double work = 0.0;

 private:
  bool same_structure(const BlockJacobian& J) const;
  void analyse(const BlockJacobian& J);
  void factor(const SystemView& k, bool strict, const std::vector<char>* yielding);
  // The rows the last factorization of `k` found dependent taken out, the
  // analysis made again and K factored again, until none is found (at most
  // kRedundancyRounds times).
  void take_out_dependent(const SystemView& k, double pivot, int& made);
  // At a recheck that found dependent rows: the other rows factored
  // without the yielding ones (their own dependent rows out), then each
  // yielding row that lies in the span of the rows kept taken out too
  // (SolveRequest::yielding). False where no yielding row is free.
  bool take_out_yielding(const SystemView& k, const std::vector<char>& yielding, double pivot, int& made);
  // |g − J_keptᵀ μ|_W / |g|_W for g = Jᵀ ρ and J_kept W J_keptᵀ μ = J_kept W g:
  // how far the combination ρ of rows leaves the span of the rows the last
  // factorization kept (0 for ρ = 0).
  double span_distance(const SystemView& k, const Eigen::VectorXd& rho);
  bool factored_for(const SystemView& k) const;
  void remember(const SystemView& k);
  // Do the removed rows still depend on the kept ones (after a factorization)?
  bool still_dependent(const SystemView& k);
  // PCG from the last factorization; nothing where it would not converge within `budget`.
  std::optional<SolveStats> reuse(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda, const SolveRequest& how,
                                  int budget);
  // K restricted to the rows in the solve (held or dependent rows out).
  SystemView kept(const SystemView& k);
  // K λ = r by conjugate gradient (Jacobi-preconditioned, matrix-free) where
  // K's factor would not fit (MultifrontalLdlt::over_budget): the step's
  // solves stay in bounded memory, inexact where CG stops short.
  SolveStats solve_unfactored(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda, const SolveRequest& how);

  MultifrontalLdlt ldlt_;
  std::vector<int> structure_;    // J's block layout the analysis is for
  // The last two J layout stamps found to be structure_: a step's J and
  // the projection's take turns (Workspace::step_J).
  std::uint64_t structure_layouts_[2] = {~0ull, ~0ull};
  std::vector<char> removed_;     // per row: taken out as dependent
  std::vector<int> dependent_;
  bool recheck_ = true;           // find the dependent rows at the next factorization
  bool factored_ = false;
  bool strict_ = false;            // the factorization took out only rows dependent to round-off
  int reuse_budget_ = 0;          // PCG iterations a factorization is worth
  double solve_cost_ = 0.0;       // `work` of a solve (or PCG iteration) on the factorization
  SolverPath path_ = SolverPath::none;
  // What the factorization was made from (to know an identical K).
  std::vector<double> factored_j_;
  Eigen::VectorXd factored_w_, factored_reg_;
  std::vector<char> factored_held_;
  std::vector<char> held_;        // held ∪ removed, for `kept`
  std::vector<char> held_of_;     // the held rows held_ was made from (with removed_ as it is, if held_valid_)
  bool held_valid_ = false;
  Eigen::VectorXd scratch_;
  Parallel parallel_;  // the threads of the solve under way (the system's)
};

// Factors K once to count its dependent rows (for the iterative solvers,
// which cannot tell).
int count_dependent_rows(const SystemView& k);

}  // namespace linkage
