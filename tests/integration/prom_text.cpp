#include "prom_text.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <sstream>

namespace linkage::itest {
namespace {

bool name_start(char c, bool colon) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (colon && c == ':'); }
bool name_char(char c, bool colon) { return name_start(c, colon) || std::isdigit(static_cast<unsigned char>(c)); }

// A metric name (colons allowed) or a label name at `pos`; empty if none.
std::string read_name(const std::string& line, std::size_t& pos, bool colon) {
  const std::size_t start = pos;
  if (pos >= line.size() || !name_start(line[pos], colon)) return "";
  while (pos < line.size() && name_char(line[pos], colon)) ++pos;
  return line.substr(start, pos - start);
}

bool valid_name(const std::string& name) {
  std::size_t pos = 0;
  return !read_name(name, pos, true).empty() && pos == name.size();
}

// A float as the format writes one: decimal, +Inf, -Inf or NaN (any case, as Go's ParseFloat takes it).
bool read_float(const std::string& token, double* out) {
  if (token.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size();
}

// `{a="x",b="y"}` at `pos` (just past the name); the error, or empty.
std::string read_labels(const std::string& line, std::size_t& pos, Labels* labels) {
  ++pos;  // '{'
  while (pos < line.size() && line[pos] != '}') {
    const std::string label = read_name(line, pos, false);
    if (label.empty()) return "a label name expected at column " + std::to_string(pos + 1);
    if (line.compare(pos, 2, "=\"") != 0) return "'=\"' expected after label " + label;
    pos += 2;
    std::string value;
    for (;; ++pos) {
      if (pos >= line.size()) return "label " + label + "'s value is not closed";
      const char c = line[pos];
      if (c == '"') break;
      if (c == '\\') {
        if (++pos >= line.size()) return "label " + label + " ends in an escape";
        const char e = line[pos];
        if (e == 'n') {
          value += '\n';
        } else if (e == '\\' || e == '"') {
          value += e;
        } else {
          return std::string("label ") + label + " has the unknown escape \\" + e;
        }
      } else {
        value += c;
      }
    }
    ++pos;  // closing quote
    if (!labels->emplace(label, value).second) return "label " + label + " given twice";
    if (pos < line.size() && line[pos] == ',') ++pos;
    else if (pos >= line.size() || line[pos] != '}') return "',' or '}' expected after label " + label;
  }
  if (pos >= line.size()) return "the labels are not closed";
  ++pos;  // '}'
  return "";
}

// The family a sample named `name` belongs to, among those TYPEd so far.
const PromFamily* family_of(const std::map<std::string, PromFamily>& families, const std::string& name) {
  if (const auto it = families.find(name); it != families.end()) return &it->second;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s = suffix;
    if (name.size() <= s.size() || name.compare(name.size() - s.size(), s.size(), s) != 0) continue;
    const auto it = families.find(name.substr(0, name.size() - s.size()));
    if (it == families.end()) continue;
    const std::string& type = it->second.type;
    if (type == "histogram" || (type == "summary" && s != "_bucket")) return &it->second;
  }
  return nullptr;
}

}  // namespace

std::optional<double> Exposition::value(const std::string& name, const Labels& labels) const {
  const PromFamily* f = family_of(families, name);
  if (!f) return std::nullopt;
  for (const PromSample& s : f->samples)
    if (s.name == name && s.labels == labels) return s.value;
  return std::nullopt;
}

bool Exposition::has_series(const std::string& family, const std::string& label, const std::string& value) const {
  const auto it = families.find(family);
  if (it == families.end()) return false;
  for (const PromSample& s : it->second.samples)
    if (const auto l = s.labels.find(label); l != s.labels.end() && l->second == value) return true;
  return false;
}

