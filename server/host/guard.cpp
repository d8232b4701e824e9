#include "guard.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace linkage::server {
namespace {

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", x);
  return text;
}

// The first body whose column holds a non-finite value (`per_body` values each).
std::optional<std::size_t> first_not_finite(const std::vector<double>& column, std::size_t per_body) {
  for (std::size_t i = 0; i < column.size(); ++i)
    if (!std::isfinite(column[i])) return i / per_body;
  return std::nullopt;
}

}  // namespace

bool Watchdog::overran(double step_seconds, double period, const WatchdogLimits& limits) {
  if (limits.ticks <= 0) return false;
  streak_ = step_seconds > limits.factor * period ? streak_ + 1 : 0;
  return streak_ >= limits.ticks || long_step(step_seconds, period, limits);
}

std::optional<std::string> divergence(const World& world, const StepDiagnostics& step, double max_error,
                                      BodyStates& b) {
  world.body_states(b);
  const auto dim = static_cast<std::size_t>(world.settings().dimension);
  const struct {
    const std::vector<double>& column;
    std::size_t per_body;
    const char* what;
  } columns[] = {{b.position, dim, "position"},
                 {b.velocity, dim, "velocity"},
                 {b.angle, 1, "angle"},
                 {b.angular_velocity, 1, "angular velocity"}};
  for (const auto& c : columns)
    if (const auto body = first_not_finite(c.column, c.per_body)) {
      const BodyId id = b.ids[*body];
      return "body " + std::to_string(id.index) + ":" + std::to_string(id.generation) + "'s " + c.what +
             " is not finite";
    }
  // Constraint errors and energies overflow before the state does when it
  // grows without bound; catching them here saves the steps in between.
  const struct {
    double value;
    const char* what;
  } measures[] = {{step.max_error, "the largest constraint error"},
                  {step.max_error_rate, "the largest constraint error rate"},
                  {step.kinetic_energy, "the kinetic energy"},
                  {step.gravitational_energy, "the gravitational energy"},
                  {step.spring_energy, "the spring energy"}};
  for (const auto& m : measures)
    if (!std::isfinite(m.value)) return std::string(m.what) + " is not finite";
  if (max_error > 0.0 && step.max_error > max_error)
    return "the largest constraint error, " + number(step.max_error) + ", is above the world's limit of " +
           number(max_error) + " (limits.max_error)";
  return std::nullopt;
}

}  // namespace linkage::server
