#include "layout.hpp"

#include <cstdio>

namespace linkage::server::durable {
namespace {

std::string named(const char* prefix, std::uint64_t generation) {
  char text[64];
  std::snprintf(text, sizeof text, "%s%016llx", prefix, static_cast<unsigned long long>(generation));
  return text;
}

std::optional<std::uint64_t> generation_of(const std::string& file, const std::string& prefix) {
  if (file.size() != prefix.size() + 16 || file.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::uint64_t g = 0;
  for (std::size_t i = prefix.size(); i < file.size(); ++i) {
    const char c = file[i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    g = g * 16 + static_cast<std::uint64_t>(digit);
  }
  return g;
}

}  // namespace

std::string checkpoint_name(std::uint64_t generation) { return named("checkpoint-", generation); }
std::string journal_name(std::uint64_t generation) { return named("journal-", generation); }
std::optional<std::uint64_t> checkpoint_generation(const std::string& file) { return generation_of(file, "checkpoint-"); }
std::optional<std::uint64_t> journal_generation(const std::string& file) { return generation_of(file, "journal-"); }

}  // namespace linkage::server::durable
