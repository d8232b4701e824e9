#pragma once
// The checks every validation shares, written once: each names the field it
// checks, and its Error carries that field (result.hpp).

#include <cmath>
#include <string>
#include <string_view>

#include "linkage/math.hpp"
#include "linkage/result.hpp"

namespace linkage {

inline Error invalid_argument(std::string field, std::string_view reason) {
  return field_error(ErrorCode::invalid_argument, std::move(field), reason);
}

// A number as people write it: 1e-300, not std::to_string's 0.000000.
std::string number_text(double x);
std::string vec_text(const Vec3& v);

// A point or direction: finite, and in the plane in 2D.
Status check_vec(const char* field, const Vec3& v, int dim);
Status check_nonnegative(const char* field, double x);  // finite and ≥ 0
Status check_positive(const char* field, double x);     // finite and > 0

}  // namespace linkage

// Returns the error of a failed check from the function it is in.
#define LINKAGE_CHECK(expr) \
  if (::linkage::Status s_ = (expr); !s_) return s_.error()
