#include "replay_threads.hpp"

#include <algorithm>

namespace linkage::server {

ReplayThreads::~ReplayThreads() {
  for (Job& job : jobs_) job.thread.join();
}

bool ReplayThreads::run(std::function<void()> job) {
  const std::lock_guard lock(mutex_);
  // Jobs that ended are joined here, by the next caller.
  auto ended = std::partition(jobs_.begin(), jobs_.end(), [](const Job& j) { return !j.done->load(); });
  for (auto it = ended; it != jobs_.end(); ++it) it->thread.join();
  jobs_.erase(ended, jobs_.end());
  if (static_cast<int>(jobs_.size()) >= most_) return false;
  auto done = std::make_shared<std::atomic<bool>>(false);
  jobs_.push_back({std::thread([job = std::move(job), done] {
                     job();
                     done->store(true);
                   }),
                   done});
  return true;
}

}  // namespace linkage::server
