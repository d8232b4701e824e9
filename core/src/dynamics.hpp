#pragma once
// The derivative evaluation of Witkin's method:
//   clear Q_a → apply forces → evaluate constraints → solve
//   J W Jᵀ λ = −(J̇q̇ + J W Q_a + c_tt + k_s C + k_d Ċ) → q̈ = W (Q_a + Jᵀ λ).

#include <Eigen/Core>

#include "world_data.hpp"

namespace linkage {

// q̈ at (t, q, q̇). `h` is the solver step (velocity rows, i.e. motors, close
// their error at rate 1/h); `weight` is this evaluation's share of the step
// in the integrator, used to report the λ a step applied.
void accelerations(const WorldModel& m, WorldData& d, Workspace& ws, double h, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Eigen::VectorXd& a, double weight);

// Fills ws.w (W per DOF) from the bodies; call after any change of mass or motion.
void update_inverse_masses(const WorldModel& m, WorldData& d, Workspace& ws);
// Whether ws.w is the model's (update_inverse_masses has nothing to do).
bool inverse_masses_current(const WorldModel& m, const WorldData& d, const Workspace& ws);

}  // namespace linkage
