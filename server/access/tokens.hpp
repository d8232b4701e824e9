#pragma once
// The token file: who may call, with which role, on which worlds.
//
// One token a line, blank lines and '#' comments allowed:
//
//   # name    role    worlds     hash
//   ops       admin   *          sha256:5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8
//   kiosk     viewer  lab,demo   sha256:...
//
// Only the SHA-256 of a token is stored (`linkaged token new` makes a token
// and its line). Tokens are random 256-bit strings, so an unsalted hash is
// enough: nobody can guess one from its hash. `worlds` is '*' (every world)
// or a comma-separated list of world names.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "linkage/result.hpp"
#include "roles.hpp"

namespace linkage::server::access {

struct TokenEntry {
  std::string name;
  Role role = Role::viewer;
  std::vector<std::string> worlds;  // empty: every world
  std::string sha256;               // 64 lowercase hex digits

  bool allows_world(std::string_view world) const;
};

// SHA-256 of `text`, as 64 lowercase hex digits (OpenSSL's libcrypto).
std::string sha256_hex(std::string_view text);
// A new token: 32 bytes from OpenSSL's CSPRNG as 64 hex digits, prefixed
// "lk_" so that it is recognisable in a config or a leak scan.
std::string new_token();
// The token file line for an entry.
std::string token_line(const TokenEntry& entry);

class TokenTable {
 public:
  // The file's text; `origin` (its path) starts every error message, with the line.
  static Result<TokenTable> parse(std::string_view text, const std::string& origin);

  // The entry whose hash is the token's, or null.
  const TokenEntry* find(std::string_view token) const;
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<TokenEntry> entries_;
};

// The table in force, read from a file and read again on reload(): after
// SIGHUP and whenever the file changes (checked once a second). A file that
// fails to parse on reload leaves the table in force as it was.
class TokenStore {
 public:
  // Reads `path` once; an error if it cannot be read or parsed.
  static Result<std::shared_ptr<TokenStore>> open(const std::string& path);
  ~TokenStore();
  TokenStore(const TokenStore&) = delete;
  TokenStore& operator=(const TokenStore&) = delete;

  std::shared_ptr<const TokenTable> table() const;
  // Reads the file again; logs what happened. True if the table changed.
  bool reload();
  const std::string& path() const { return path_; }

 private:
  explicit TokenStore(std::string path);
  void watch();

  const std::string path_;
  mutable std::mutex mutex_;
  std::shared_ptr<const TokenTable> table_;
  std::string stamp_;  // the file's modification time and size when last read
  std::condition_variable_any stop_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace linkage::server::access
