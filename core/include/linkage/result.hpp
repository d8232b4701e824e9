#pragma once
// Errors a caller can show. Every call that takes user input validates it and
// returns one of these instead of asserting; a failed call changes nothing.

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace linkage {

enum class ErrorCode {
  invalid_argument,     // a value is malformed: not finite, out of range, wrong for the world
  not_found,            // an id names nothing, or something already removed
  failed_precondition,  // the request is well-formed but the world's state forbids it
  resource_exhausted,   // a limit was reached
};

struct Error {
  ErrorCode code = ErrorCode::invalid_argument;
  std::string message;  // names the field and the reason, e.g. "mass: must be > 0, got -1"
  // The field at fault, as a path in the def or settings the call took
  // ("mass", "shape.radius"; "a, b" when two conflict; empty: the call as a
  // whole). The message starts with it and ": ", so a caller that holds the
  // def inside its own request rewrites the path without reading the text.
  std::string field{};
};

// An error about `field`: its message reads "field: reason".
inline Error field_error(ErrorCode code, std::string field, std::string_view reason) {
  std::string message = field + ": ";
  message += reason;
  return {code, std::move(message), std::move(field)};
}

// The value of a call that may fail. Small on purpose: ok(), value(), error().
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& operator*() const { return value(); }
  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// A call that returns nothing on success.
struct Done {};
using Status = Result<Done>;
inline Status ok_status() { return Done{}; }

}  // namespace linkage
