#include "world_limits.hpp"

#include <cmath>
#include <string>

namespace linkage::server {
namespace {

Status take_count(bool has, int value, int cap, const char* field, int& into) {
  if (!has) return ok_status();
  if (value < 1 || value > cap)
    return field_error(ErrorCode::invalid_argument, std::string("limits.") + field, "must be 1 to " + std::to_string(cap) +
                                                  " on this server, got " + std::to_string(value));
  into = value;
  return ok_status();
}

Result<Limits> merge(const v1::WorldLimits& asked, const ServerLimits& server, Limits out) {
  const Limits& cap = server.world;
  if (Status s = take_count(asked.has_max_bodies(), asked.max_bodies(), cap.max_bodies, "max_bodies", out.max_bodies); !s)
    return s.error();
  if (Status s = take_count(asked.has_max_constraints(), asked.max_constraints(), cap.max_constraints,
                            "max_constraints", out.max_constraints);
      !s)
    return s.error();
  if (Status s = take_count(asked.has_max_forces(), asked.max_forces(), cap.max_forces, "max_forces", out.max_forces); !s)
    return s.error();
  if (asked.has_max_error()) {
    if (!(std::isfinite(asked.max_error()) && asked.max_error() >= 0.0))
      return field_error(ErrorCode::invalid_argument,
                   "limits.max_error", "must be ≥ 0 (m or rad; 0: no bound), got " + std::to_string(asked.max_error()));
    out.max_error = asked.max_error();
  }
  return out;
}

}  // namespace

Result<Limits> limits_from_proto(const v1::WorldLimits& asked, const ServerLimits& server) {
  return merge(asked, server, server.world);
}

Result<Limits> updated_limits(const v1::WorldLimits& asked, const ServerLimits& server, const HostedWorld& w) {
  Result<Limits> out = merge(asked, server, w.limits());
  if (!out) return out;
  const struct {
    const char* field;
    int limit;
    std::size_t held;
    const char* what;
  } counts[] = {{"max_bodies", out.value().max_bodies, w.core().body_count(), "bodies"},
                {"max_constraints", out.value().max_constraints, w.core().constraint_count(), "constraints"},
                {"max_forces", out.value().max_forces, w.core().force_count(), "forces"}};
  for (const auto& c : counts)
    if (static_cast<std::size_t>(c.limit) < c.held)
      return field_error(ErrorCode::failed_precondition, std::string("limits.") + c.field, "the world holds " +
                                                       std::to_string(c.held) + " " + c.what + ", more than " +
                                                       std::to_string(c.limit) + "; remove some first");
  return out;
}

}  // namespace linkage::server
