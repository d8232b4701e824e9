#pragma once
// Where things are in the data directory (--data-dir):
//
//   <data-dir>/worlds/<world>/checkpoint-<generation>   a world's state at a tick
//   <data-dir>/worlds/<world>/journal-<generation>      every change after it
//
// generations in 16 hex digits, so that names sort by generation. A world's
// directory is its name ('%.' and '%..' for the names '.' and '..'); '%' is
// in no world name, so entries starting with it are the server's own:
// '%deleted-*' (a deleted world, removed at once or at the next start) and
// '%damaged-*' (a world that could not be restored, kept for a person).

#include <cstdint>
#include <optional>
#include <string>

namespace linkage::server::durable {

inline std::string world_dir_name(const std::string& world) {
  return world == "." || world == ".." ? "%" + world : world;
}

std::string checkpoint_name(std::uint64_t generation);
std::string journal_name(std::uint64_t generation);
// The generation a file name holds, if it is a checkpoint's (or journal's) name.
std::optional<std::uint64_t> checkpoint_generation(const std::string& file);
std::optional<std::uint64_t> journal_generation(const std::string& file);

}  // namespace linkage::server::durable
