// The world's thread pool: parts are claimed by whichever thread is free
// (the caller included), and every part of every job runs exactly once,
// run() returning only when all have.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "parallel.hpp"

using namespace linkage;

TEST(ThreadPool, RunsEveryPartOnceAndReturnsWhenAllAreDone) {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(threads));
    for (int job = 0; job < 2000; ++job) {
      for (auto& r : runs) r.store(0);
      const int parts = 2 + job % (threads - 1);  // 2 .. threads
      pool.run(parts, [&](int p) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
      for (int p = 0; p < threads; ++p) ASSERT_EQ(runs[static_cast<std::size_t>(p)].load(), p < parts ? 1 : 0) << "job " << job;
    }
  }
}
