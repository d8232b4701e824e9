#pragma once
// The few file operations durability needs, each complete or an error that
// says which file and why (errno's text): whole-file reads, atomic
// replacement (temporary file, fsync, rename, fsync of the directory) and an
// append-only file synced on demand. Names are relative to a directory held
// open, so that the directory can be renamed (a deleted world) while a
// writer still has it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linkage/result.hpp"

namespace linkage::server::durable {

class Dir {
 public:
  // Opens (and with `create`, first makes) the directory at `path`.
  static Result<Dir> open(const std::string& path, bool create);
  Dir() = default;
  Dir(Dir&& other) noexcept;
  Dir& operator=(Dir&& other) noexcept;
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir();

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

  // The whole file; NOT_FOUND if there is none.
  Result<std::string> read(const std::string& name) const;
  // Replaces `name` by `bytes` atomically and durably: a reader (or a restart)
  // sees the old file or the new one, never a mix.
  Status write_atomically(const std::string& name, std::string_view bytes) const;
  // Names in the directory (no "." or ".."), sorted.
  std::vector<std::string> list() const;
  Status remove(const std::string& name) const;
  Status rename(const std::string& from, const std::string& to) const;
  // Makes the directory's entries (new, renamed, removed files) durable.
  Status sync() const;

 private:
  Dir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status failed(const std::string& what, const std::string& name) const;
  int fd_ = -1;
  std::string path_;
};

// A file written only at its end.
class AppendFile {
 public:
  // Opens `name` in `dir` for appending: a new file holding `header`, or an
  // existing one cut to its first `keep` bytes (what a reader found good).
  static Result<AppendFile> create(const Dir& dir, const std::string& name, std::string_view header);
  static Result<AppendFile> reopen(const Dir& dir, const std::string& name, std::uint64_t keep);
  AppendFile() = default;
  AppendFile(AppendFile&& other) noexcept;
  AppendFile& operator=(AppendFile&& other) noexcept;
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  ~AppendFile();

  bool is_open() const { return fd_ >= 0; }
  // Writes all of `bytes` (the kernel has them: they survive the process).
  Status append(std::string_view bytes);
  // fdatasync: what was appended survives the machine.
  Status sync();

 private:
  AppendFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// Removes a directory and everything in it; errors are ignored (what is left
// is garbage a later start-up removes again).
void remove_tree(const std::string& path);

}  // namespace linkage::server::durable
