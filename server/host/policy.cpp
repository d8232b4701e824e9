#include "policy.hpp"

#include "convert/convert.hpp"

#include <cstdio>
#include <string>

namespace linkage::server {
namespace {

Error invalid_argument(std::string field, std::string_view reason) {
  return field_error(ErrorCode::invalid_argument, std::move(field), reason);
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

}  // namespace

Status check_tick_rate(double rate, const SettingsPolicy& policy, std::string_view field) {
  // A rate at the very bound comes back from dt as 1/(1/rate), a rounding
  // away from itself.
  constexpr double slack = 1e-12;
  if (!(rate >= policy.min_tick_rate * (1.0 - slack) && rate <= policy.max_tick_rate * (1.0 + slack)))
    return invalid_argument(std::string(field), "must be " + number(policy.min_tick_rate) + " to " +
                            number(policy.max_tick_rate) + " Hz on this server (--min-tick-rate, --max-tick-rate), got " +
                            number(rate));
  return ok_status();
}

Status check_settings(const WorldSettings& s, const SettingsPolicy& policy, std::string_view path) {
  const std::string at = std::string(path) + ".";
  if (Status ok = validate(s); !ok) return prefixed(ok.error(), path);
  // The world keeps dt; clients and flags give its inverse.
  if (Status ok = check_tick_rate(1.0 / s.dt, policy, at + "tick_rate"); !ok) return ok;
  const struct {
    const char* name;
    int value;
  } caps[] = {{"solver_max_iterations", s.solver_max_iterations},
              {"projection_max_iterations", s.projection_max_iterations},
              {"velocity_iterations", s.velocity_iterations},
              {"position_iterations", s.position_iterations},
              {"relax_iterations", s.relax_iterations}};
  for (const auto& cap : caps)
    if (cap.value > policy.max_iterations)
      return invalid_argument(at + cap.name, "must be at most " + std::to_string(policy.max_iterations) +
                              " on this server (--max-iterations), got " + std::to_string(cap.value));
  if (s.threads > policy.max_threads)
    return invalid_argument(at + "threads", "must be at most " + std::to_string(policy.max_threads) +
                            " on this server (--max-threads), got " + std::to_string(s.threads));
  return ok_status();
}

Status check_policy(const SettingsPolicy& p) {
  if (!(p.min_tick_rate > 0.0 && p.min_tick_rate <= p.max_tick_rate && p.max_tick_rate <= kTickRateCeiling))
    return invalid_argument("--min-tick-rate, --max-tick-rate", "need 0 < min ≤ max ≤ 10000 Hz, got " +
                            number(p.min_tick_rate) + " and " + number(p.max_tick_rate));
  if (p.max_iterations < 1 || p.max_iterations > 1000000)
    return invalid_argument("--max-iterations", "must be 1 to 1000000, got " + std::to_string(p.max_iterations));
  if (p.max_threads < 1 || p.max_threads > 64)
    return invalid_argument("--max-threads", "must be 1 to 64, got " + std::to_string(p.max_threads));
  return ok_status();
}

}  // namespace linkage::server
