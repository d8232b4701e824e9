#include "solvers.hpp"

namespace linkage {

void SystemView::zero_held(Eigen::VectorXd& v) const {
  if (held.empty()) return;
  const char* h = held.data();
  double* x = v.data();
  for (Eigen::Index i = 0; i < v.size(); ++i) x[i] = h[i] ? 0.0 : x[i];
}

void SystemView::apply(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::VectorXd& dof) const {
  dof.setZero(J.cols());
  J.add_transpose_product(x, held, dof, parallel);
  dof.array() *= w.array();
  J.multiply_add_diagonal(dof, reg, x, held, y, parallel);
}

Eigen::VectorXd SystemView::diagonal() const {
  Eigen::VectorXd d = J.gram_diagonal(w, parallel) + reg;
  for (int i = 0; i < d.size(); ++i)
    if (is_held(i)) d[i] = 1.0;
  return d;
}

}  // namespace linkage
