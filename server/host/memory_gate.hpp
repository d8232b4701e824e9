#pragma once
// The server's memory limit (--max-memory), kept by refusing what would grow
// its worlds past it.
//
// Every world's own bounds (--max-bodies, the footprint under
// --max-message-bytes, the factorization's fill) hold one world to a few
// hundred MB, but not the worlds together: eight exact 100 × 100 cloths take
// about 700 MB, and a pod of 512 MiB was killed with every world in it
// (then restarted into the same worlds, with --data-dir). So every change
// that may grow a world first asks here: the process's resident memory
// (what the kernel counts against it) plus what changes already let in
// have claimed and no step has yet allocated, plus this change's claim,
// must stay under the limit; past it the change is refused with
// RESOURCE_EXHAUSTED and changes nothing. A world's claim lasts until it
// has stepped with what it was let in for: its solver's memory is then in
// the resident count. Changes that free memory (removals, DeleteWorld) and
// the worlds' running are never refused.
//
// A claim is an estimate made before the change: kBytesPerFootprintByte
// times the growth of the world's footprint (convert/footprint.hpp, an
// upper bound on its answers' bytes), measured at 15–18 for exact cloths
// and random rod graphs, the heaviest worlds per byte of their
// description. It only has to bridge the time until the step; what the
// world then holds is measured.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "linkage/result.hpp"

namespace linkage::server {

class MemoryGate {
 public:
  // Memory a change is expected to add per byte of footprint it adds.
  static constexpr std::uint64_t kBytesPerFootprintByte = 24;
  // What a new world takes before it holds anything (its thread, its
  // caches; about 60 kB measured).
  static constexpr std::uint64_t kWorldBytes = 256 * 1024;

  using Resident = std::function<std::uint64_t()>;
  // `max` 0: no limit. `resident` reads the process's memory (tests give their own).
  explicit MemoryGate(std::uint64_t max, Resident resident = resident_bytes);

  std::uint64_t max() const { return max_; }

  // Claims `bytes` for a world (its `claimed`, which settle() gives back)
  // if they fit; otherwise RESOURCE_EXHAUSTED, saying what the server
  // holds, and nothing claimed.
  Status claim(std::uint64_t bytes, std::uint64_t& claimed);
  // The world has stepped: what it claimed is resident now, or never will be.
  void settle(std::uint64_t& claimed) { give_back(claimed, claimed); }
  // Gives `bytes` of a world's `claimed` back (a change that failed after all).
  void give_back(std::uint64_t bytes, std::uint64_t& claimed);

  struct Counts {
    std::uint64_t resident = 0;  // at the last look
    std::uint64_t claimed = 0;   // all worlds' claims not yet settled
    std::uint64_t refused = 0;   // changes refused so far
  };
  Counts counts() const;

  // The process's resident set (/proc/self/statm), 0 if it cannot be read.
  static std::uint64_t resident_bytes();
  // The default limit: three quarters of what this process may use, the
  // least memory limit of its cgroup and their ancestors (v2 memory.max, v1
  // memory.limit_in_bytes: a container's, a pod's, a systemd service's
  // MemoryMax) or else the machine's memory.
  static std::uint64_t default_limit();

 private:
  const std::uint64_t max_;
  const Resident resident_;
  mutable std::mutex mutex_;
  std::uint64_t claimed_ = 0;
  std::uint64_t resident_seen_ = 0;
  bool fresh_ = false;  // resident_seen_ may be used again: no claim settled since it was read
  std::uint64_t refused_ = 0;
  std::uint64_t logged_refused_ = 0;
  std::chrono::steady_clock::time_point seen_at_{}, logged_at_{};
};

// The least memory limit of the cgroups named in `proc_self_cgroup` (the
// text of /proc/self/cgroup: "0::/PATH" for v2, "N:memory:/PATH" for v1)
// and their parents, read under `sysfs` (v2's memory.max, v1's
// memory/…/memory.limit_in_bytes); 0 if none is set. A container sees its
// own cgroup at the root; a service under systemd sees the whole tree.
std::uint64_t cgroup_memory_limit(const std::string& proc_self_cgroup, const std::string& sysfs = "/sys/fs/cgroup");

// A world's claim on its MemoryGate. A copy of a world is not governed and
// claims nothing (a fork is checked as a new world); a world assigned a
// copy keeps its own gate and claim. Destroying a world gives its claim
// back, moving one moves it.
class MemoryClaim {
 public:
  MemoryClaim() = default;
  MemoryClaim(const MemoryClaim&) {}
  MemoryClaim& operator=(const MemoryClaim&) { return *this; }
  MemoryClaim(MemoryClaim&& o) noexcept;
  MemoryClaim& operator=(MemoryClaim&& o) noexcept;
  ~MemoryClaim() { settle(); }

  // From now on claims go to `gate` (null: none, and every claim is granted).
  void govern(std::shared_ptr<MemoryGate> gate);
  // Room for a change that adds `footprint_bytes` to the world's footprint.
  Status grow(std::uint64_t footprint_bytes);
  // Room for `bytes` of memory.
  Status claim(std::uint64_t bytes);
  // The world has stepped: gives every claim back.
  void settle() {
    kept_ = 0;
    if (gate_ && claimed_) gate_->settle(claimed_);
  }
  // A change was made: what it claimed stays claimed until the step.
  void keep() { kept_ = claimed_; }
  // A change failed, changing nothing: gives back what it claimed (since
  // the last keep() or settle()).
  void undo() {
    if (gate_ && claimed_ > kept_) gate_->give_back(claimed_ - kept_, claimed_);
  }
  std::uint64_t claimed() const { return claimed_; }

 private:
  std::shared_ptr<MemoryGate> gate_;
  std::uint64_t claimed_ = 0;
  std::uint64_t kept_ = 0;  // of claimed_, by changes made
};

}  // namespace linkage::server
