#pragma once
// Linear solvers for K λ = r, K = J W Jᵀ + diag(reg).
//
// Rows marked `held` are out of the solve: their λ stays at its given value
// and their coupling has been moved into r by the caller (see dynamics.cpp).

#include <vector>

#include <Eigen/Core>

#include "../block_jacobian.hpp"

namespace linkage {

struct SystemView {
  const BlockJacobian& J;
  const Eigen::VectorXd& w;    // W, per DOF
  const Eigen::VectorXd& reg;  // added to K's diagonal, per row
  const std::vector<char>& held;  // per row; empty: none held
  Parallel parallel = {};          // the threads products with J may share

  bool is_held(int row) const { return !held.empty() && held[row]; }
  // v's held rows ← 0, without a branch per row (held rows lie scattered:
  // 9,609 of joint_grid's 39,588 are its dependent rows).
  void zero_held(Eigen::VectorXd& v) const;
  // y = K x over the free rows (held rows of x read as 0, of y come out 0).
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::VectorXd& dof_scratch) const;
  Eigen::VectorXd diagonal() const;
};

// How well, and how, a system is to be solved.
struct SolveRequest {
  double tolerance = 1e-10;  // relative residual |r − Kλ| / |r|
  bool residual = true;      // the direct solver measures it (else reports NaN)
  // The most PCG iterations the direct solver may spend on a reused
  // factorization before it refactors (−1: what its cost model allows). A
  // solve at a step's end asks for few: a factorization made there serves
  // the next step's first solve too.
  int max_reuse = -1;
  // Where to leave W Jᵀ λ, the velocity change of an impulse λ (or a
  // position correction): solve_system fills it, with PCG's own products
  // where the direct solver reused a factorization (no pass over J).
  Eigen::VectorXd* w_jt_lambda = nullptr;
  // The direct solver takes out only rows dependent to round-off
  // (MultifrontalLdlt::kStrictPivot), factoring again if it took out more:
  // a Newton step that stalled on rows only nearly dependent, whose C it
  // must still correct.
  bool strict = false;
  // Rows that give way where they depend on others (per row; null: none):
  // motors, against a lock on the same joint or a loop that leaves them no
  // freedom. Where the direct solver takes dependent rows out (a change of
  // topology), it takes these out before any other, so that the lock
  // holds and the motor stalls; taken in their order, the lock could go and
  // the motor turn the joint through it.
  const std::vector<char>* yielding = nullptr;
  // Enough as well once no row's residual exceeds this (|r − Kλ|∞): a
  // caller whose need is per row (RATTLE: each row's Ċ h within the
  // tolerance) says so, where the relative 2-norm bounds it loosely.
  double row_residual = 0.0;
};

struct SolveStats {
  int iterations = 0;
  double residual = 0.0;  // |r − Kλ| / |r| over the free rows (0 when r = 0; NaN: not measured)
  int rank_deficiency = -1;  // when the solver learns it (LDLᵀ), else −1
  bool w_jt_lambda = false;  // the solver left W Jᵀ λ where the request asked
};

// The cost model's price (DirectSolver::work) of one conjugate-gradient
// iteration or Gauss–Seidel sweep: two passes over J's values.
inline double sweep_cost(const BlockJacobian& J) { return 4.0 * static_cast<double>(J.value_count()); }

// Conjugate gradient, Jacobi preconditioned, starting from λ.
SolveStats solve_cg(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda, double tolerance,
                    int max_iterations);

// Gauss–Seidel sweeps, starting from λ, keeping each λ_i in [lo_i, hi_i].
SolveStats solve_gauss_seidel(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& lambda,
                              const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, double tolerance,
                              int max_iterations);

}  // namespace linkage
