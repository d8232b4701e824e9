// The scene generators.
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "linkage/scenes/spec.hpp"

namespace linkage::scenes {
namespace {

constexpr double kSpacing = 0.1;  // m, between particles of the chain and the cloth

int add_particle(SceneSpec& s, Vec2 position, double mass = 1.0) {
  s.bodies.push_back({.type = BodyType::particle, .position = position, .mass = mass});
  return static_cast<int>(s.bodies.size()) - 1;
}

// A rod between the current positions of a and b (−1: the world at `world_point`).
void add_rod(SceneSpec& s, int a, int b, Vec2 world_point = Vec2::Zero()) {
  const Vec2 pa = a < 0 ? world_point : s.bodies[static_cast<std::size_t>(a)].position;
  const Vec2 pb = s.bodies[static_cast<std::size_t>(b)].position;
  const double length = (pb - pa).norm();
  s.joints.push_back(
      {.kind = JointKind::rod, .a = a, .b = b, .anchor_a = pa, .anchor_b = pb, .length = length, .scale = length});
}

void add_pin(SceneSpec& s, int a, int b, Vec2 point, double scale) {
  s.joints.push_back({.kind = JointKind::pin, .a = a, .b = b, .anchor_a = point, .anchor_b = point, .scale = scale});
}

double dynamic_mass(const SceneSpec& s) {
  double m = 0.0;
  for (const BodySpec& b : s.bodies)
    if (!b.fixed) m += b.mass;
  return m;
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

void set_energy_scale(SceneSpec& s, double height, const std::string& what) {
  const double m = dynamic_mass(s);
  s.energy_scale = m * s.gravity.norm() * height;
  s.energy_scale_text = "M g H = " + number(m) + " kg x " + number(s.gravity.norm()) + " m/s^2 x " + number(height) +
                        " m (" + what + ") = " + number(s.energy_scale) + " J";
}

}  // namespace

SceneSpec pendulum() {
  SceneSpec s;
  s.name = "pendulum";
  const int bob = add_particle(s, Vec2(1.0, 0.0));
  add_rod(s, -1, bob);
  set_energy_scale(s, 1.0, "the rod");
  return s;
}

SceneSpec chain(int n) {
  SceneSpec s;
  s.name = "chain_" + std::to_string(n);
  for (int i = 0; i < n; ++i) {
    const int p = add_particle(s, Vec2(kSpacing * (i + 1), 0.0));
    add_rod(s, p - 1, p);  // the first link's a is −1: the origin
  }
  set_energy_scale(s, kSpacing * n, "the chain's length");
  return s;
}

SceneSpec cloth(int n) {
  SceneSpec s;
  s.name = "cloth_" + std::to_string(n);
  auto index = [n](int row, int col) { return row * n + col; };
  for (int row = 0; row < n; ++row)
    for (int col = 0; col < n; ++col) add_particle(s, Vec2(kSpacing * col, -kSpacing * row));
  for (int row = 0; row < n; ++row)
    for (int col = 0; col < n; ++col) {
      if (col + 1 < n) add_rod(s, index(row, col), index(row, col + 1));
      if (row + 1 < n) add_rod(s, index(row, col), index(row + 1, col));
    }
  add_pin(s, -1, index(0, 0), s.bodies[static_cast<std::size_t>(index(0, 0))].position, kSpacing);
  add_pin(s, -1, index(0, n - 1), s.bodies[static_cast<std::size_t>(index(0, n - 1))].position, kSpacing);
  s.steps = 300;
  const double height = kSpacing * (n - 1);
  set_energy_scale(s, height, "the cloth's height");
  return s;
}

SceneSpec cloth_slack(int n) {
  SceneSpec s;
  s.name = "cloth_" + std::to_string(n) + "_slack";
  s.steps = 300;
  constexpr double kColumn = 0.09;  // m between columns: rods 0.1 m long span less
  const double dz = std::sqrt(kSpacing * kSpacing - kColumn * kColumn);
  auto index = [n](int column, int row) { return row * n + column; };
  for (int row = 0; row < n; ++row)
    for (int column = 0; column < n; ++column) {
      const bool fixed = row == 0 && (column == 0 || column == n - 1);
      s.bodies.push_back({.type = BodyType::particle,
                          .fixed = fixed,
                          .position = Vec2(kColumn * column, -kSpacing * row - (column % 2 ? dz : 0.0))});
    }
  for (int row = 0; row < n; ++row)
    for (int column = 0; column < n; ++column) {
      if (column + 1 < n) add_rod(s, index(column, row), index(column + 1, row));
      if (row + 1 < n) add_rod(s, index(column, row), index(column, row + 1));
    }
  set_energy_scale(s, kSpacing * (n - 1) + dz, "the cloth's height");
  return s;
}

SceneSpec joint_grid(int n) {
  SceneSpec s;
  s.name = n == 100 ? "joint_grid" : "joint_grid_" + std::to_string(n);
  s.gravity = Vec2(0.0, -10.0);
  s.steps = 500;
  constexpr double kRadius = 0.4, kDensity = 1.0;
  const double mass = kDensity * std::numbers::pi * kRadius * kRadius;
  const double inertia = 0.5 * mass * kRadius * kRadius;
  // Box2D v3's layout: k runs over columns (x = k), i over rows (y = −i); body
  // index = k n + i; the top-row bodies n/2 − 3 … n/2 + 3 are static.
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i) {
      const bool fixed = i == 0 && k >= n / 2 - 3 && k <= n / 2 + 3;
      s.bodies.push_back({.type = BodyType::rigid,
                          .fixed = fixed,
                          .position = Vec2(k, -i),
                          .mass = mass,
                          .inertia = inertia,
                          .radius = kRadius});
      const int body = k * n + i;
      if (i > 0) add_pin(s, body - 1, body, Vec2(k, -i + 0.5), 1.0);  // the upper neighbour
      if (k > 0) add_pin(s, body - n, body, Vec2(k - 0.5, -i), 1.0);  // the left neighbour
    }
  set_energy_scale(s, n - 1.0, "the grid's height");
  return s;
}

bool is_inert(const SceneSpec& spec, const JointSpec& joint) {
  auto fixed = [&](int i) { return i < 0 || spec.bodies[static_cast<std::size_t>(i)].fixed; };
  return fixed(joint.a) && fixed(joint.b);
}

SceneCounts counts(const SceneSpec& spec) {
  SceneCounts c;
  c.bodies = static_cast<int>(spec.bodies.size());
  for (const BodySpec& b : spec.bodies) {
    if (b.fixed) continue;
    ++c.dynamic_bodies;
    c.dof += b.type == BodyType::rigid ? 3 : 2;
  }
  c.joints = static_cast<int>(spec.joints.size());
  for (const JointSpec& j : spec.joints) {
    if (is_inert(spec, j)) continue;
    ++c.active_joints;
    c.equations += j.kind == JointKind::rod ? 1 : 2;
  }
  return c;
}

}  // namespace linkage::scenes
