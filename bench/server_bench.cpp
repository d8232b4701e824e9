// The server's own costs, measured through the real WorldHost: what each
// added subscriber costs the tick loop, how many bytes a snapshot takes per
// body, how much of a 60 Hz tick a 1000-link chain uses, and what an atomic
// batch of one command costs on a large world.
// Run: build/bench/server_bench --benchmark_out=server.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <chrono>
#include <future>

#include "host/frames.hpp"
#include "host/hosted_world.hpp"
#include "host/subscriber.hpp"
#include "host/world_host.hpp"

using namespace linkage;
using namespace linkage::server;

namespace {

// Always ready, keeps the newest frame as a stream would, writes nothing.
class Sink final : public Subscriber {
 public:
  bool ready(Clock::time_point) override { return true; }
  std::uint64_t known_version() const override { return known_; }
  bool wants_constraints() const override { return false; }
  bool wants_diagnostics() const override { return true; }
  void send(std::shared_ptr<const v1::Snapshot> frame) override {
    known_ = frame->topology_version();
    last_ = std::move(frame);
  }
  void end(const std::string&) override {}

 private:
  std::uint64_t known_ = 0;
  std::shared_ptr<const v1::Snapshot> last_;
};

// A paused world of `bodies` free particles (a cheap step, so the publishing shows).
std::unique_ptr<WorldHost> make_host(int bodies) {
  WorldSettings s;
  s.integrator = Integrator::semi_implicit_euler;
  World world = World::create(s).value();
  for (int i = 0; i < bodies; ++i) world.add_body({.position = Vec3(0.1 * i, 0, 0), .mass = 1.0}).value();
  return std::make_unique<WorldHost>("bench", std::move(world), Names{}, Limits{}, true);
}

// Runs `ticks` ticks on the host's own thread and waits for them.
void advance(WorldHost& host, std::uint32_t ticks) {
  std::promise<void> done;
  if (!host.post(
          [&](WorldHost::State& s) {
            host.advance(s, ticks);
            done.set_value();
          },
          [&] { done.set_value(); }))
    return;  // nothing else posts to it
  done.get_future().wait();
}

void BM_TickWithSubscribers(benchmark::State& state) {
  const int subscribers = static_cast<int>(state.range(0));
  auto host = make_host(1000);
  for (int i = 0; i < subscribers; ++i) host->subscribe(std::make_shared<Sink>());
  advance(*host, 10);  // every sink has had its first, full frame
  constexpr std::uint32_t kTicks = 50;
  for (auto _ : state) advance(*host, kTicks);
  state.counters["us_per_tick"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kTicks, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["subscribers"] = subscribers;
  host->stop("done");
}
BENCHMARK(BM_TickWithSubscribers)->Arg(0)->Arg(1)->Arg(4)->Arg(16)->Arg(64)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_FrameBytesPerBody(benchmark::State& state) {
  const int bodies = static_cast<int>(state.range(0));
  WorldSettings s;
  World world = World::create(s).value();
  for (int i = 0; i < bodies; ++i)
    world.add_body({.kind = BodyKind::rigid, .position = Vec3(0.1 * i, 0.5, 0), .angle = 0.1 * i,
                    .velocity = Vec3(1, 2, 0), .shape = Disk{0.1}})
        .value();
  const WorldHost::State st{.world = std::move(world)};
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto frame = build_frame(st, "bench", false, false);
    bytes = frame->ByteSizeLong();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes_per_body"] = static_cast<double>(bytes) / bodies;
  state.counters["frame_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_FrameBytesPerBody)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// A chain of `links` particles on rods hanging straight down from a hook, in
// velocity projection: a whole tick (step and frame for one subscriber) as
// the tick thread runs it. `tick_share_60hz` is the part of a 60 Hz period
// it takes; under 1 the world keeps its rate with room for the machine's noise.
void BM_HangingChainTick(benchmark::State& state) {
  const int links = static_cast<int>(state.range(0));
  WorldSettings s;
  s.dynamics = Dynamics::velocity_projection;
  World world = World::create(s).value();
  BodyId previous{};
  for (int i = 1; i <= links; ++i) {
    const BodyId link = world.add_body({.position = Vec3(0, -0.1 * i, 0), .mass = 0.1}).value();
    world.add_constraint(DistanceDef{.a = previous, .b = link}).value();
    previous = link;
  }
  WorldHost host("bench", std::move(world), Names{}, Limits{}, true);
  host.subscribe(std::make_shared<Sink>());
  advance(host, 10);
  constexpr std::uint32_t kTicks = 60;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) advance(host, kTicks);
  const double per_tick = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
                          (static_cast<double>(state.iterations()) * kTicks);
  state.counters["us_per_tick"] = per_tick * 1e6;
  state.counters["tick_share_60hz"] = per_tick * 60.0;
  host.stop("done");
}
BENCHMARK(BM_HangingChainTick)->Arg(100)->Arg(1000)->UseRealTime()->Unit(benchmark::kMillisecond);

// ApplyBatch of one command (a body's mass) on a world of `bodies` rigid
// links pinned in a chain that has stepped, so that its caches (rows,
// factorization) are full: what the batch's all-or-nothing guarantee costs.
void BM_ApplyBatchOneCommand(benchmark::State& state) {
  const int bodies = static_cast<int>(state.range(0));
  World world = World::create(with_preset(Preset::exact)).value();
  BodyId previous{};
  for (int i = 1; i <= bodies; ++i) {
    const BodyId link = world
                            .add_body({.kind = BodyKind::rigid, .position = Vec3(0.2 * i, 0, 0), .mass = 0.1,
                                       .shape = Box{0.1, 0.02}})
                            .value();
    world.add_constraint(PinDef{.a = previous, .b = link, .anchor_a = previous.is_null() ? Vec3::Zero() : Vec3(0.1, 0, 0),
                                .anchor_b = Vec3(-0.1, 0, 0)})
        .value();
    previous = link;
  }
  HostedWorld hosted(std::move(world));
  hosted.step();
  google::protobuf::RepeatedPtrField<v1::Command> commands;
  v1::UpdateBodyRequest* update = commands.Add()->mutable_update_body();
  update->mutable_body()->mutable_id()->set_index(previous.index);
  update->mutable_body()->mutable_id()->set_generation(previous.generation);
  update->mutable_def()->set_mass(0.2);
  update->mutable_update_mask()->add_paths("mass");
  google::protobuf::RepeatedPtrField<v1::CommandResult> results;
  for (auto _ : state) {
    results.Clear();
    if (Status done = hosted.apply_batch(commands, &results); !done) state.SkipWithError(done.error().message.c_str());
  }
  state.counters["bodies"] = bodies;
}
BENCHMARK(BM_ApplyBatchOneCommand)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
