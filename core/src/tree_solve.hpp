#pragma once
// The velocity-level solves (the step's velocity solve, RATTLE) on acyclic
// constraint graphs: K λ = ws.rhs over the rows not held, for the rows the
// evaluation wrote into the workspace, with K = J W Jᵀ factored on the body
// tree (solvers/tree_elimination.hpp, on the analysis position projection's
// tree path made: tree_projection.hpp) in place of the general direct
// solver. A K the last velocity-level solve factored (RATTLE's is the next
// step's velocity solve's) is solved again without factoring: the same J
// (its values stamp), W and held rows, which factoring again would give
// bit for bit.

#include "solvers/solvers.hpp"

namespace linkage {

struct WorldModel;
struct WorldData;
struct Workspace;

// Solves into ws.lambda as solve_system would, when the tree path applies
// (tree_applies), every row it does not solve is held, no row is
// regularized (a soft row's compliance) or has a known λ, and no bounded
// row's λ is past its bound (the general path's active set is for that).
// Its residual is left NaN: residual_on_tree measures it from the
// correction the caller takes. False, with ws.lambda and the counters
// unchanged, when it does not apply.
bool solve_on_tree(const WorldModel& m, Workspace& ws, SolveStats& stats);

// |r − K λ| / |r| over the rows not held for solve_on_tree's λ, from
// dv = W Jᵀ λ (w_jt_on_tree's): K λ = J dv, one pass over the rows (over
// the compact Rods where the model is of particle rods whose ends all move).
double residual_on_tree(const WorldModel& m, const Workspace& ws, const Eigen::VectorXd& dv);

// out = W Jᵀ λ for ws.lambda through ws.J, as w_jt_product gives it on
// one thread, in one pass over the compact Rods where the model is of
// particle rods whose ends all move and tp.J holds J's blocks; through the
// workspace's J otherwise.
void w_jt_on_tree(const WorldModel& m, Workspace& ws, Eigen::VectorXd& out);

// add_constraint_forces for ws.lambda through ws.J (factor · λ into the
// step's λ and Jᵀ (factor · λ) into its blocks' forces), in one pass over
// the compact Rods where w_jt_on_tree takes them.
void constraint_forces_on_tree(const WorldModel& m, WorldData& d, Workspace& ws, double factor, double t);

// Ċ += J (v − ws.rows_v) for the workspace's J and rows, as evaluate_rows
// moves its rows' Ċ to a new velocity through BlockJacobian::multiply (the
// same sums in the same order), in one pass over the compact Rods where
// w_jt_on_tree takes them and J holds the model's rows alone. False, with
// nothing changed, where it does not apply.
bool move_rates_on_tree(const WorldModel& m, Workspace& ws, const Eigen::VectorXd& v);

// RATTLE's rows at (t, d.q, d.v) without the generic evaluation, for a
// model of rods and ropes alone in the impulse family: C and J are the
// tree projection's last evaluation's when it ended at d.q (its rods
// written out), Ċ = J q̇, and J̇q̇ is left out (the impulse family does not
// read it). Into the workspace as evaluate_rows writes them, remembered
// for the step's measure and the next step to reuse. False, with nothing
// changed, when it does not apply.
bool rows_from_tree(const WorldModel& m, const WorldData& d, Workspace& ws, double t);

}  // namespace linkage
