// Stopping a world lets go of the subscribers it still owed a frame: a
// stream holds its world, so one kept in the owed list would keep the world
// (its thread's memory, its bodies) alive for ever after DeleteWorld.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "host/subscriber.hpp"
#include "host/world_host.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

using server::WorldHost;

// Never ready for a frame (a write always in flight), and holding its world
// as a StateStream does.
class Stalled final : public server::Subscriber {
 public:
  explicit Stalled(std::shared_ptr<WorldHost> host) : host_(std::move(host)) {}
  bool ready(Clock::time_point) override {
    ++asked;
    return false;
  }
  std::uint64_t known_version() const override { return 0; }
  bool wants_constraints() const override { return false; }
  bool wants_diagnostics() const override { return false; }
  void send(std::shared_ptr<const v1::Snapshot>) override {}
  void end(const std::string&) override {}
  std::atomic<int> asked{0};

 private:
  std::shared_ptr<WorldHost> host_;
};

TEST(Stop, LetsGoOfSubscribersOwedAFrame) {
  std::weak_ptr<WorldHost> world;
  std::weak_ptr<Stalled> stream;
  {
    auto host = std::make_shared<WorldHost>("owed", World::create().value(), server::Names{}, server::Limits{}, true);
    auto sub = std::make_shared<Stalled>(host);
    host->subscribe(sub);  // a paused world publishes once the subscription's wake-up runs
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (sub->asked == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    ASSERT_GT(sub->asked, 0) << "the world never offered the subscriber a frame";
    world = host;
    stream = sub;
    host->stop("world deleted");
  }
  EXPECT_TRUE(stream.expired()) << "the stopped world still holds its stalled subscriber";
  EXPECT_TRUE(world.expired()) << "the world outlived its last user through its subscriber";
}

}  // namespace
}  // namespace linkage::itest
