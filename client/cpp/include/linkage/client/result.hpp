#pragma once
// Results of client calls: a value, or the server's status and message.
//
// Every call of the library answers with a Result instead of throwing, so a
// refused command (INVALID_ARGUMENT "body.mass: ...") or an unreachable server
// (UNAVAILABLE) is something the caller shows, never a crash. Reading the value
// of a failed Result is the caller's bug, and throws BadResultAccess with the
// error in its message rather than reading garbage.

#include <grpcpp/support/status.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace linkage::client {

struct Error {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  std::string message;  // the server's, e.g. "commands[2].constraint.distance.length: must be > 0"

  static Error from(const grpc::Status& status) { return {status.error_code(), status.error_message()}; }
  // "NOT_FOUND: body 3:1 ..." (the code's name, then the message).
  std::string to_string() const;
};

// "OK", "CANCELLED", ..., "UNAUTHENTICATED"; "CODE_<n>" for anything else.
const char* code_name(grpc::StatusCode code);

class BadResultAccess : public std::logic_error {
 public:
  explicit BadResultAccess(const Error& error) : std::logic_error("value() of a failed Result: " + error.to_string()) {}
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit, as a return value
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { check(); return std::get<0>(v_); }
  T& value() & { check(); return std::get<0>(v_); }
  // By value: `for (x : call().value())` must not refer into a dead temporary.
  T value() && { check(); return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // The error; an OK result has none (code OK, empty message).
  const Error& error() const {
    static const Error none{grpc::StatusCode::OK, {}};
    return ok() ? none : std::get<1>(v_);
  }

 private:
  void check() const {
    if (!ok()) throw BadResultAccess(std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

// A call with nothing to answer but success.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT

  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    static const Error none{grpc::StatusCode::OK, {}};
    return error_ ? *error_ : none;
  }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

}  // namespace linkage::client
