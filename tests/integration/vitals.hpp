#pragma once
// A watch on a server while a test does it harm: every 100 ms, from a client
// of its own, it calls ListWorlds and the standard health check (each with a
// 1 s deadline) and reads a steady world's tick from the list, so that a
// test can assert that the server answered throughout and that the steady
// world kept its rate.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "support.hpp"

namespace linkage::itest {

class Vitals {
 public:
  // Starts watching `target`; `steady` names a running world to time.
  Vitals(const std::string& target, std::string steady);
  ~Vitals();
  Vitals(const Vitals&) = delete;
  Vitals& operator=(const Vitals&) = delete;

  // Stops watching (idempotent); the figures below are final afterwards.
  void stop();

  int rounds() const;
  int failures() const;  // calls that did not answer OK within 1 s (or a missing steady world)
  std::chrono::milliseconds slowest() const;  // the longest answer of either call
  double steady_rate() const;  // the steady world's ticks per second of wall time over the watch
  std::string report() const;

 private:
  void watch();

  const std::string steady_;
  Client client_;
  mutable std::mutex mutex_;
  int rounds_ = 0, failures_ = 0;
  std::chrono::milliseconds slowest_{0};
  std::uint64_t first_tick_ = 0, last_tick_ = 0;
  std::chrono::steady_clock::time_point first_at_{}, last_at_{};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// A running world of a 20-link chain ticking at 60 Hz: cheap, so its rate is the scheduler's.
void create_steady_world(Client& c, const std::string& name);

// The watch went well: every answer within 1 s, and the steady world within 10 % of 60 Hz.
void expect_healthy(Vitals& vitals);

}  // namespace linkage::itest
