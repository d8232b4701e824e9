// The world's thread pool: parts are claimed by whichever thread is free
// (the caller included), and every part of every job runs exactly once,
// run() returning only when all have.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
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

// Jobs of varying part counts back to back, parts of varying length, the
// caller now and then away longer than the workers spin (they sleep) or
// slow in a part longer than it spins (it sleeps on the workers), and four
// such pools at once on this machine's cores, so that threads are
// preempted at many places: every part of every job still runs once, and
// every run() returns. (The narrowest window, a worker preempted between
// seeing one job and claiming a part, is closed by the claim reading the
// job's generation and part count in one word; ThreadSanitizer found it.)
TEST(ThreadPool, RunsEveryPartOnceWhateverTheInterleaving) {
  auto jobs = [](unsigned seed, std::atomic<int>& wrong) {
    ThreadPool pool(3);
    std::mt19937 rng(seed);
    std::vector<std::atomic<int>> runs(3);
    for (int job = 0; job < 5000; ++job) {
      const int parts = 1 + static_cast<int>(rng() % 3);
      const unsigned mode = rng() % 500, spin = rng() % 2000;
      for (auto& r : runs) r.store(0);
      pool.run(parts, [&](int p) {
        runs[static_cast<std::size_t>(p)].fetch_add(1);
        for (volatile unsigned i = 0; i < (p == 1 ? spin : 0u); i = i + 1) {
        }
        if (mode == 0 && p == parts - 1) std::this_thread::sleep_for(std::chrono::microseconds(300));
      });
      for (int p = 0; p < 3; ++p) wrong += runs[static_cast<std::size_t>(p)].load() != (p < parts ? 1 : 0);
      if (mode == 1) std::this_thread::sleep_for(std::chrono::microseconds(300));
      if (mode == 2) pool.wake();
    }
  };
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (unsigned seed = 0; seed < 4; ++seed) callers.emplace_back(jobs, seed, std::ref(wrong));
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}
