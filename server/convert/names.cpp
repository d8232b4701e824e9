#include "convert/names.hpp"

#include "linkage/world.hpp"

namespace linkage::server {
namespace {

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

template <class Tag>
std::string id_text(Id<Tag> id) {
  return std::to_string(id.index) + ":" + std::to_string(id.generation);
}

constexpr const char* noun(BodyId) { return "body"; }
constexpr const char* noun(ConstraintId) { return "constraint"; }

}  // namespace

Status check_name(std::string_view name) {
  constexpr std::size_t max_length = 64;
  if (name.empty() || name.size() > max_length)
    return field_error(ErrorCode::invalid_argument,
                 "name", "must be 1 to 64 characters, got " + std::to_string(name.size()) + ": " + quote(name));
  // linkctl and the clients read `3` as an index and `3:1` as an id before
  // they look for a name, so such a name could never be used.
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const std::size_t colon = name.find(':');
  if (digits(name) || (colon != std::string_view::npos && digits(name.substr(0, colon)) && digits(name.substr(colon + 1))))
    return field_error(ErrorCode::invalid_argument,
                 "name", quote(name) + " reads as an id (3 is an index, 3:1 an index and generation); " +
                     "a name needs a character other than digits, such as a letter");
  if (name == "world")
    return field_error(ErrorCode::invalid_argument,
                 "name", "'world' stands for the fixed frame where a body is referred to; choose another name");
  for (char c : name)
    if (!allowed(c))
      return field_error(ErrorCode::invalid_argument,
                   "name", "only letters, digits, '-', '_' and '.' are allowed, got " + quote(name));
  return ok_status();
}

std::string quote(std::string_view text) {
  constexpr std::size_t shown = 64;
  std::string out = "'";
  for (char c : text.substr(0, shown)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  out += "'";
  if (text.size() > shown) out += "… (" + std::to_string(text.size()) + " bytes)";
  return out;
}

template <class Id>
Status Names::NameMap<Id>::check(std::string_view name) const {
  if (name.empty()) return ok_status();
  if (Status s = check_name(name); !s) return s;
  if (auto it = by_name.find(std::string(name)); it != by_name.end())
    // FAILED_PRECONDITION: the name is fine, the world's state forbids it
    // (the core has no ALREADY_EXISTS code).
    return field_error(ErrorCode::failed_precondition,
                 "name", quote(name) + " is already the name of " + noun(it->second) + " " + id_text(it->second));
  return ok_status();
}

template <class Id>
Status Names::NameMap<Id>::add(std::string_view name, Id id) {
  // Giving a thing the name it already has is not a clash; a new name replaces the old one.
  if (auto it = by_id.find(id); it != by_id.end() && it->second == name) return ok_status();
  if (Status s = check(name); !s) return s;
  remove(id);
  if (name.empty()) return ok_status();
  by_name.emplace(std::string(name), id);
  by_id.emplace(id, std::string(name));
  return ok_status();
}

template <class Id>
void Names::NameMap<Id>::remove(Id id) {
  auto it = by_id.find(id);
  if (it == by_id.end()) return;
  by_name.erase(it->second);
  by_id.erase(it);
}

template <class Id>
std::optional<Id> Names::NameMap<Id>::find(std::string_view name) const {
  auto it = by_name.find(std::string(name));
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

template <class Id>
std::string_view Names::NameMap<Id>::name(Id id) const {
  auto it = by_id.find(id);
  return it == by_id.end() ? std::string_view{} : std::string_view{it->second};
}

Status Names::check_body_name(std::string_view name) const { return bodies_.check(name); }
Status Names::add_body(std::string_view name, BodyId id) { return bodies_.add(name, id); }
void Names::remove_body(BodyId id) { bodies_.remove(id); }
std::optional<BodyId> Names::find_body(std::string_view name) const { return bodies_.find(name); }
std::string_view Names::body_name(BodyId id) const { return bodies_.name(id); }

Status Names::check_constraint_name(std::string_view name) const { return constraints_.check(name); }
Status Names::add_constraint(std::string_view name, ConstraintId id) { return constraints_.add(name, id); }
void Names::remove_constraint(ConstraintId id) { constraints_.remove(id); }
std::optional<ConstraintId> Names::find_constraint(std::string_view name) const { return constraints_.find(name); }
std::string_view Names::constraint_name(ConstraintId id) const { return constraints_.name(id); }

void Names::remove(BodyId id, const Removed& removed) {
  bodies_.remove(id);
  for (ConstraintId c : removed.constraints) constraints_.remove(c);
}

void Names::prune(const World& world) {
  std::erase_if(bodies_.by_id, [&](const auto& kv) {
    if (world.contains(kv.first)) return false;
    bodies_.by_name.erase(kv.second);
    return true;
  });
  std::erase_if(constraints_.by_id, [&](const auto& kv) {
    if (world.contains(kv.first)) return false;
    constraints_.by_name.erase(kv.second);
    return true;
  });
}

void Names::clear() {
  bodies_ = {};
  constraints_ = {};
}

}  // namespace linkage::server
