// The world's thread pool: parts are claimed by whichever thread is free
// (the caller included), and every part of every job runs exactly once,
// run() returning only when all have.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
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

// wake() rouses workers that sleep (here after a pause longer than their
// spin) so that they wait for the next job spinning, where a job ran since
// the last wake() (a pool no job used since is left asleep); the jobs
// after it, and before it, run every part once, and a pool woken with no
// job to come still stops.
TEST(ThreadPool, WakesItsSleepingWorkersAheadOfAJob) {
  ThreadPool pool(3);
  EXPECT_FALSE(pool.wake());  // no job yet
  std::vector<std::atomic<int>> runs(3);
  for (int round = 0; round < 20; ++round) {
    if (round % 4 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // longer than kSpin: they sleep
    if (round % 2 == 0) EXPECT_EQ(pool.wake(), round > 0) << "round " << round;
    if (round % 6 == 0) EXPECT_FALSE(pool.wake()) << "round " << round;  // again, no job between
    for (auto& r : runs) r.store(0);
    pool.run(3, [&](int p) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
    for (int p = 0; p < 3; ++p) ASSERT_EQ(runs[static_cast<std::size_t>(p)].load(), 1) << "round " << round;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_TRUE(pool.wake());  // and the pool goes with its workers awake
}
