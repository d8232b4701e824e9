// SLOW (~5 s): a world's tick loop keeps its schedule, without drift, while
// a client streams it: the tick count follows rate × elapsed wall time. The
// world's step is cheap on purpose: this is the scheduler's property; what a
// big world's tick costs is server_bench's (BM_HangingChainTick).
#include <gtest/gtest.h>

#include <thread>

#include "support.hpp"

namespace linkage::itest {
namespace {

constexpr double kRate = 60.0;
constexpr int kLinks = 20;

TEST(TickSchedule, KeepsItsRateWithoutDrift) {
  InProcessServer server;
  Client a(server.target());

  const v1::ApplyBatchResponse built =
      create_hanging_chain(a, "scheduled", kLinks, kRate, v1::DYNAMICS_VELOCITY_PROJECTION);
  ASSERT_EQ(built.results_size(), 2 * kLinks);
  // And someone watching it, as a server under load would have.
  Client watcher(server.target());
  auto watch_ctx = context(30s);
  v1::StreamStateRequest watch;
  watch.set_world("scheduled");
  watch.set_rate_hz(30);
  auto reader = watcher.worlds->StreamState(watch_ctx.get(), watch);
  std::thread drain([&] {
    v1::Snapshot frame;
    while (reader->Read(&frame)) {
    }
  });

  v1::ResumeRequest resume;
  resume.set_world("scheduled");
  v1::ResumeResponse resumed;
  ASSERT_TRUE(a.worlds->Resume(context().get(), resume, &resumed).ok());
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t tick0 = resumed.world().tick();

  struct Sample {
    double seconds;
    std::uint64_t ticks;
  };
  auto sample = [&] {
    const v1::World w = a.get_world("scheduled");
    return Sample{std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), w.tick() - tick0};
  };
  std::this_thread::sleep_until(t0 + 2500ms);
  const Sample half = sample();
  std::this_thread::sleep_until(t0 + 5000ms);
  const Sample full = sample();
  const v1::World end = a.get_world("scheduled");

  watch_ctx->TryCancel();
  drain.join();
  reader->Finish();

  std::printf("tick schedule: %llu ticks at %.3f s, %llu at %.3f s; overruns %llu\n",
              static_cast<unsigned long long>(half.ticks), half.seconds, static_cast<unsigned long long>(full.ticks),
              full.seconds, static_cast<unsigned long long>(end.overruns()));
  // Ticks over 5 s: 300 within 2 %.
  EXPECT_NEAR(static_cast<double>(full.ticks), 300.0, 6.0);
  // No drift: both samples on rate × elapsed.
  for (const Sample& s : {half, full})
    EXPECT_NEAR(static_cast<double>(s.ticks), kRate * s.seconds, 0.02 * kRate * s.seconds)
        << s.ticks << " ticks after " << s.seconds << " s";
  EXPECT_EQ(end.body_count(), static_cast<std::uint32_t>(kLinks));
  EXPECT_LE(end.overruns(), 5u) << "a 20-link chain's step takes microseconds: overruns mean a stalled loop";
}

}  // namespace
}  // namespace linkage::itest
