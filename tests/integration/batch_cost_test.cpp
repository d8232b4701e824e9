// SLOW (~3 s): a batch costs the work of its commands, not its length times
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

// A paused world "chain" of `links` links, made in one batch.
v1::ApplyBatchResponse paused_chain(Client& c, int links) {
  v1::CreateWorldRequest create;
  create.set_name("chain");
  create.set_paused(true);
  c.create_world(create);
  v1::ApplyBatchResponse chain;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.worlds->ApplyBatch(context(60s).get(), chain_batch("chain", links), &chain).ok());
  std::printf("a %d-link chain in one batch: %.3f s\n", links, seconds_since(start));
  return chain;
}

// 40,000 updates of a 10,000-link chain's rods, four each: each was a copy
// of the whole world (40,000 × 1 ms, 40 s on a release build); each is
// microseconds.
TEST(BatchCost, ConstraintUpdatesDoNotCopyTheWorld) {
  constexpr int kLinks = 10000;
  constexpr int kUpdates = 4 * kLinks;
  InProcessServer server;
  Client c(server.target());
  const v1::ApplyBatchResponse chain = paused_chain(c, kLinks);

  v1::ApplyBatchRequest updates;
  updates.set_world("chain");
  for (int i = 0; i < kUpdates; ++i) {
    v1::UpdateConstraintRequest* u = updates.add_commands()->mutable_update_constraint();
    *u->mutable_id() = chain.results(kLinks + i % kLinks).created();
    u->mutable_constraint()->mutable_distance()->set_length(0.2);
    u->mutable_update_mask()->add_paths("distance.length");
  }
  const auto start = std::chrono::steady_clock::now();
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

// Removals: one by one each was a pass over the world (a body's 3.5 ms, a
// constraint's 1 ms at these sizes: 50,000 body removals in one batch held
// the world for minutes); a batch's run of them is one pass.
TEST(BatchCost, RemovalsDoNotPassOverTheWorldEach) {
  constexpr int kLinks = 50000;
  InProcessServer server;
  Client c(server.target());
  const v1::ApplyBatchResponse chain = paused_chain(c, kLinks);

  // Every other rod, then every body but the first.
  v1::ApplyBatchRequest rods;
  rods.set_world("chain");
  for (int i = 0; i < kLinks; i += 2) *rods.add_commands()->mutable_remove_constraint() = chain.results(kLinks + i).created();
  auto start = std::chrono::steady_clock::now();
  v1::ApplyBatchResponse done;
  grpc::Status s = c.worlds->ApplyBatch(context(10s).get(), rods, &done);
  std::printf("%d constraint removals in one batch: %.3f s\n", rods.commands_size(), seconds_since(start));
  ASSERT_TRUE(s.ok()) << status_text(s);
  EXPECT_EQ(done.results_size(), rods.commands_size());

  v1::ApplyBatchRequest bodies;
  bodies.set_world("chain");
  for (int i = 1; i < kLinks; ++i) *bodies.add_commands()->mutable_remove_body()->mutable_id() = chain.results(i).created();
  start = std::chrono::steady_clock::now();
  s = c.worlds->ApplyBatch(context(10s).get(), bodies, &done);
  std::printf("%d body removals in one batch: %.3f s\n", bodies.commands_size(), seconds_since(start));
  ASSERT_TRUE(s.ok()) << status_text(s);
  ASSERT_EQ(done.results_size(), bodies.commands_size());
  // Each removal names the rods its body took (the ones left), once.
  int taken = 0;
  for (const v1::CommandResult& r : done.results()) taken += r.removed_constraints_size();
  EXPECT_EQ(taken, kLinks / 2);
  EXPECT_EQ(c.get_world("chain").body_count(), 1u);
}

}  // namespace
}  // namespace linkage::itest
