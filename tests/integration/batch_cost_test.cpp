// SLOW (~1 s): a batch costs the work of its commands, not its length times
// the world: the world's thread runs a batch whole, so anything a command
// pays per object of the world, a batch pays once per command.
#include <gtest/gtest.h>

#include <chrono>

#include "support.hpp"

namespace linkage::itest {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 40,000 updates of a 10,000-link chain's rods, four each: each was a copy
// of the whole world (40,000 × 1 ms, 40 s on a release build); each is
// microseconds.
TEST(BatchCost, ConstraintUpdatesDoNotCopyTheWorld) {
  constexpr int kLinks = 10000;
  constexpr int kUpdates = 4 * kLinks;
  InProcessServer server;
  Client c(server.target());
  v1::CreateWorldRequest create;
  create.set_name("chain");
  create.set_paused(true);
  c.create_world(create);
  v1::ApplyBatchResponse chain;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.worlds->ApplyBatch(context(60s).get(), chain_batch("chain", kLinks), &chain).ok());
  std::printf("a %d-link chain in one batch: %.3f s\n", kLinks, seconds_since(start));

  v1::ApplyBatchRequest updates;
  updates.set_world("chain");
  for (int i = 0; i < kUpdates; ++i) {
    v1::UpdateConstraintRequest* u = updates.add_commands()->mutable_update_constraint();
    *u->mutable_id() = chain.results(kLinks + i % kLinks).created();
    u->mutable_constraint()->mutable_distance()->set_length(0.2);
    u->mutable_update_mask()->add_paths("distance.length");
  }
  start = std::chrono::steady_clock::now();
  v1::ApplyBatchResponse done;
  const grpc::Status s = c.worlds->ApplyBatch(context(10s).get(), updates, &done);
  std::printf("%d constraint updates in one batch: %.3f s\n", kUpdates, seconds_since(start));
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(done.results_size(), kUpdates);

  v1::GetConstraintRequest get;
  get.set_world("chain");
  *get.mutable_id() = chain.results(2 * kLinks - 1).created();
  v1::GetConstraintResponse last;
  ASSERT_TRUE(c.constraints->GetConstraint(context().get(), get, &last).ok());
  EXPECT_EQ(last.constraint().def().distance().length(), 0.2);
}

}  // namespace
}  // namespace linkage::itest
