#include "solvers.hpp"

namespace linkage {

void SystemView::apply(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::VectorXd& dof) const {
  dof.setZero(J.cols());
  if (held.empty()) {
    J.add_transpose_product(x, dof, parallel);
  } else {
    Eigen::VectorXd free_x = x;
    for (int i = 0; i < free_x.size(); ++i)
      if (held[i]) free_x[i] = 0.0;
    J.add_transpose_product(free_x, dof, parallel);
  }
  dof.array() *= w.array();
  J.multiply(dof, y, parallel);
  y.array() += reg.array() * x.array();
  for (int i = 0; i < y.size(); ++i)
    if (is_held(i)) y[i] = 0.0;
}

Eigen::VectorXd SystemView::diagonal() const {
  Eigen::VectorXd d = J.gram_diagonal(w, parallel) + reg;
  for (int i = 0; i < d.size(); ++i)
    if (is_held(i)) d[i] = 1.0;
  return d;
}

}  // namespace linkage
