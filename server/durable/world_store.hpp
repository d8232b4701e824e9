#pragma once
// One world's directory while the world runs: its journal and checkpoints
// (layout.hpp), written by the world's tick thread alone.
//
// - Every change the hosted world accepts comes in as a record (ChangeSink),
//   stamped with the world's tick, and is buffered; so are the clock's
//   changes (pause, resume, the guards' halts) and a marker for every tick.
// - commit() writes the buffer and syncs it: the tick loop calls it after
//   running commands and before answering them, so an answered change is on
//   disk (one sync for all the commands of one pass of the loop). ticked()
//   writes without syncing: a killed process loses none of it, a lost
//   machine at most the ticks since the last command.
// - Every `checkpoint_ticks` ticks of the world's own clock (so at the same
//   ticks in any run of the same history: --checkpoint-seconds times the
//   tick rate) and when the world stops (SIGTERM), a checkpoint: the state
//   encoded, a new journal begun, the checkpoint written atomically, the
//   world's caches cleared (as a restore from it starts), and files older
//   than the last `keep` checkpoints removed.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "durable/files.hpp"
#include "durable/record.pb.h"
#include "host/hosted_world.hpp"

namespace linkage::server {
struct WorldHostState;
}

namespace linkage::server::durable {

struct StoreOptions {
  double checkpoint_seconds = 60.0;  // of world time between checkpoints
  int keep = 2;                      // checkpoints (and their journals) kept, ≥ 2
};

class WorldStore final : public ChangeSink {
 public:
  // A new world: its directory `dir` gets checkpoint 0 of `s` and journal 0.
  static Result<std::unique_ptr<WorldStore>> create(Dir dir, const std::string& name, const StoreOptions& options,
                                                    WorldHostState& s);
  // A restored world: goes on writing journal `generation` after its first
  // `journal_bytes` good bytes.
  static Result<std::unique_ptr<WorldStore>> resume(Dir dir, const std::string& name, const StoreOptions& options,
                                                    std::uint64_t generation, std::uint64_t journal_bytes,
                                                    const WorldHostState& s);

  // The state whose tick stamps records; set by the host once it holds it.
  void attach(const WorldHostState* s) { state_ = s; }

  void changed(Record record) override;
  // After a command: records the clock if the command changed it.
  void after_command(const WorldHostState& s);
  // After a tick: its marker, the clock if a guard changed it, and a
  // checkpoint when one is due; true if one was taken.
  bool ticked(WorldHostState& s);
  // Writes and syncs what is buffered; empty, or what failed (logged too).
  std::string commit();
  // A checkpoint of `s` now.
  Status checkpoint(WorldHostState& s);
  // When the world's thread ends: a checkpoint, or, for a deleted world, its
  // files removed.
  void close(WorldHostState& s);

  // Any thread: the world is deleted; its directory, already renamed to
  // `trash`, is removed when the world's thread ends.
  void discard(std::string trash);
  const std::string& path() const { return dir_.path(); }

 private:
  WorldStore(Dir dir, std::string name, const StoreOptions& options, std::uint64_t generation, AppendFile journal,
             const WorldHostState& s);
  void record_clock(const WorldHostState& s);
  void prune();

  Dir dir_;
  const std::string name_;
  const StoreOptions options_;
  std::uint64_t generation_;
  AppendFile journal_;
  const WorldHostState* state_ = nullptr;
  std::string buffer_;   // framed records not yet written
  bool unsynced_ = false;  // written since the last sync
  bool failing_ = false;   // the last write failed (logged once until one succeeds)
  std::string clock_;    // the clock as last recorded (a serialized Clock)
  // The reset point last encoded, so that checkpoints encode it once.
  const void* reset_point_ = nullptr;
  std::string reset_point_bytes_;
  std::mutex trash_mutex_;
  std::string trash_;  // non-empty: deleted
};

}  // namespace linkage::server::durable
