#pragma once
// The server's bounds on a world's settings, beyond the engine's own ranges:
// the tick rates and iteration caps an operator allows (linkaged's flags).
// One check serves the flags' defaults, the --scene file, CreateWorld,
// UpdateWorld and LoadScene, so no path lets in a world another would refuse.

#include <string_view>

#include "linkage/result.hpp"
#include "linkage/settings.hpp"

namespace linkage::server {

struct SettingsPolicy {
  // Hz. Below the minimum a tick period is too long to schedule (1e-300 Hz
  // overflows the clock); above the maximum a tick loop cannot keep time.
  double min_tick_rate = 0.001;
  double max_tick_rate = 10000.0;
  // The most iterations any one setting may ask for (solver_max_iterations,
  // projection_max_iterations, velocity, position and relax iterations): with
  // the engine's 1000 substeps, what bounds the work of one step.
  int max_iterations = 10000;
  // Threads one world may step with (WorldSettings::threads): more than the
  // machine's cores only wait on each other.
  int max_threads = 2;
};

// The range a tick rate flag or field may take: the engine's, as convert's
// settings_from_proto checks it (> 0 and ≤ 10000 Hz).
inline constexpr double kTickRateCeiling = 10000.0;

// OK, or INVALID_ARGUMENT "<field>: ..." for a tick rate (Hz) out of the policy's range.
Status check_tick_rate(double rate, const SettingsPolicy& policy, std::string_view field);

// OK, or INVALID_ARGUMENT "<path>.<setting>: ..." for the first setting the
// engine (linkage::validate) or the policy refuses.
Status check_settings(const WorldSettings& settings, const SettingsPolicy& policy, std::string_view path = "settings");

// The policy itself, as linkaged's flags give it: OK, or INVALID_ARGUMENT
// naming the flag.
Status check_policy(const SettingsPolicy& policy);

}  // namespace linkage::server
