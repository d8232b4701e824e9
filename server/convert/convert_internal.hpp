#pragma once
// Helpers shared by the convert/*.cpp files; not part of the library's face.

#include <functional>
#include <string>
#include <string_view>

#include "linkage/linkage.hpp"
#include "linkage/v1/types.pb.h"

namespace linkage::server {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

// "path.field" (either may be empty).
std::string join_path(std::string_view path, std::string_view field);
// INVALID_ARGUMENT "<path>.<field>: <reason>".
Error invalid(std::string_view path, std::string_view field, std::string_view reason);
// Rewrites the field list a core message starts with ("a, b: ...") through
// `map`; a message that does not start with fields gets "<path>: " in front.
Error with_fields(Error error, std::string_view path, const std::function<std::string(std::string_view)>& map);
// True for (+0, +0, +0) only: −0 must survive a save so that a reload is
// bit-identical, so it is written out like any other value.
bool all_zero_bits(const Vec3& v);

}  // namespace linkage::server
