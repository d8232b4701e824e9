#pragma once
// Contacts in the exact family (Dynamics::velocity_projection): the manifolds found at a
// substep's start become rows of the constraint system, after the model's
// constraints, and are solved with the joints in every solve of the substep.
//
// - A point's normal row is one-sided like a rope's: C = −separation ≤ 0,
//   λ ≤ 0 (it pushes, never pulls). A gap may close within the step, no
//   more (speculative, as for a slack rope), and position projection holds
//   C ≤ projection_tolerance: no slop.
// - Friction is a velocity row bounded by μ times the normal impulse of the
//   same solve (found by re-solving until the bound stops moving). In 2D a
//   manifold has one friction row at its points' centre, bounded by μ times
//   their normal impulses together: its points slide together, and two
//   friction rows would be the same row. In 3D a ball's point has two, the
//   first along the slip when found: the pyramid, with the cone's bound on
//   each.
// - The rows are regularized by kContactCompliance of their diagonal, so
//   that a pile with more contact rows than freedoms (every stack) has a
//   solution and no bounded row is ever taken for a dependent one.
// - Restitution: after the velocity solve, points that pushed and closed
//   faster than the threshold leave at e times their approach speed, in one
//   more solve with the joints held.

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "contact_point.hpp"

namespace linkage {

struct WorldModel;
struct WorldData;
struct Rows;
struct ContactRecord;

class ContactRows {
 public:
  static constexpr double kContactCompliance = 1e-7;
  enum Kind : char { none = 0, normal = 1, friction = 2 };

  // The manifolds at (d.q, v) of a world whose settings ask for contacts in
  // the exact family, warm-started from d.contacts; empty otherwise.
  void find(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h);
  // Adds the points the narrow phase finds overlapping by more than
  // `tolerance` at (d.q, v) that the set lacks (a box's corner that turned
  // into its neighbour during the step: the set is found at the step's
  // start). Returns whether it added any.
  bool add_missed(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h, double tolerance);
  // No contacts (another family, or a changed model).
  void clear();
  // The set found for this model (its versions): else it is stale and adds no rows.
  bool active_for(const WorldModel& m) const;

  int groups() const { return static_cast<int>(groups_.size()); }
  int rows() const { return rows_; }
  // Its searches left pairs out (Contacts::capped).
  bool capped() const { return capped_; }
  // Changes with every new set: J's layout follows it.
  std::uint64_t stamp() const { return stamp_; }
  int body_a(int g) const { return groups_[static_cast<std::size_t>(g)].a; }
  int body_b(int g) const { return groups_[static_cast<std::size_t>(g)].b; }
  int group_rows(int g) const { return groups_[static_cast<std::size_t>(g)].rows; }
  Kind kind(int g, int r) const { return r < groups_[static_cast<std::size_t>(g)].points ? normal : friction; }

  // Group g's rows at (q, v): C, Ċ, J blocks (a's, b's); normal rows
  // bounded to λ ≤ 0, friction rows unbounded (bound_friction sets them).
  void evaluate(const WorldModel& m, int g, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Rows& out) const;

  // Each friction row's bounds ← ±μ times its group's normal impulses in
  // `lambda` (rows from `first`, N·s); the warm start's before any solve
  // (lambda empty). Returns whether the solve must be done again: a row at
  // its bound saw the bound move, or a row is past its new bound.
  bool bound_friction(Eigen::VectorXd& lo, Eigen::VectorXd& hi, const Eigen::VectorXd& lambda, int first) const;
  // The normal rows' warm start λ (−impulse), friction rows' 0, into lambda from `first`.
  void warm_start(Eigen::VectorXd& lambda, int first) const;

  // Restitution: per row from `first`, the velocity Ċ a point that pushed
  // (λ < 0) and closed faster than `threshold` leaves with (−e · approach,
  // as Ċ = −v_n); NaN for every other row.
  void bounce_targets(const Eigen::VectorXd& lambda, int first, double threshold, Eigen::VectorXd& target) const;

  // The substep's impulses so far: λ's shares (N·s) per row, from `first`.
  void add_impulses(const Eigen::VectorXd& lambda, int first, double scale);
  // The substep's impulses so far, per row (a capped projection goes back
  // to those of the best point it visited).
  const std::vector<double>& impulses() const { return impulse_; }
  void set_impulses(const std::vector<double>& impulses) { impulse_ = impulses; }
  // Has contact row r (counted from the first contact row) pushed in this substep?
  bool pushed(int r) const { return impulse_[static_cast<std::size_t>(r)] < 0.0; }
  // The substep's points as the world's contact records, sorted by key:
  // each point, normal and separation at (d.q) where the substep ends.
  void store(const WorldModel& m, const WorldData& d, std::vector<ContactRecord>& out) const;

 private:
  struct Group {
    int a = -1, b = -1;
    int first_point = 0, points = 0;
    int rows = 0;  // points + friction rows
    double friction = 0.0;
    Vec3 slip = Vec3::Zero();  // 3D: the first friction direction when found
  };

  // Appends a group for the points [first, end) of points_ (one manifold's).
  void add_group(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, int first, int end);

  std::vector<FoundPoint> points_;
  std::vector<Group> groups_;
  std::vector<double> impulse_;  // per row
  int rows_ = 0, dim_ = 2;
  bool capped_ = false;
  std::uint64_t model_ = ~0ull, topology_ = ~0ull, stamp_ = 0;
};

}  // namespace linkage
