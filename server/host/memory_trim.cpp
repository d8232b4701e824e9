#include "memory_trim.hpp"

#include <malloc.h>

namespace linkage::server {

MemoryTrimmer::MemoryTrimmer(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) malloc_trim(0);
  });
}

MemoryTrimmer::~MemoryTrimmer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace linkage::server
