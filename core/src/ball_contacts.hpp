#pragma once
// Contacts in a 3D world: particles whose shape is a disk are balls, and
// bodies whose shape is a plane are endless walls. One point per touching
// pair, with a normal row (λ ≥ 0) and friction bounded by the circular cone
// |λ_t| ≤ μ λ (a 2D vector across the normal, clamped as a whole rather than
// per axis, so no direction slides more easily than another); restitution,
// speculative margin, slop and position sweeps as in 2D (contacts.hpp).

#include "contacts.hpp"

namespace linkage {

class BallContacts final : public Contacts {
 public:
  BallContacts(const WorldModel& m, const WorldData& d, const Eigen::VectorXd& v, double h);

  void warm_start(Eigen::VectorXd& v) const override;
  void sweep(Eigen::VectorXd& v) override;
  void restitute(Eigen::VectorXd& v) override;
  double correct_positions(Eigen::VectorXd& q) const override;
  void store(std::vector<ContactRecord>& out) const override;
  void found(std::vector<FoundPoint>& out) const override;
  bool capped() const override { return capped_; }

 private:
  bool capped_ = false;
  struct Point {
    int a = -1, b = -1;              // dense body indices
    int offset_a = 0, offset_b = 0;  // the bodies' first DOF
    double inv_a = 0.0, inv_b = 0.0;
    BodyId id_a, id_b;
    bool plane = false;  // a is a plane, whose normal stays; else two balls, along their centres
    double radius_a = 0.0, radius_b = 0.0;
    Vec3 normal, point;
    double separation = 0.0;
    double mass = 0.0;  // 1 / (w_a + w_b): a particle's effective mass along any direction
    double friction = 0.0, restitution = 0.0;
    double approach = 0.0, bias = 0.0;
    double normal_impulse = 0.0;
    Vec3 friction_impulse = Vec3::Zero();
  };

  static Vec3 relative_velocity(const Point& p, const Eigen::VectorXd& v);
  static void apply(const Point& p, const Vec3& impulse, Eigen::VectorXd& v);
  // The separation at q and the normal it is measured along.
  static double separation_at(const Point& p, const Eigen::VectorXd& q, Vec3& normal);

  const WorldModel& m_;
  std::vector<Point> points_;
};

}  // namespace linkage
