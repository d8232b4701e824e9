#include "data_dir.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "durable/layout.hpp"
#include "durable/replay.hpp"
#include "log/log.hpp"

namespace linkage::server::durable {

Result<std::unique_ptr<DataDir>> DataDir::open(const std::string& path, const StoreOptions& options) {
  Result<Dir> worlds = Dir::open(path + "/worlds", true);
  if (!worlds) return worlds.error();
  return std::unique_ptr<DataDir>(new DataDir(path, std::move(worlds.value()), options));
}

std::string DataDir::world_path(const std::string& name) const { return worlds_.path() + "/" + world_dir_name(name); }

std::string DataDir::unused_name(const std::string& prefix) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return prefix + std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) + "-" +
         std::to_string(counter_++);
}

std::vector<DataDir::Restored> DataDir::restore_all(const Limits& base) {
  std::vector<Restored> out;
  for (const std::string& entry : worlds_.list()) {
    const std::string path = worlds_.path() + "/" + entry;
    if (entry.rfind("%deleted-", 0) == 0) {
      remove_tree(path);
      continue;
    }
    if (entry[0] == '%' && entry != "%." && entry != "%..") continue;
    auto set_aside = [&](const std::string& why) {
      const std::string damaged = unused_name("%damaged-" + entry + "-");
      log::event(spdlog::level::err, "world.set_aside", "",
                 "world directory " + path + ": " + why + "; not restored, kept as " + damaged,
                 {{"directory", path}, {"kept_as", damaged}});
      (void)worlds_.rename(entry, damaged);
    };
    Result<Dir> dir = Dir::open(path, false);
    if (!dir) {
      set_aside(dir.error().message);
      continue;
    }
    Result<Replayed> replayed = replay(dir.value(), base);
    if (!replayed) {
      set_aside(replayed.error().message);
      continue;
    }
    Replayed& r = replayed.value();
    if (world_dir_name(r.name) != entry) {
      set_aside("it holds the world " + quote(r.name));
      continue;
    }
    for (const std::string& warning : r.warnings) log::event(spdlog::level::warn, "world.restore_warning", r.name, warning);
    // What the restored world does not hold is kept for a person, out of
    // the way of the files the world goes on writing.
    for (const std::string& file : r.unused) (void)dir.value().rename(file, file + ".unused");
    Result<std::unique_ptr<WorldStore>> store =
        WorldStore::resume(std::move(dir.value()), r.name, options_, r.generation, r.journal_bytes, r.state);
    if (!store) {
      log::event(spdlog::level::err, "world.not_durable", r.name,
                 "restored, but cannot go on writing its journal (" + store.error().message +
                     "); it is not durable from now on");
      out.push_back({r.name, std::move(r.state), nullptr});
      continue;
    }
    log::event(spdlog::level::info, "world.restored", r.name,
               "restored at tick " + std::to_string(r.state.tick) +
                   (r.warnings.empty() ? "" : " (to the last good record: see the warnings above)"),
               {{"tick", r.state.tick}, {"warnings", r.warnings.size()}});
    out.push_back({r.name, std::move(r.state), std::move(store.value())});
  }
  return out;
}

Result<std::unique_ptr<WorldStore>> DataDir::create(const std::string& name, WorldHost::State& s) {
  const std::string entry = world_dir_name(name);
  // A directory left by a world that was not restored is kept for a person.
  if (Result<Dir> old = Dir::open(worlds_.path() + "/" + entry, false); old) {
    const std::string damaged = unused_name("%damaged-" + entry + "-");
    log::event(spdlog::level::warn, "world.set_aside", name,
               "world directory " + worlds_.path() + "/" + entry + " was in the way of a new world; kept as " + damaged,
               {{"directory", worlds_.path() + "/" + entry}, {"kept_as", damaged}});
    if (Status ok = worlds_.rename(entry, damaged); !ok) return ok.error();
  }
  Result<Dir> dir = Dir::open(worlds_.path() + "/" + entry, true);
  if (!dir) return dir.error();
  Result<std::unique_ptr<WorldStore>> store = WorldStore::create(std::move(dir.value()), name, options_, s);
  if (!store) return store.error();
  if (Status ok = worlds_.sync(); !ok) return ok.error();
  return store;
}

void DataDir::discard(const std::string& name, WorldStore& store) {
  const std::string trash = unused_name("%deleted-");
  if (Status ok = worlds_.rename(world_dir_name(name), trash); !ok) {
    log::event(spdlog::level::err, "world.files_left", name, "deleted, but its directory stays: " + ok.error().message);
    return;
  }
  (void)worlds_.sync();
  store.discard(worlds_.path() + "/" + trash);
}

}  // namespace linkage::server::durable
