#pragma once
// Scratch space of the derivative evaluation and the solvers' caches, derived
// from the world's state. A copy starts empty but for the direct solver,
// whose factorization the next solves reuse (see DirectSolver).

#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "block_jacobian.hpp"
#include "linkage/diagnostics.hpp"
#include "solvers/direct.hpp"

namespace linkage {

struct Workspace {
  Workspace() = default;
  Workspace(const Workspace& o) : direct(o.direct) {}
  Workspace& operator=(const Workspace& o) {
    *this = Workspace(o);
    return *this;
  }
  Workspace& operator=(Workspace&&) = default;

  BlockJacobian J;
  BlockJacobian step_J;  // the rows at the step's start: SHAKE's directions
  Eigen::VectorXd Qa, w;                  // per DOF: applied forces, inverse masses
  Eigen::VectorXd C, Cdot, jdot_qdot, c_tt, lo, hi;  // per row
  Eigen::VectorXd diag, rhs, reg, lambda, dof_scratch;  // diag: diag(J W Jᵀ)
  Eigen::VectorXd soft_omega, soft_zeta;  // per row: 2π·frequency (0: rigid) and damping ratio
  // λ of held rows that is known rather than 0 (a soft row in the
  // force-based method); solve_system moves its coupling to the right side.
  Eigen::VectorXd fixed;
  std::vector<char> velocity_row, unilateral_row, held;
  std::vector<char> motor_free;  // per row: a motor at its bound in the step's velocity solve
  // ws.C and ws.Cdot hold the rows at the step's final state (RATTLE left
  // them so): measuring the step needs no evaluation of its own.
  bool rows_at_end = false;

  DirectSolver direct;
  // The rank deficiency found for this topology, for the iterative solvers.
  std::uint64_t rank_topology = std::numeric_limits<std::uint64_t>::max();
  int rank_deficiency = 0;

  // Accumulated over one step.
  StageTimes times;
  int iterations = 0;
  double residual = 0.0;
  int step_rank_deficiency = 0;
  int projection_iterations = 0;
  bool projection_capped = false;
  double projection_error = 0.0;
};

}  // namespace linkage
