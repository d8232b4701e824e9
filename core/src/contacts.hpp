#pragma once
// Contacts in the sequential-impulse family (Box2D 2.4's contact solver, on
// the narrow phase of collision/): each contact point has a normal row
// (λ ≥ 0: contacts push, never pull) and a friction row bounded by μ λ (in
// 2D the friction pyramid is the exact Coulomb cone), warm-started from the
// last step by its bodies and feature id. Restitution is applied after the
// velocity sweeps from the approach speed the step began with (as Box2D v3
// does), so that a speculative contact, met before it touches, still bounces.
// Overlap beyond the slop is removed by position sweeps, not by velocity.

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "collision/manifold.hpp"
#include "contact_point.hpp"
#include "world_data.hpp"

namespace linkage {

// A step's contacts as the sequential-impulse step drives them, in either
// dimension: 2D shapes here (ContactSolver), 3D balls and planes in
// ball_contacts.hpp.
class Contacts {
 public:
  virtual ~Contacts() = default;
  // v += W Jᵀ λ of the warm-start impulses.
  virtual void warm_start(Eigen::VectorXd& v) const = 0;
  // One Gauss–Seidel sweep over the contacts: friction, then the normal rows.
  virtual void sweep(Eigen::VectorXd& v) = 0;
  // The bounce: approaching points that pushed get −e times their approach speed.
  virtual void restitute(Eigen::VectorXd& v) = 0;
  // One nonlinear Gauss–Seidel sweep on positions against the overlap beyond
  // the slop (Box2D's position solver); the worst separation it saw.
  virtual double correct_positions(Eigen::VectorXd& q) const = 0;
  // The impulses for the next step's warm start and World::contacts, sorted by key.
  virtual void store(std::vector<ContactRecord>& out) const = 0;
  // The points as found, a manifold's points together: the exact family's rows.
  virtual void found(std::vector<FoundPoint>& out) const = 0;
  // More pairs overlapped than the step looked at (kContactPairsPerBody).
  virtual bool capped() const = 0;
};

// Box2D's filter rule (body.hpp's Filter).
bool may_touch(const Filter& a, const Filter& b);
// The pairs of bodies a constraint joins (dense indices, smaller first): they
// do not collide (a hinge's two links overlap where they meet).
std::set<std::pair<int, int>> joined_pairs(const WorldModel& m);

// The step's contacts at (d.q, v), warm-started from d.contacts, for a world
// whose settings ask for contacts.
std::unique_ptr<Contacts> find_contacts(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h);

class ContactSolver final : public Contacts {
 public:
  // Finds the step's contacts at (d.q, v) and warm-starts them from d.contacts.
  ContactSolver(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h);

  void warm_start(Eigen::VectorXd& v) const override;
  void sweep(Eigen::VectorXd& v) override;
  void restitute(Eigen::VectorXd& v) override;
  double correct_positions(Eigen::VectorXd& q) const override;
  void store(std::vector<ContactRecord>& out) const override;
  void found(std::vector<FoundPoint>& out) const override;
  bool capped() const override { return capped_; }

 private:
  bool capped_ = false;
  // A body as the velocity sweeps need it, copied once per step.
  struct End {
    int offset = 0;
    bool rigid = false;
    double inv_mass = 0.0, inv_inertia = 0.0;
  };
  struct Point {
    int a = -1, b = -1;   // dense body indices
    End end_a, end_b;
    BodyId id_a, id_b;
    std::uint32_t feature = 0;
    Vec2 normal, point;
    Vec2 ra, rb;                // from each centre of mass to the point
    // For the position sweeps, which re-measure the separation as the bodies
    // move (Box2D's position manifold): a face contact keeps its face's
    // normal and a point on that face in the reference body's frame and the
    // touching point in the other's; a point contact (closest features)
    // keeps the two core points, whose line is its normal.
    int reference = 0;          // 1: a's face, 2: b's face, 0: closest core points
    Vec2 local_normal;          // the face's normal, in its body's frame (pointing out of it)
    Vec2 local_a, local_b;      // a's and b's points, each in its own frame
    double radius_a = 0.0, radius_b = 0.0;
    double separation = 0.0;
    double normal_mass = 0.0, tangent_mass = 0.0;
    double friction = 0.0, restitution = 0.0;
    double approach = 0.0;      // normal relative speed when the step began (< 0: closing)
    double bias = 0.0;          // the normal speed the row aims at (speculative: −separation / h)
    double normal_impulse = 0.0, tangent_impulse = 0.0;
    // The first of a two-point manifold whose normals are solved together:
    // their K = [k11 k12; k12 k22] and its determinant (block = false: K is
    // too near singular, so they are solved one by one).
    bool block = false;
    double k11 = 0.0, k12 = 0.0, k22 = 0.0, det = 0.0;
    int count = 1;  // the points of its manifold, on the first of them
  };

  static void set_position_manifold(Point& p, const collision::Pose& pa, const collision::Pose& pb, double radius_a,
                                    double radius_b);
  static Vec2 relative_velocity(const Point& p, const Eigen::VectorXd& v);
  static void apply(const Point& p, const Vec2& impulse, Eigen::VectorXd& v);
  static void solve_normal(Point& p, Eigen::VectorXd& v);
  // Two points of one manifold solved together (Box2D 2.4's block solver):
  // sequential sweeps over them tilt a resting box, one corner at a time.
  static void prepare_block(Point& p1, const Point& p2);
  static bool solve_normal_pair(Point& p1, Point& p2, Eigen::VectorXd& v);

  // The points live in a buffer kept per thread from step to step: a
  // pyramid's 800 are 300 KB, which a fresh vector would take from the
  // kernel at every substep. One solver runs on a thread at a time.
  static std::vector<Point>& buffer();

  const WorldModel& m_;
  std::vector<Point>& points_ = buffer();
};

}  // namespace linkage
