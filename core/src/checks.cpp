#include "checks.hpp"

#include <cstdio>

namespace linkage {

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

std::string vec_text(const Vec3& v) {
  return "(" + number_text(v.x()) + ", " + number_text(v.y()) + ", " + number_text(v.z()) + ")";
}

Status check_vec(const char* field, const Vec3& v, int dim) {
  if (!v.allFinite()) return invalid_argument(field, "must be finite, got " + vec_text(v));
  if (dim == 2 && v.z() != 0.0) return invalid_argument(field, "z must be 0 in a 2D world, got " + vec_text(v));
  return ok_status();
}

Status check_nonnegative(const char* field, double x) {
  if (!std::isfinite(x) || x < 0.0) return invalid_argument(field, "must be finite and ≥ 0, got " + number_text(x));
  return ok_status();
}

Status check_positive(const char* field, double x) {
  if (!std::isfinite(x) || x <= 0.0) return invalid_argument(field, "must be finite and > 0, got " + number_text(x));
  return ok_status();
}

}  // namespace linkage
