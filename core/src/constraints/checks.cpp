#include "checks.hpp"

#include <cmath>
#include <string>

namespace linkage {

Status check_direction(const char* field, const Vec3& v, int dim) {
  if (Status s = check_vec(field, v, dim); !s) return s;
  if (v.norm() < 1e-12) return invalid_argument(field, "must be a non-zero direction");
  return ok_status();
}

Status check_length_or_current(const char* field, double x) {
  if (std::isnan(x)) return ok_status();
  if (!std::isfinite(x) || x <= 0.0) return invalid_argument(field, "must be > 0 (or NaN for the current value), got " + std::to_string(x));
  return ok_status();
}

Status check_finite_or_current(const char* field, double x) {
  if (std::isinf(x)) return invalid_argument(field, "must be finite (or NaN for the current value)");
  return ok_status();
}

Status check_pair(BodyId a, BodyId b, const char* name_a, const char* name_b) {
  if (b.is_null()) return invalid_argument(name_b, "must name a body");
  if (a == b) return invalid_argument(std::string(name_a) + ", " + name_b, "name the same body; the constraint needs two different bodies");
  return ok_status();
}

Status need_2d(const char* type, int dim) {
  if (dim != 2) return invalid_argument(type, "needs a 2D world (rotations are 2D only)");
  return ok_status();
}

Status need_rigid(const char* field, BodyFacts f, bool world_ok) {
  if (!f.exists && world_ok) return ok_status();
  if (!f.exists) return invalid_argument(field, "must name a rigid body");
  if (!f.rigid) return invalid_argument(field, "must be a rigid body (it has no angle), got a particle");
  return ok_status();
}

}  // namespace linkage
