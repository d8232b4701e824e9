#pragma once
// Linear solvers for K λ = r, K = J W Jᵀ + diag(reg).
//
// Rows marked `held` are out of the solve: their λ stays at its given value
// and their coupling has been moved into r by the caller (see dynamics.cpp).

#include <memory>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCholesky>

#include "../block_jacobian.hpp"

namespace linkage {

struct SystemView {
  const BlockJacobian& J;
  const Eigen::VectorXd& w;    // W, per DOF
  const Eigen::VectorXd& reg;  // added to K's diagonal, per row
  const std::vector<char>& held;  // per row; empty: none held

  bool is_held(int row) const { return !held.empty() && held[row]; }
  // y = K x over the free rows (held rows of x read as 0, of y come out 0).
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::VectorXd& dof_scratch) const;
  Eigen::VectorXd diagonal() const;
};

struct SolveStats {
  int iterations = 0;
  double residual = 0.0;  // |r − Kλ| / |r| over the free rows (0 when r = 0)
  int rank_deficiency = -1;  // when the solver learns it (LDLᵀ), else −1
};

// Conjugate gradient, Jacobi preconditioned, starting from λ.
SolveStats solve_cg(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda, double tolerance,
                    int max_iterations);

// Gauss–Seidel sweeps, starting from λ, keeping each λ_i in [lo_i, hi_i].
SolveStats solve_gauss_seidel(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda,
                              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, double tolerance,
                              int max_iterations);

// Sparse LDLᵀ. The symbolic analysis (fill-reducing ordering) is kept and
// reused while K's sparsity pattern stays the same.
class LdltSolver {
 public:
  LdltSolver() = default;
  // Copies start empty: a factorization is a cache, never state.
  LdltSolver(const LdltSolver&) {}
  LdltSolver& operator=(const LdltSolver&) {
    reset();
    return *this;
  }

  SolveStats solve(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda);
  int analyses() const { return analyses_; }  // how often the pattern was analysed
  void reset();

 private:
  std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> ldlt_;
  std::vector<int> outer_, inner_;  // the analysed pattern
  bool analysed_ = false;
  int analyses_ = 0;
};

// Factors K once to count its redundant rows (for the iterative solvers,
// which cannot tell).
int estimate_rank_deficiency(const SystemView& k);

// Redundant rows of K: pivots of its LDLᵀ that vanish against their diagonal.
int rank_deficiency(const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>& ldlt,
                    const Eigen::SparseMatrix<double>& k, const std::vector<char>& held);

}  // namespace linkage
