// SLOW (~4 s): a client that stops reading its stream neither slows the
// world's tick nor makes the server hold memory for it, and is let go when
// it cancels.
#include <gtest/gtest.h>

#include <thread>

#include "support.hpp"

namespace linkage::itest {
namespace {

constexpr double kRate = 60.0;
constexpr int kBodies = 500;

TEST(SlowReader, DoesNotSlowTheTickNorGrowMemory) {
  InProcessServer server;
  Client a(server.target());

  // 500 bodies: a 500-link chain hanging straight down (at rest, cheap to step).
  const v1::ApplyBatchResponse built = create_hanging_chain(a, "busy", kBodies, kRate);
  ASSERT_EQ(built.results_size(), 2 * kBodies);

  // The stalled client: opens the stream (every tick, constraints too) and never reads.
  Client stalled(server.target());
  auto stalled_ctx = context(30s);
  v1::StreamStateRequest req;
  req.set_world("busy");
  req.set_constraints(true);
  req.set_diagnostics(true);
  auto reader = stalled.worlds->StreamState(stalled_ctx.get(), req);
  {
    const auto until = std::chrono::steady_clock::now() + 2s;
    while (a.get_world("busy").subscribers() != 1 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(5ms);
    ASSERT_EQ(a.get_world("busy").subscribers(), 1u);
  }

  v1::ResumeRequest resume;
  resume.set_world("busy");
  v1::ResumeResponse resumed;
  ASSERT_TRUE(a.worlds->Resume(context().get(), resume, &resumed).ok());
  // Let the stalled client's windows fill, then measure.
  std::this_thread::sleep_for(500ms);
  const v1::World w0 = a.get_world("busy");
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t rss0 = resident_bytes();
  std::this_thread::sleep_for(1500ms);
  const std::int64_t rss_mid = resident_bytes();
  std::this_thread::sleep_for(1500ms);
  const v1::World w1 = a.get_world("busy");
  const auto t1 = std::chrono::steady_clock::now();
  const std::int64_t rss1 = resident_bytes();

  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  const double rate = static_cast<double>(w1.tick() - w0.tick()) / seconds;
  EXPECT_NEAR(rate, kRate, 0.03 * kRate) << (w1.tick() - w0.tick()) << " ticks in " << seconds << " s";
  EXPECT_EQ(w1.subscribers(), 1u);
  // Unbounded, the frames would pile up at ~2 MB/s (500 bodies and 500
  // constraints, 60 a second). What is allowed: a one-off growth of gRPC's
  // buffers and windows in the first second or two, then nothing.
  const double grown_mb = static_cast<double>(rss1 - rss0) / (1 << 20);
  const double late_mb = static_cast<double>(rss1 - rss_mid) / (1 << 20);
  EXPECT_LT(grown_mb, 5.0) << "the process grew by " << grown_mb << " MB while the client did not read";
  EXPECT_LT(late_mb, 1.0) << "the process grew by " << late_mb << " MB in the last 1.5 s: still growing";
  RecordProperty("tick_rate", std::to_string(rate));
  RecordProperty("rss_growth_mb", std::to_string(grown_mb));
  std::printf("stalled reader: %.2f ticks/s over %.2f s, RSS %+.2f MB (%+.2f MB in the last 1.5 s), overruns %llu\n",
              rate, seconds, grown_mb, late_mb, static_cast<unsigned long long>(w1.overruns()));

  // The client gives up: the server lets go of it within a second.
  stalled_ctx->TryCancel();
  const auto cancelled = std::chrono::steady_clock::now();
  std::uint32_t n = 1;
  while (std::chrono::steady_clock::now() - cancelled < 1s && (n = a.get_world("busy").subscribers()) != 0)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(n, 0u) << "still subscribed a second after the client cancelled";
  const grpc::Status end = reader->Finish();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::CANCELLED) << status_text(end);
}

}  // namespace
}  // namespace linkage::itest
