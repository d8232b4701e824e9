// Preconditioned conjugate gradient on K λ = r, matrix-free: K p is
// J (W (Jᵀ p)) + reg ⊙ p, a walk over the Jacobian's blocks. The Jacobi
// preconditioner is diag(K). K is symmetric positive semi-definite; the
// regularization makes it definite.
#include <cmath>

#include "solvers.hpp"

namespace linkage {

SolveStats solve_cg(const SystemView& k, const Eigen::VectorXd& r, Eigen::VectorXd& x, double tolerance,
                    int max_iterations) {
  const int n = static_cast<int>(r.size());
  SolveStats stats;
  const double norm_r = r.norm();
  if (n == 0 || norm_r == 0.0) {
    x.setZero(n);
    return stats;
  }
  const Eigen::VectorXd inv_diag = k.diagonal().cwiseInverse();
  Eigen::VectorXd dof, kp(n);
  Eigen::VectorXd res(n);
  k.apply(x, kp, dof);
  res = r - kp;
  for (int i = 0; i < n; ++i)
    if (k.is_held(i)) res[i] = 0.0;
  Eigen::VectorXd z = inv_diag.cwiseProduct(res);
  Eigen::VectorXd p = z;
  double rz = res.dot(z);
  double rel = res.norm() / norm_r;
  while (rel > tolerance && stats.iterations < max_iterations) {
    k.apply(p, kp, dof);
    const double pkp = p.dot(kp);
    if (!(pkp > 0.0)) break;  // p lies in K's null space: nothing more to gain
    const double alpha = rz / pkp;
    x += alpha * p;
    res -= alpha * kp;
    ++stats.iterations;
    rel = res.norm() / norm_r;
    z = inv_diag.cwiseProduct(res);
    const double rz_next = res.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  stats.residual = rel;
  return stats;
}

}  // namespace linkage
