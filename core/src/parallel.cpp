#include "parallel.hpp"

#include <atomic>
#include <algorithm>
#include <chrono>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace linkage {
namespace {

// How long a worker, or run() waiting for workers, spins before it sleeps:
// a step's parallel parts come up to a few hundred microseconds apart (its
// serial stretches: a solve's bookkeeping, the top of a factorization), a
// wake-up through the kernel takes tens of microseconds and more on a busy
// host. 200 µs: joint_grid on two threads 2.25–2.41 → 2.04–2.14 ms a step
// against 20 µs in alternating runs; an idle world's worker spins that long
// once after its tick.
// For the first kBusy of it a waiting thread keeps its core, pausing
// between checks: the parts of a tree's projection come a few microseconds
// apart, twice an iteration (tree_projection.cpp), and a yield costs about
// as much. After that it yields the core between checks, so that on a busy
// machine (other worlds, other processes) a waiting thread does not take it
// from the thread it waits for.
constexpr auto kSpin = std::chrono::microseconds(200);
constexpr auto kBusy = std::chrono::microseconds(20);

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

template <class Ready>
bool spin_until(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      pause();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= kSpin) return ready();
    if (waited >= kBusy) std::this_thread::yield();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ThreadPool::claim(std::uint32_t generation, int& part, int& parts) {
  std::uint64_t next = next_part_.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<std::uint32_t>(next >> 32) != generation) return false;
    part = static_cast<int>(next & 0xffffu);
    parts = static_cast<int>((next >> 16) & 0xffffu);
    if (part >= parts) return false;
    if (next_part_.compare_exchange_weak(next, next + 1, std::memory_order_acq_rel)) return true;
  }
}

void ThreadPool::run(int parts, const std::function<void(int, int)>& part) {
  if (parts <= 1) {
    if (parts == 1) part(0, 1);
    return;
  }
  ran_.store(true, std::memory_order_relaxed);
  std::uint32_t generation;
  {
    // Under the mutex for the workers that sleep on wake_ (they test for
    // a new generation under it); a spinning worker takes the job without it.
    // The parts go up before the generation, so that a worker that sees
    // the generation finds them: one that looked between the two stores
    // would take none and wait for the next job, leaving this one's parts
    // to this thread.
    std::lock_guard lock(mutex_);
    job_.store(&part, std::memory_order_relaxed);
    pending_.store(parts - 1, std::memory_order_relaxed);
    const std::uint64_t posted = generation_.load(std::memory_order_relaxed) + 1;  // this thread alone posts
    generation = static_cast<std::uint32_t>(posted);
    next_part_.store(static_cast<std::uint64_t>(generation) << 32 | static_cast<std::uint64_t>(parts) << 16 | 1u,
                     std::memory_order_relaxed);
    generation_.store(posted, std::memory_order_release);
  }
  wake_.notify_all();
  part(0, parts);
  // The parts no worker has started yet: here, rather than wait for one.
  for (int p, count; claim(generation, p, count);) {
    part(p, count);
    pending_.fetch_sub(1, std::memory_order_seq_cst);
  }
  // A worker that finishes the last part notifies done_ only where this
  // thread sleeps on it (sleeping_): sequentially consistent, so that
  // either the worker sees sleeping_ or this thread sees pending_ at 0.
  auto finished = [this] { return pending_.load(std::memory_order_seq_cst) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mutex_);
    sleeping_.store(true, std::memory_order_seq_cst);
    done_.wait(lock, finished);
    sleeping_.store(false, std::memory_order_relaxed);
  }
}

bool ThreadPool::wake() {
  if (!ran_.exchange(false, std::memory_order_relaxed)) return false;
  {
    std::lock_guard lock(mutex_);
    ++alerts_;
  }
  wake_.notify_all();  // no system call where no worker waits
  return true;
}

void ThreadPool::work() {
  std::uint64_t seen = 0;
  for (;;) {
    auto posted = [&] { return generation_.load(std::memory_order_acquire) != seen; };
    if (!spin_until(posted)) {
      std::unique_lock lock(mutex_);
      const std::uint32_t alerts = alerts_;
      wake_.wait(lock, [&] { return stopping_ || posted() || alerts_ != alerts; });
      if (stopping_) return;
      if (!posted()) continue;  // woken ahead of a job: spin for it
    }
    // The job of the generation seen, or of a later one: the claim below
    // then refuses every part (the seen generation's are all claimed once
    // a later job can be posted).
    seen = generation_.load(std::memory_order_acquire);
    const std::function<void(int, int)>* job = job_.load(std::memory_order_relaxed);
    for (int p, parts; job && claim(static_cast<std::uint32_t>(seen), p, parts);) {
      (*job)(p, parts);
      if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 && sleeping_.load(std::memory_order_seq_cst)) {
        std::lock_guard lock(mutex_);
        done_.notify_all();
      }
    }
  }
}

ThreadPool* Threads::get(int count) {
  if (count <= 1) return nullptr;
  if (!pool_ || pool_->threads() != count) pool_ = std::make_unique<ThreadPool>(count);
  return pool_.get();
}

void Threads::wake(int count) {
  if (pool_ && pool_->threads() == count) pool_->wake();
}

int Threads::for_parts(int count, int useful, const std::function<void(int, int)>& part) {
  const int parts = std::max(1, std::min(count, useful));
  ThreadPool* pool = parts > 1 ? get(count) : nullptr;
  if (!pool) {
    for (int p = 0; p < parts; ++p) part(p, parts);
    return parts;
  }
  pool->run(parts, part);
  return parts;
}

}  // namespace linkage
