#pragma once
// The server's data directory (--data-dir): a directory per world
// (layout.hpp), made when the world is created, renamed away and removed
// when it is deleted, and every world in it restored at start-up.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "durable/files.hpp"
#include "durable/world_store.hpp"
#include "host/world_host.hpp"

namespace linkage::server::durable {

class DataDir {
 public:
  // Opens (making it if need be) the data directory at `path`.
  static Result<std::unique_ptr<DataDir>> open(const std::string& path, const StoreOptions& options);

  const std::string& path() const { return path_; }
  const StoreOptions& options() const { return options_; }
  // The directory of the world `name`.
  std::string world_path(const std::string& name) const;

  struct Restored {
    std::string name;
    WorldHost::State state;
    std::unique_ptr<WorldStore> store;
  };
  // Every world in the directory, each at the last tick its files reach;
  // `base` gives the limits the files do not hold. A world that cannot be
  // restored is logged and its directory renamed to %damaged-<name>-<n>;
  // the others restore regardless. Removes what deleted worlds left.
  std::vector<Restored> restore_all(const Limits& base);

  // A new world's directory, with the world `s` as its first checkpoint.
  Result<std::unique_ptr<WorldStore>> create(const std::string& name, WorldHost::State& s);
  // A deleted world: its directory renamed to %deleted-<n> at once (so a
  // restart does not bring it back) and removed when its thread ends.
  void discard(const std::string& name, WorldStore& store);

 private:
  DataDir(std::string path, Dir worlds, const StoreOptions& options)
      : path_(std::move(path)), worlds_(std::move(worlds)), options_(options) {}
  // A fresh name starting with `prefix` in the worlds directory.
  std::string unused_name(const std::string& prefix);

  const std::string path_;
  Dir worlds_;  // <path>/worlds
  const StoreOptions options_;
  std::atomic<std::uint64_t> counter_{0};
};

}  // namespace linkage::server::durable
