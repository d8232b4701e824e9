#include "memory_gate.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "log/log.hpp"
#include "mib.hpp"

namespace linkage::server {
namespace {

// How long a reading of the resident set may serve the next claims: a batch
// of 20,000 bodies claims for each, and reading /proc is a few
// microseconds. A settled claim makes the next claim read again.
constexpr auto kResidentFresh = std::chrono::milliseconds(2);
constexpr auto kLogEvery = std::chrono::seconds(10);

// The first number in a file, or none ("max", missing, unreadable).
std::uint64_t number_in(const char* path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (!(in >> value)) return 0;
  return value;
}

}  // namespace

std::uint64_t cgroup_memory_limit(const std::string& proc_self_cgroup, const std::string& sysfs) {
  std::uint64_t least = 0;
  std::istringstream groups(proc_self_cgroup);
  for (std::string line; std::getline(groups, line);) {
    // "0::/PATH" for v2, "N:CONTROLLERS:/PATH" for v1.
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    std::string root, file;
    if (controllers == ",,") {
      root = sysfs, file = "/memory.max";
    } else if (controllers.find(",memory,") != std::string::npos) {
      root = sysfs + "/memory", file = "/memory.limit_in_bytes";
    } else {
      continue;
    }
    for (std::string path = line.substr(second + 1);; path.resize(path.rfind('/'))) {
      const std::uint64_t limit = number_in((root + path + file).c_str());
      if (limit > 0 && (least == 0 || limit < least)) least = limit;
      if (path.empty() || path.rfind('/') == std::string::npos) break;
    }
  }
  return least;
}

MemoryGate::MemoryGate(std::uint64_t max, Resident resident) : max_(max), resident_(std::move(resident)) {}

Status MemoryGate::claim(std::uint64_t bytes, std::uint64_t& claimed) {
  std::uint64_t resident = 0, others = 0, since = 0;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (max_ != 0 && (!fresh_ || now - seen_at_ > kResidentFresh)) {
      resident_seen_ = resident_();
      seen_at_ = now;
      fresh_ = true;
    }
    if (max_ == 0 || resident_seen_ + claimed_ + bytes <= max_) {
      claimed_ += bytes;
      claimed += bytes;
      return ok_status();
    }
    ++refused_;
    resident = resident_seen_;
    others = claimed_;
    if (logged_refused_ == 0 || now - logged_at_ >= kLogEvery) {
      since = refused_ - logged_refused_;
      logged_refused_ = refused_;
      logged_at_ = now;
    }
  }
  std::string message = "the server's memory would pass its limit of " + mib(max_) + " (--max-memory): it holds " +
                        mib(resident) + " (its worlds, and the answers and requests in flight)";
  if (others > 0) message += " and changes its worlds have not yet stepped with are expected to take " + mib(others);
  message += ", and this change about " + mib(bytes) +
             " more. Delete worlds or remove bodies and constraints first, or give linkaged a higher --max-memory";
  if (since > 0)
    log::event(spdlog::level::warn, "server.memory_refused", "",
               "refused " + std::to_string(since) + " changes over --max-memory; the last: " + message,
               {{"refused", since}, {"resident_bytes", resident}, {"claimed_bytes", others}, {"change_bytes", bytes},
                {"max_bytes", max_}});
  return Error{ErrorCode::resource_exhausted, message};
}

void MemoryGate::give_back(std::uint64_t bytes, std::uint64_t& claimed) {
  bytes = std::min(bytes, claimed);
  std::lock_guard lock(mutex_);
  claimed_ -= std::min(claimed_, bytes);
  claimed -= bytes;
  fresh_ = false;
}

MemoryGate::Counts MemoryGate::counts() const {
  std::lock_guard lock(mutex_);
  return {resident_seen_, claimed_, refused_};
}

std::uint64_t MemoryGate::resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t MemoryGate::default_limit() {
  std::uint64_t limit = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  // An unlimited v1 cgroup reads as about 2⁶³; v2 reads "max".
  std::ifstream in("/proc/self/cgroup");
  std::ostringstream groups;
  groups << in.rdbuf();
  if (const std::uint64_t cgroup = cgroup_memory_limit(groups.str()); cgroup > 0) limit = std::min(limit, cgroup);
  return limit / 4 * 3;
}

MemoryClaim::MemoryClaim(MemoryClaim&& o) noexcept : gate_(std::move(o.gate_)), claimed_(o.claimed_), kept_(o.kept_) {
  o.gate_ = nullptr;
  o.claimed_ = o.kept_ = 0;
}

MemoryClaim& MemoryClaim::operator=(MemoryClaim&& o) noexcept {
  if (this != &o) {
    settle();
    gate_ = std::move(o.gate_);
    claimed_ = o.claimed_;
    kept_ = o.kept_;
    o.gate_ = nullptr;
    o.claimed_ = o.kept_ = 0;
  }
  return *this;
}

void MemoryClaim::govern(std::shared_ptr<MemoryGate> gate) {
  settle();
  gate_ = std::move(gate);
}

Status MemoryClaim::grow(std::uint64_t footprint_bytes) {
  return claim(footprint_bytes * MemoryGate::kBytesPerFootprintByte);
}

Status MemoryClaim::claim(std::uint64_t bytes) {
  if (!gate_ || bytes == 0) return ok_status();
  return gate_->claim(bytes, claimed_);
}

}  // namespace linkage::server
