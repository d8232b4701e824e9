#pragma once
// Threads for ForkWorld at a past tick. Its replay steps the source world's
// recording forward from a checkpoint: up to --keep-checkpoints
// checkpoints' worth of ticks, each as long as one of the world's. On a
// gRPC thread that would hold the server's threads for as long (a few such
// calls and no other call is answered); here each runs on a thread of its
// own, a few at once, and the caller's deadline or cancellation stops it
// between two ticks.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace linkage::server {

class ReplayThreads {
 public:
  explicit ReplayThreads(int most) : most_(most) {}
  ReplayThreads(const ReplayThreads&) = delete;
  ReplayThreads& operator=(const ReplayThreads&) = delete;
  ~ReplayThreads();  // waits for the jobs under way

  // Runs `job` on a thread of its own; false, without running it, while
  // `most` jobs are under way.
  bool run(std::function<void()> job);
  int most() const { return most_; }

 private:
  struct Job {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  int most_;
  std::mutex mutex_;
  std::vector<Job> jobs_;  // under way, or done and not yet joined
};

}  // namespace linkage::server
