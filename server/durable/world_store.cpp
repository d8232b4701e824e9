#include "world_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "durable/contents.hpp"
#include "durable/frame.hpp"
#include "durable/layout.hpp"
#include "durable/replay.hpp"
#include "host/world_host.hpp"
#include "log/log.hpp"

namespace linkage::server::durable {
namespace {

std::string serialized_clock(const WorldHostState& s) {
  Clock clock;
  clock_to_proto(s, &clock);
  return clock.SerializeAsString();
}

// Ticks between checkpoints at the world's tick rate.
std::uint64_t checkpoint_ticks(const StoreOptions& options, const WorldHostState& s) {
  const double ticks = std::round(options.checkpoint_seconds / s.world.core().settings().dt);
  return ticks < 1.0 ? 1 : ticks > 1e15 ? static_cast<std::uint64_t>(1e15) : static_cast<std::uint64_t>(ticks);
}

}  // namespace

WorldStore::WorldStore(Dir dir, std::string name, const StoreOptions& options, std::uint64_t generation,
                       AppendFile journal, const WorldHostState& s)
    : dir_(std::move(dir)),
      name_(std::move(name)),
      options_(options),
      generation_(generation),
      journal_(std::move(journal)),
      clock_(serialized_clock(s)) {}

Result<std::unique_ptr<WorldStore>> WorldStore::create(Dir dir, const std::string& name, const StoreOptions& options,
                                                       WorldHostState& s) {
  // Generation 0 is the world as created: the checkpoint after "none".
  std::unique_ptr<WorldStore> store(
      new WorldStore(std::move(dir), name, options, static_cast<std::uint64_t>(-1), AppendFile{}, s));
  if (Status ok = store->checkpoint(s); !ok) return ok.error();
  return store;
}

Result<std::unique_ptr<WorldStore>> WorldStore::resume(Dir dir, const std::string& name, const StoreOptions& options,
                                                       std::uint64_t generation, std::uint64_t journal_bytes,
                                                       const WorldHostState& s) {
  Result<AppendFile> journal = journal_bytes >= kJournalMagic.size()
                                   ? AppendFile::reopen(dir, journal_name(generation), journal_bytes)
                                   : AppendFile::create(dir, journal_name(generation), kJournalMagic);
  if (!journal) return journal.error();
  return std::unique_ptr<WorldStore>(
      new WorldStore(std::move(dir), name, options, generation, std::move(journal.value()), s));
}

void WorldStore::changed(Record record) {
  record.set_tick(state_ ? state_->tick : 0);
  append_frame(record.SerializeAsString(), buffer_);
}

void WorldStore::record_clock(const WorldHostState& s) {
  std::string now = serialized_clock(s);
  if (now == clock_) return;
  Record record;
  record.mutable_clock()->ParseFromString(now);
  clock_ = std::move(now);
  changed(std::move(record));
}

void WorldStore::after_command(const WorldHostState& s) { record_clock(s); }

bool WorldStore::ticked(WorldHostState& s) {
  Record marker;
  marker.set_stepped(true);
  changed(std::move(marker));
  record_clock(s);
  if (s.tick % checkpoint_ticks(options_, s) == 0) {
    if (Status ok = checkpoint(s); !ok)
      log::event(spdlog::level::err, "world.checkpoint_failed", name_, "no checkpoint: " + ok.error().message,
                 {{"tick", s.tick}});
    return true;
  }
  // Written, not synced: a killed process loses no tick.
  if (!buffer_.empty()) {
    if (Status ok = journal_.append(buffer_); ok) {
      buffer_.clear();
      unsynced_ = true;
    }
  }
  return false;
}

std::string WorldStore::commit() {
  if (!buffer_.empty()) {
    if (Status ok = journal_.append(buffer_); !ok) {
      if (!failing_) log::event(spdlog::level::err, "world.journal_failed", name_, ok.error().message);
      failing_ = true;
      return ok.error().message;
    }
    buffer_.clear();
    unsynced_ = true;
  }
  if (unsynced_) {
    if (Status ok = journal_.sync(); !ok) {
      if (!failing_) log::event(spdlog::level::err, "world.journal_failed", name_, ok.error().message);
      failing_ = true;
      return ok.error().message;
    }
    unsynced_ = false;
  }
  failing_ = false;
  return {};
}

Status WorldStore::checkpoint(WorldHostState& s) {
  if (std::string failed = commit(); !failed.empty()) return Error{ErrorCode::failed_precondition, failed};
  const std::uint64_t next = generation_ + 1;
  Checkpoint c;
  c.set_name(name_);
  c.set_generation(next);
  c.set_tick(s.tick);
  contents_to_proto(s.world.core(), s.world.names(), c.mutable_contents());
  if (const HostedWorld::ResetPoint* point = s.world.reset_point()) {
    if (point != reset_point_) {
      World world = World::create().value();
      world.restore(point->world);
      Contents contents;
      contents_to_proto(world, point->names, &contents);
      reset_point_bytes_ = contents.SerializeAsString();
      reset_point_ = point;
    }
    c.mutable_reset_point()->ParseFromString(reset_point_bytes_);
  }
  clock_to_proto(s, c.mutable_clock());
  limits_to_proto(s.world.limits(), c.mutable_limits());
  c.set_overruns(s.overruns);
  // The new journal first: a crash before the checkpoint is in place leaves
  // the old one, whose journal runs on into the new.
  Result<AppendFile> journal = AppendFile::create(dir_, journal_name(next), kJournalMagic);
  if (!journal) return journal.error();
  std::string file(kCheckpointMagic);
  append_frame(c.SerializeAsString(), file);
  if (Status ok = dir_.write_atomically(checkpoint_name(next), file); !ok) {
    (void)dir_.remove(journal_name(next));
    return ok;
  }
  // As a world restored from the checkpoint starts.
  s.world.clear_caches();
  journal_ = std::move(journal.value());
  generation_ = next;
  unsynced_ = false;
  clock_ = serialized_clock(s);
  prune();
  return ok_status();
}

void WorldStore::prune() {
  if (generation_ + 1 < static_cast<std::uint64_t>(options_.keep)) return;
  const std::uint64_t oldest = generation_ + 1 - static_cast<std::uint64_t>(options_.keep);
  for (const std::string& file : dir_.list()) {
    std::optional<std::uint64_t> g = checkpoint_generation(file);
    if (!g) g = journal_generation(file);
    if (g && *g < oldest) (void)dir_.remove(file);
  }
}

void WorldStore::close(WorldHostState& s) {
  std::string trash;
  {
    std::lock_guard lock(trash_mutex_);
    trash = trash_;
  }
  if (!trash.empty()) {
    remove_tree(trash);
    return;
  }
  if (Status ok = checkpoint(s); !ok)
    log::event(spdlog::level::err, "world.checkpoint_failed", name_,
               "no checkpoint at the stop (the journal has every change): " + ok.error().message, {{"tick", s.tick}});
}

void WorldStore::discard(std::string trash) {
  std::lock_guard lock(trash_mutex_);
  trash_ = std::move(trash);
}

}  // namespace linkage::server::durable
