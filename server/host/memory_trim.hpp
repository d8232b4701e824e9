#pragma once
// Gives the C library's free memory back to the system, every few seconds.
//
// glibc's malloc keeps memory freed by a thread in that thread's arena. A
// request near --max-message-bytes parses into hundreds of MB of small
// objects (a million bodies: about 130 MB) and is freed a moment later, but
// each gRPC thread that once parsed one would keep its high-water mark for
// good: under a stream of such requests the process grows by that much per
// thread. malloc_trim returns every arena's free pages, so the resident set
// follows what is in use. It runs on a thread of its own and costs a few
// milliseconds of that thread's time each round.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace linkage::server {

class MemoryTrimmer {
 public:
  explicit MemoryTrimmer(std::chrono::milliseconds interval = std::chrono::seconds(2));
  ~MemoryTrimmer();
  MemoryTrimmer(const MemoryTrimmer&) = delete;
  MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace linkage::server