Exposition parse_prometheus_text(const std::string& text) {
  Exposition out;
  if (!text.empty() && text.back() != '\n') {
    out.error = "the page does not end with a newline";
    return out;
  }
  std::set<std::string> closed;  // families whose samples are over
  std::string current;           // the family of the last sample
  std::set<std::pair<std::string, Labels>> seen;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) {
    out.error = "line " + std::to_string(number) + ": " + why + ": " + line;
    return out;
  };
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream words(line);
      std::string hash, keyword, name;
      words >> hash >> keyword >> name;
      if (hash != "#" || (keyword != "HELP" && keyword != "TYPE")) continue;  // a comment
      if (!valid_name(name)) return fail("a bad metric name");
      if (closed.count(name) || current == name) return fail(keyword + " after the family's samples");
      PromFamily& f = out.families[name];
      f.name = name;
      std::string rest;
      std::getline(words, rest);
      if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
      if (keyword == "TYPE") {
        if (!f.type.empty()) return fail("a second TYPE");
        static const std::set<std::string> types{"counter", "gauge", "histogram", "summary", "untyped"};
        if (!types.count(rest)) return fail("an unknown type");
        f.type = rest;
      } else {
        if (!f.help.empty()) return fail("a second HELP");
        f.help = rest;
      }
      continue;
    }
    PromSample sample;
    std::size_t pos = 0;
    sample.name = read_name(line, pos, true);
    if (sample.name.empty()) return fail("a metric name expected");
    if (pos < line.size() && line[pos] == '{') {
      if (std::string why = read_labels(line, pos, &sample.labels); !why.empty()) return fail(why);
    }
    if (pos + 1 >= line.size() || line[pos] != ' ' || line[pos + 1] == ' ')
      return fail("one space expected before the value");
    std::istringstream rest(line.substr(pos + 1));
    std::string value, timestamp, extra;
    rest >> value >> timestamp >> extra;
    if (!read_float(value, &sample.value)) return fail("a bad value");
    double ts = 0;
    if (!timestamp.empty() && (!read_float(timestamp, &ts) || timestamp.find_first_not_of("-0123456789") != std::string::npos))
      return fail("a bad timestamp");
    if (!extra.empty()) return fail("more than a value and a timestamp");

    const PromFamily* found = family_of(out.families, sample.name);
    if (!found || found->type.empty()) return fail("a sample of no TYPEd family");
    PromFamily& family = out.families[found->name];
    if (family.name != current) {
      if (closed.count(family.name)) return fail("the samples of " + family.name + " are split in two groups");
      if (!current.empty()) closed.insert(current);
      current = family.name;
    }
    if (family.type == "histogram" && sample.name == family.name + "_bucket" && !sample.labels.count("le"))
      return fail("a bucket without le");
    if (family.type == "counter" && !(sample.value >= 0)) return fail("a counter below 0");
    if (!seen.emplace(sample.name, sample.labels).second) return fail("a series given twice");
    family.samples.push_back(std::move(sample));
  }
  return out;
}

std::string http_get_metrics(int port, std::string* error, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "cannot connect to port " + std::to_string(port);
  } else {
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
      *error = "cannot send the request";
    } else {
      char buffer[65536];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) answer.append(buffer, static_cast<std::size_t>(n));
      if (n < 0) *error = "no answer within 5 s";
    }
  }
  ::close(fd);
  if (!error->empty()) return "";
  const std::size_t body = answer.find("\r\n\r\n");
  if (answer.rfind("HTTP/1.", 0) != 0 || answer.find(" 200 ") == std::string::npos || body == std::string::npos ||
      answer.find(" 200 ") > answer.find("\r\n")) {
    *error = "not a 200 answer: " + answer.substr(0, answer.find("\r\n"));
    return "";
  }
  const std::string head = answer.substr(0, body);
  // prometheus-cpp says "text/plain; charset=utf-8", others add "version=0.0.4".
  if (head.find("\r\nContent-Type: text/plain;") == std::string::npos) {
    *error = "not the text format: " + head;
    return "";
  }
  return answer.substr(body + 4);
}

}  // namespace linkage::itest
