#pragma once
// Applied forces Q_a: gravity, damping, springs and dampers, user forces.

#include <Eigen/Core>

#include "parallel.hpp"
#include "world_data.hpp"

namespace linkage {

// Adds every applied force at state (q, q̇) into Qa (one entry per DOF);
// the bodies' own (gravity, damping) split between `parallel`'s threads.
void accumulate_forces(const WorldModel& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& Qa,
                       const Parallel& parallel = {});

// Σ ½ k (|d| − L)² over the world's springs at its current state.
double spring_energy(const WorldModel& m, const WorldData& d);

}  // namespace linkage
