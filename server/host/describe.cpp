#include "describe.hpp"

#include "convert/convert.hpp"

namespace linkage::server {

void halt_to_proto(const Halt& halt, v1::Halt* out) {
  switch (halt.reason) {
    case HaltReason::none: out->set_reason(v1::HALT_REASON_UNSPECIFIED); break;
    case HaltReason::watchdog: out->set_reason(v1::HALT_REASON_WATCHDOG); break;
    case HaltReason::diverged: out->set_reason(v1::HALT_REASON_DIVERGED); break;
  }
  out->set_tick(halt.tick);
  out->set_message(halt.message);
}

void describe(const std::string& name, const WorldHost::State& s, int subscribers, v1::World* out, bool hash) {
  out->set_name(name);
  const World& world = s.world.core();
  settings_to_proto(world.settings(), out->mutable_settings());
  limits_to_proto(s.world.limits(), out->mutable_limits());
  out->set_paused(s.paused);
  out->set_tick(s.tick);
  out->set_time(world.time());
  out->set_body_count(static_cast<std::uint32_t>(world.body_count()));
  out->set_constraint_count(static_cast<std::uint32_t>(world.constraint_count()));
  out->set_force_count(static_cast<std::uint32_t>(world.force_count()));
  out->set_topology_version(s.world.changes().version());
  out->set_overruns(s.overruns);
  out->set_subscribers(static_cast<std::uint32_t>(subscribers));
  if (s.halt.reason != HaltReason::none) {
    halt_to_proto(s.halt, out->mutable_halt());
  } else {
    out->clear_halt();
  }
  out->set_watchdog_halts(s.watchdog_halts);
  out->set_divergences(s.divergences);
  out->set_step_seconds(world.diagnostics().step_seconds);
  if (hash) {
    out->set_state_hash(world.state_hash());
  } else {
    out->clear_state_hash();
  }
}

}  // namespace linkage::server
