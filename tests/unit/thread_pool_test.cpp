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
      pool.run(parts, [&](int p, int) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
      for (int p = 0; p < threads; ++p) ASSERT_EQ(runs[static_cast<std::size_t>(p)].load(), p < parts ? 1 : 0) << "job " << job;
    }
  }
}

// A worker that sees a job takes the part no thread has: here part 0
// waits (up to 200 ms) for part 1 to start, which only a worker can do
// while part 0 runs. (run() published the parts after the generation, and
// a worker that looked in between found none, went back to wait for the
// next job, and left its part to the caller: a third of a two-thread tree
// projection's iterations.)
TEST(ThreadPool, AWorkerThatSeesAJobTakesItsPart) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int job = 0; job < 20000; ++job) {  // the old order failed within 400-6,200 jobs here
    std::atomic<bool> started{false};
    std::thread::id ran_on;
    pool.run(2, [&](int p, int) {
      if (p == 1) {
        ran_on = std::this_thread::get_id();
        started.store(true);
        return;
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      while (!started.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    });
    ASSERT_NE(ran_on, caller) << "job " << job << ": part 1 waited for the caller";
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
    pool.run(3, [&](int p, int) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
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
      pool.run(parts, [&](int p, int) {
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
