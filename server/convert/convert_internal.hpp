#pragma once
// Helpers shared by the convert/*.cpp files; not part of the library's face.

#include <functional>
#include <optional>
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
// Reads the numbers of one message, keeping the first error so that a def can
// be written as one braced initializer (evaluated left to right) and checked
// once at the end. Every number a client sends must be finite: only an absent
// field means "the current value" or "unlimited", never a NaN or an infinity.
struct Fields {
  std::string path;
  std::optional<Error> error{};

  double num(double v, std::string_view field);
  Vec3 vec(const v1::Vec3& v, std::string_view field);
  // A proto3 `optional` number: its value if set, `unset` if not;
  // `unset_means` says what leaving it out does ("the current value").
  double optional(bool has, double v, std::string_view field, double unset, std::string_view unset_means);
  // A Vec3 whose absence means `unset`.
  Vec3 optional_vec(bool has, const v1::Vec3& v, std::string_view field, const Vec3& unset);
  // Records `e` unless an error came first.
  void fail(Error e);
};

// True for (+0, +0, +0) only: −0 must survive a save so that a reload is
// bit-identical, so it is written out like any other value.
bool all_zero_bits(const Vec3& v);

}  // namespace linkage::server
