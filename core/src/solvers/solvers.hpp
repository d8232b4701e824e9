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

// Sparse LDLᵀ of K = J W Jᵀ + diag(reg), held rows made identity rows.
//
// K's lower triangle is assembled straight from J's blocks: for a topology
// the pattern, the fill-reducing ordering (symbolic analysis) and the place
// of every block product in K's value array are worked out once, and a solve
// only adds up the small dense products B_i W B_jᵀ of blocks that share a
// body. A K identical to the last one factored (SHAKE's iterations, RATTLE
// and the next step's solve at the same positions) is not factored again.
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
  int analyses() const { return analyses_; }        // how often the pattern was analysed
  int factorizations() const { return factorizations_; }
  void reset();

 private:
  // One product B_i W B_jᵀ of two blocks on the same body, landing in K.
  struct Product {
    int block_i, block_j;  // B_i of the row group with the larger rows
    int dest;              // first of its rows_i × rows_j places in dest_
  };
  bool same_structure(const BlockJacobian& J) const;
  void analyse(const BlockJacobian& J);
  void assemble(const SystemView& k);

  std::vector<int> structure_;  // J's block layout the pattern was built for
  std::vector<Product> products_;
  std::vector<int> block_rows_;  // per block of J: its group's rows
  std::vector<int> dest_;       // per product entry: index into K's values (−1: above the diagonal)
  std::vector<int> diagonal_;   // per row: index of K_ii
  Eigen::SparseMatrix<double> k_;  // lower triangle
  Eigen::VectorXd factored_;       // the values last factored
  std::vector<char> factored_held_;
  std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> ldlt_;
  int rank_deficiency_ = 0;
  int analyses_ = 0, factorizations_ = 0;
};

// Factors K once to count its redundant rows (for the iterative solvers,
// which cannot tell).
int estimate_rank_deficiency(const SystemView& k);


}  // namespace linkage
