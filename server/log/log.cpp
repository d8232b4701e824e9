#include "log.hpp"

#include "convert/names.hpp"

#include <spdlog/formatter.h>

#include <cmath>
#include <ctime>
#include <vector>

namespace linkage::server::log {
namespace {

// What event() adds to the message it logs. spdlog's default logger formats
// on the calling thread (it is synchronous), so the record travels beside
// the message in a thread-local for the formatter to find.
struct Record {
  std::string_view event, world, message;
  std::initializer_list<Field> fields;
};
thread_local const Record* t_record = nullptr;

// The length of the UTF-8 sequence at text[i], or 0 if it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = at(i);
  std::size_t n = 0;
  unsigned min = 0;
  unsigned code = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, code = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, code = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, code = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((at(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (at(i + k) & 0x3f);
  }
  // Overlong forms, UTF-16 surrogates and beyond U+10FFFF are not UTF-8.
  if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return 0;
  return n;
}

void append(spdlog::memory_buf_t& out, std::string_view text) { out.append(text.data(), text.data() + text.size()); }

// RFC 3339 in UTC with milliseconds: 2026-11-23T09:31:14.549Z.
std::string rfc3339(spdlog::log_clock::time_point time) {
  const auto since = time.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since - seconds).count();
  const std::time_t t = seconds.count();
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  return text;
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& out) override {
    const Record* r = t_record;
    append(out, "{\"time\":\"" + rfc3339(msg.time) + "\",\"level\":");
    const spdlog::string_view_t level = spdlog::level::to_string_view(msg.level);
    append(out, json_string(std::string_view(level.data(), level.size())));
    if (r && !r->world.empty()) append(out, ",\"world\":" + json_string(r->world));
    append(out, ",\"event\":" + json_string(r ? r->event : "message"));
    // An event's message without the text format's "world 'NAME': ".
    append(out, ",\"message\":" + json_string(r ? r->message : std::string_view(msg.payload.data(), msg.payload.size())));
    if (r && r->fields.size() > 0) {
      append(out, ",\"fields\":{");
      bool first = true;
      for (const Field& f : r->fields) {
        append(out, (first ? "" : ",") + json_string(f.name) + ":" + f.json);
        first = false;
      }
      append(out, "}");
    }
    append(out, "}\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

bool parse_format(std::string_view text, Format* out) {
  if (text == "text") {
    *out = Format::text;
  } else if (text == "json") {
    *out = Format::json;
  } else {
    return false;
  }
  return true;
}

void set_format(Format format) {
  if (format == Format::json) spdlog::set_formatter(std::make_unique<JsonFormatter>());
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else if (c >= 0x80) {
      const std::size_t n = utf8_length(text, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
        continue;
      }
      out.append(text.substr(i, n));
      i += n;
      continue;
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

std::string Field::render_double(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

void event(spdlog::level::level_enum level, std::string_view event, std::string_view world, std::string_view message,
           std::initializer_list<Field> fields) {
  if (!spdlog::should_log(level)) return;
  const Record record{event, world, message, fields};
  t_record = &record;
  if (world.empty()) {
    spdlog::log(level, "{}", message);
  } else {
    spdlog::log(level, "world {}: {}", quote(world), message);
  }
  t_record = nullptr;
}

}  // namespace linkage::server::log
