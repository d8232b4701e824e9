#pragma once
// linkaged's log lines, in one of two formats (--log-format):
//
//   text  spdlog's own: "[2026-11-23 09:31:14.549] [info] world 'a': restored at tick 12"
//   json  one object a line, for log collectors:
//         {"time":"2026-11-23T09:31:14.549Z","level":"info","world":"a","event":"world.restored",
//          "message":"restored at tick 12","fields":{"tick":12}}
//
// Messages that matter to an operator go through event(): a short stable
// name (what a collector filters on), the world it is about, and fields with
// their values. Every other spdlog line is rendered too, as the event
// "message" (no world, no fields), so each line of stderr parses as JSON;
// gRPC's own lines come as the event "grpc" (grpc_lines.hpp).

#include <spdlog/spdlog.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

namespace linkage::server::log {

enum class Format { text, json };

// Sets the format of spdlog's default logger (stderr). Called first thing
// at start-up.
void set_format(Format format);
// "text" or "json"; false for anything else.
bool parse_format(std::string_view text, Format* out);

// `text` as a JSON string, quotes included: escapes quotes, backslashes and
// control characters; a byte that is not UTF-8 becomes U+FFFD.
std::string json_string(std::string_view text);

// One field of an event: its name and its value, rendered as JSON.
struct Field {
  template <class T>
  Field(std::string_view name, const T& value) : name(name), json(render(value)) {}

  std::string_view name;
  std::string json;

 private:
  template <class T>
  static std::string render(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      return value ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(value);
    } else if constexpr (std::is_floating_point_v<T>) {
      return render_double(static_cast<double>(value));
    } else {
      return json_string(std::string_view(value));
    }
  }
  static std::string render_double(double value);  // null if not finite
};

// Logs `message` at `level` as the event `event` about `world` (empty: the
// server as a whole). In text: "world 'NAME': message"; fields only in json
// (the message says them in words).
void event(spdlog::level::level_enum level, std::string_view event, std::string_view world, std::string_view message,
           std::initializer_list<Field> fields = {});

}  // namespace linkage::server::log
