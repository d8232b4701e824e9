#pragma once
// A world's worker threads (WorldSettings::threads − 1 of them; the stepping
// thread is the first worker) and a parallel for over fixed parts.
//
// Work is always split the same way for a given thread count, and each part
// writes only its own outputs (sums across parts are added in part order),
// so a run is bit-identical for that count, whatever the scheduling.
//
// Concurrency: one thread at a time calls run() (the world's own); workers
// wait on a condition variable after a short spin, so an idle world costs
// nothing. Parts are claimed, not assigned: the calling thread runs every
// part no worker has started, so a worker the machine does not schedule
// (a busy host) delays a step by at most the part it took.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace linkage {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls part(p, parts) for p in [0, parts), part 0 on the calling
  // thread, and returns when every part is done. parts ≤ threads(). A
  // worker reads `part` where it is: a pass run again and again (an
  // iteration's) keeps its function and the function's data in the
  // workers' caches by making them once.
  void run(int parts, const std::function<void(int, int)>& part);
  // Wakes the workers that sleep, to wait for a job spinning: a job posted
  // within their spin (kSpin) then starts without a wake-up through the
  // kernel. Only where a job ran since the last wake() (a world whose steps
  // stopped posting jobs does not keep its workers spinning); returns
  // whether it woke them.
  bool wake();

 private:
  void work();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // The job, written before its generation is published (release) and
  // read after it is seen (acquire), without the mutex: a worker calls it
  // only for a part it claimed of that generation, which run() waits for
  // (so the job is that generation's and still alive).
  std::atomic<const std::function<void(int, int)>*> job_{nullptr};
  bool stopping_ = false;                           // guarded by mutex_
  std::atomic<bool> sleeping_{false};               // run() waits on done_ (the workers then notify it)
  std::uint32_t alerts_ = 0;                        // wake()'s calls; guarded by mutex_
  std::atomic<std::uint64_t> generation_{0};        // a new job was posted
  // The job's next unclaimed part and its part count (the low 16 bits
  // and the 16 above), tagged with the job's generation (the high 32) so
  // that a worker waking late cannot claim a part of a later job, nor read
  // another job's count.
  std::atomic<std::uint64_t> next_part_{0};
  std::atomic<int> pending_{0};                     // parts 1.. not yet done
  std::atomic<bool> ran_{false};                    // a job ran since the last wake()
  bool claim(std::uint32_t generation, int& part, int& parts);
};

// [begin, end) of part p when n items are split into `parts` nearly equal parts.
inline std::pair<int, int> split(int n, int parts, int p) {
  const long long begin = static_cast<long long>(n) * p / parts;
  const long long end = static_cast<long long>(n) * (p + 1) / parts;
  return {static_cast<int>(begin), static_cast<int>(end)};
}

// The pool a world steps with: made when first needed, never copied (a copy
// of a world makes its own), rebuilt when the thread count changes.
class Threads {
 public:
  Threads() = default;
  Threads(const Threads&) {}
  Threads& operator=(const Threads&) { return *this; }
  Threads(Threads&&) noexcept = default;
  Threads& operator=(Threads&&) noexcept = default;

  // The pool for `count` threads, or null for one (everything inline).
  ThreadPool* get(int count);
  // The pool's wake(), where a pool for `count` threads was made.
  void wake(int count);
  // Runs part(p) for p in [0, parts) where parts = min(count, useful), in
  // parallel when count > 1; returns the number of parts.
  int for_parts(int count, int useful, const std::function<void(int, int)>& part);

 private:
  std::unique_ptr<ThreadPool> pool_;
};

// A world's threads as the solvers see them: where to run, how many.
struct Parallel {
  Threads* threads = nullptr;
  int count = 1;

  // Runs part(p, parts) for p in [0, parts), parts = min(count, useful).
  int for_parts(int useful, const std::function<void(int, int)>& part) const {
    if (!threads || count <= 1 || useful <= 1) {
      part(0, 1);
      return 1;
    }
    return threads->for_parts(count, useful, part);
  }
};

// fn(first, last) over [0, n) cut into chunks of kSumChunk (the last
// shorter), the chunks split between the threads and their values combined
// in chunk order from `identity`: the same result on any thread count, and
// on a short range (one chunk) fn's own. fn also does each chunk's
// elementwise work.
inline constexpr int kSumChunk = 4096;
template <class T, class Fn, class Combine>
T chunked_reduce(const Parallel& parallel, int n, T identity, Fn fn, Combine combine) {
  const int chunks = (n + kSumChunk - 1) / kSumChunk;
  if (chunks <= 1) return n > 0 ? fn(0, n) : identity;
  std::vector<T> values(static_cast<std::size_t>(chunks), identity);
  parallel.for_parts(chunks, [&](int p, int parts) {
    const auto [first, last] = split(chunks, parts, p);
    for (int c = first; c < last; ++c) values[static_cast<std::size_t>(c)] = fn(c * kSumChunk, std::min(n, (c + 1) * kSumChunk));
  });
  T result = identity;
  for (const T& v : values) result = combine(result, v);
  return result;
}

// Σ fn(first, last): chunked_reduce's sum.
template <class Fn>
double chunked_sum(const Parallel& parallel, int n, Fn fn) {
  return chunked_reduce(parallel, n, 0.0, fn, [](double a, double b) { return a + b; });
}

// The largest of f(i) (≥ 0) over [0, n): chunked_reduce's maximum (the
// same in any order).
template <class F>
double chunked_max(const Parallel& parallel, int n, F f) {
  return chunked_reduce(
      parallel, n, 0.0,
      [&](int first, int last) {
        double worst = 0.0;
        for (int i = first; i < last; ++i) worst = std::max(worst, f(i));
        return worst;
      },
      [](double a, double b) { return std::max(a, b); });
}

}  // namespace linkage
