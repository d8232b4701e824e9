// Contacts in the stream: a frame's contact points are World::contacts() of
// its tick, and its begin/end events are exactly how the set of touching
// pairs changed since the subscriber's previous frame, tick by tick, for a
// stream that takes every frame and for one that skips most of them.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "host/contact_log.hpp"
#include "host/frames.hpp"
#include "host/subscriber.hpp"
#include "host/world_host.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

using server::ContactLog;
using server::WorldHost;
using Pair = std::pair<IdKey, IdKey>;  // the lower id first
using Pairs = std::set<Pair>;

IdKey key(BodyId id) { return {id.index, id.generation}; }

Pairs pairs_of(const std::vector<ContactInfo>& contacts) {
  Pairs out;
  for (const ContactInfo& c : contacts) out.insert(std::minmax(key(c.a), key(c.b)));
  return out;
}

// Takes a frame every `every`-th time it is asked (1: every tick), as a
// stream with a write in flight or a lower rate would, and keeps them all.
class Recorder final : public server::Subscriber {
 public:
  explicit Recorder(int every = 1, bool contacts = true) : every_(every), contacts_(contacts) {}
  bool ready(Clock::time_point) override { return asked_++ % every_ == 0; }
  std::uint64_t known_version() const override { return known_; }
  std::uint64_t known_contact_version() const override { return known_contacts_; }
  bool wants_constraints() const override { return false; }
  bool wants_diagnostics() const override { return false; }
  bool wants_contacts() const override { return contacts_; }
  void send(std::shared_ptr<const v1::Snapshot> frame) override {
    known_ = frame->topology_version();
    known_contacts_ = frame->contact_version();
    frames.push_back(std::move(frame));
  }
  void end(const std::string&) override {}
  std::vector<std::shared_ptr<const v1::Snapshot>> frames;

 private:
  const int every_;
  const bool contacts_;
  int asked_ = 0;
  std::uint64_t known_ = 0, known_contacts_ = 0;
};

// Runs `command` on the host's thread and waits for it.
void on_thread(WorldHost& host, const std::function<void(WorldHost::State&)>& command) {
  std::promise<void> done;
  const bool posted = host.post(
      [&](WorldHost::State& s) {
        command(s);
        done.set_value();
      },
      [&] { done.set_value(); });
  ASSERT_TRUE(posted);
  done.get_future().wait();
}

// Two balls dropped on a fixed ground, bouncing (restitution 0.8 and 0.9)
// then settling: their pairs with the ground begin and end several times.
World bouncing_balls() {
  WorldSettings s{.dynamics = Dynamics::sequential_impulses, .contacts = true};
  World world = World::create(s).value();
  world.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = Vec3(0, -0.5, 0),
                  .shape = Box{20, 0.5}}).value();
  world.add_body({.kind = BodyKind::rigid, .position = Vec3(0, 1, 0), .shape = Disk{0.1},
                  .material = {.friction = 0.6, .restitution = 0.8}}).value();
  world.add_body({.kind = BodyKind::rigid, .position = Vec3(1, 0.5, 0), .shape = Disk{0.1},
                  .material = {.friction = 0.6, .restitution = 0.9}}).value();
  return world;
}

// The set a client builds from the events of its frames, checked against the
// world's pairs at each frame's tick; every event's tick is one at which the
// world's set changed that way, and all of them together are every change of
// the world's set between the first frame and the last, none twice.
void expect_events_follow(const std::vector<std::shared_ptr<const v1::Snapshot>>& frames,
                          const std::map<std::uint64_t, Pairs>& world_pairs, const std::string& who) {
  ASSERT_FALSE(frames.empty()) << who;
  Pairs held;
  std::vector<std::tuple<std::uint64_t, bool, Pair>> seen;  // after the first (full) frame
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const v1::Snapshot& frame = *frames[f];
    EXPECT_EQ(frame.contact_events_full(), f == 0) << who << " frame " << f;
    if (frame.contact_events_full()) held.clear();
    for (const v1::ContactEvent& e : frame.contact_events()) {
      const Pair p{itest::key(e.a()), itest::key(e.b())};
      EXPECT_LT(p.first, p.second) << who << ": the lower id first";
      if (e.kind() == v1::CONTACT_EVENT_KIND_BEGIN) {
        EXPECT_TRUE(held.insert(p).second) << who << ": a begin for a pair already touching, tick " << e.tick();
      } else {
        ASSERT_EQ(e.kind(), v1::CONTACT_EVENT_KIND_END);
        EXPECT_EQ(held.erase(p), 1u) << who << ": an end for a pair not touching, tick " << e.tick();
      }
      if (f > 0) seen.emplace_back(e.tick(), e.kind() == v1::CONTACT_EVENT_KIND_BEGIN, p);
    }
    EXPECT_EQ(held, world_pairs.at(frame.tick())) << who << " at tick " << frame.tick();
  }
  // Every change of the world's set after the first frame, in tick order.
  std::vector<std::tuple<std::uint64_t, bool, Pair>> changes;
  for (auto it = world_pairs.upper_bound(frames.front()->tick()); it != world_pairs.end(); ++it) {
    if (it->first > frames.back()->tick()) break;
    const Pairs& before = std::prev(it)->second;
    for (const Pair& p : before)
      if (!it->second.count(p)) changes.emplace_back(it->first, false, p);
    for (const Pair& p : it->second)
      if (!before.count(p)) changes.emplace_back(it->first, true, p);
  }
  // Within a tick the order is the server's; compare as sorted lists.
  std::sort(seen.begin(), seen.end());
  std::sort(changes.begin(), changes.end());
  EXPECT_EQ(seen, changes) << who;
}

TEST(ContactEvents, FollowTheWorldsContactsTickByTickForEveryRate) {
  auto host = std::make_shared<WorldHost>("balls", bouncing_balls(), server::Names{}, server::Limits{}, true);
  auto every = std::make_shared<Recorder>(1), twin = std::make_shared<Recorder>(1);
  auto slow = std::make_shared<Recorder>(7), slower = std::make_shared<Recorder>(23);
  auto plain = std::make_shared<Recorder>(1, false);
  for (const auto& r : {every, twin, slow, slower, plain}) host->subscribe(r);

  std::map<std::uint64_t, Pairs> world_pairs;
  std::map<std::uint64_t, std::vector<ContactInfo>> world_contacts;
  on_thread(*host, [&](WorldHost::State& s) {
    world_pairs[s.tick] = pairs_of(s.world.core().contacts());
    for (int i = 0; i < 400; ++i) {
      host->advance(s, 1);
      world_contacts[s.tick] = s.world.core().contacts();
      world_pairs[s.tick] = pairs_of(world_contacts[s.tick]);
    }
  });
  // The balls bounce: each one's pair with the ground begins, ends and begins again.
  int begins = 0, ends = 0;
  for (auto it = std::next(world_pairs.begin()); it != world_pairs.end(); ++it) {
    for (const Pair& p : it->second) begins += !std::prev(it)->second.count(p);
    for (const Pair& p : std::prev(it)->second) ends += !it->second.count(p);
  }
  ASSERT_GE(begins, 4) << "the scene should bounce";
  ASSERT_GE(ends, 2) << "the scene should bounce";

  // The ground goes (a command, then a tick): its pairs end.
  on_thread(*host, [&](WorldHost::State& s) {
    const BodyId first = s.world.core().bodies().front();
    v1::BodyRef ground;
    ground.mutable_id()->set_index(first.index);
    ground.mutable_id()->set_generation(first.generation);
    ASSERT_TRUE(s.world.remove_body(ground).ok());
    host->advance(s, 1);
    world_contacts[s.tick] = s.world.core().contacts();
    world_pairs[s.tick] = pairs_of(world_contacts[s.tick]);
  });
  ASSERT_FALSE(std::prev(world_pairs.end(), 2)->second.empty());
  ASSERT_TRUE(world_pairs.rbegin()->second.empty());
  on_thread(*host, [](WorldHost::State&) {});  // after the last command's publish
  host->stop("done");

  for (const auto& [r, who] : {std::pair{every, "every tick"}, {slow, "every 7th"}, {slower, "every 23rd"}})
    expect_events_follow(r->frames, world_pairs, who);
  EXPECT_GE(every->frames.size(), 400u);
  EXPECT_LE(slower->frames.size(), every->frames.size() / 20);
  const auto last = std::find_if(every->frames.begin(), every->frames.end(),
                                 [&](const auto& f) { return f->tick() == world_pairs.rbegin()->first; });
  ASSERT_NE(last, every->frames.end());
  ASSERT_GT((*last)->contact_events_size(), 0) << "no end events after the ground went";
  EXPECT_EQ((*last)->contact_events(0).kind(), v1::CONTACT_EVENT_KIND_END);

  // The points are the tick's World::contacts(), column by column.
  for (const auto& frame : every->frames) {
    const auto found = world_contacts.find(frame->tick());
    if (found == world_contacts.end()) continue;
    const std::vector<ContactInfo>& cs = found->second;
    ASSERT_EQ(frame->contact_a_index_size(), static_cast<int>(cs.size())) << "tick " << frame->tick();
    ASSERT_EQ(frame->contact_point_size(), 2 * static_cast<int>(cs.size()));
    for (int i = 0; i < static_cast<int>(cs.size()); ++i) {
      const ContactInfo& c = cs[static_cast<std::size_t>(i)];
      EXPECT_EQ(frame->contact_a_index(i), c.a.index);
      EXPECT_EQ(frame->contact_a_generation(i), c.a.generation);
      EXPECT_EQ(frame->contact_b_index(i), c.b.index);
      EXPECT_EQ(frame->contact_b_generation(i), c.b.generation);
      for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(frame->contact_point(2 * i + k), c.point[k]);
        EXPECT_EQ(frame->contact_normal(2 * i + k), c.normal[k]);
      }
      EXPECT_EQ(frame->contact_separation(i), c.separation);
      EXPECT_EQ(frame->contact_normal_impulse(i), c.normal_impulse);
      EXPECT_EQ(frame->contact_tangent_impulse(i), c.tangent_impulse);
    }
  }

  // Streams in step share each tick's frame (built once), events and all.
  ASSERT_EQ(every->frames.size(), twin->frames.size());
  for (std::size_t i = 0; i < every->frames.size(); ++i) EXPECT_EQ(every->frames[i], twin->frames[i]) << i;
  // A stream that did not ask has neither points nor events.
  for (const auto& frame : plain->frames) {
    EXPECT_EQ(frame->contact_a_index_size(), 0);
    EXPECT_EQ(frame->contact_events_size(), 0);
  }
}

// A frame stays within the world's message limit: with room beside its
// footprint for ten points, a row of forty disks on the ground sends ten,
// says so, and its events still name every pair.
TEST(ContactEvents, PointsBeyondTheWorldsMessageLimitAreLeftOutAndSaidSo) {
  WorldSettings settings{.dynamics = Dynamics::sequential_impulses, .contacts = true};
  World world = World::create(settings).value();
  world.add_body({.kind = BodyKind::rigid, .motion = Motion::fixed, .position = Vec3(0, -0.5, 0),
                  .shape = Box{20, 0.5}}).value();
  for (int i = 0; i < 40; ++i)
    world.add_body({.kind = BodyKind::rigid, .position = Vec3(-10 + 0.5 * i, 0.1, 0), .shape = Disk{0.1}}).value();
  const std::uint64_t footprint = server::HostedWorld(world).footprint().bytes();
  server::Limits limits;
  limits.max_bytes = footprint + 10 * server::kContactPointBytes;
  auto host = std::make_shared<WorldHost>("row", std::move(world), server::Names{}, limits, true);
  auto every = std::make_shared<Recorder>(1);
  host->subscribe(every);
  std::size_t listed = 0;
  on_thread(*host, [&](WorldHost::State& s) {
    host->advance(s, 2);
    listed = s.world.core().contacts().size();
  });
  host->stop("done");
  ASSERT_EQ(listed, 40u) << "every disk should rest on the ground";
  const v1::Snapshot& last = *every->frames.back();
  EXPECT_TRUE(last.contacts_truncated());
  EXPECT_EQ(last.contact_a_index_size(), 10);
  EXPECT_EQ(last.contact_point_size(), 20);
  EXPECT_LE(last.ByteSizeLong(), limits.max_bytes + server::kAnswerOverhead);
  std::size_t begins = 0;
  for (const auto& frame : every->frames) begins += static_cast<std::size_t>(frame->contact_events_size());
  EXPECT_EQ(begins, 40u);
}

ContactInfo touching(std::uint32_t a, std::uint32_t b) {
  return {.a = BodyId{a, 1}, .b = BodyId{b, 1}};
}

TEST(ContactEvents, AStreamBehindTheHistoryGetsTheWholeSet) {
  ContactLog log(4);
  const std::uint64_t start = log.version();
  log.observe(1, {touching(1, 2), touching(2, 1), touching(3, 4)});  // a pair either way round is one pair
  const std::uint64_t after_first = log.version();
  EXPECT_EQ(after_first, start + 2);
  log.observe(2, {touching(1, 2)});
  log.observe(3, {touching(1, 2), touching(5, 6), touching(7, 8)});
  log.observe(4, {touching(5, 6)});

  // Within the history: the events since, in order.
  const server::ContactDelta recent = log.since(log.version() - 2);
  EXPECT_FALSE(recent.full);
  ASSERT_EQ(recent.events.size(), 2u);
  // Behind it: a begin for every pair touching now, with the tick it began.
  const server::ContactDelta behind = log.since(after_first);
  EXPECT_TRUE(behind.full);
  ASSERT_EQ(behind.events.size(), 1u);
  EXPECT_TRUE(behind.events[0].begin);
  EXPECT_EQ(behind.events[0].tick, 3u);
  EXPECT_EQ(behind.events[0].pair.a, (BodyId{5, 1}));

  // Cleared (no stream follows contacts): a newcomer starts afresh, and its
  // version is then good for incremental deltas.
  log.clear();
  EXPECT_TRUE(log.since(0).full);
  EXPECT_TRUE(log.since(0).events.empty());
  const std::uint64_t fresh = log.version();
  log.observe(9, {touching(1, 2)});
  const server::ContactDelta next = log.since(fresh);
  EXPECT_FALSE(next.full);
  ASSERT_EQ(next.events.size(), 1u);
  EXPECT_EQ(next.events[0].tick, 9u);
}

// Over gRPC: a client that asks for contacts gets points and events that
// keep its set of pairs equal to its frames' points, at a low rate too.
TEST(ContactEvents, OverTheStream) {
  InProcessServer server;
  Client c(server.target());
  v1::CreateWorldRequest create;
  create.set_name("bounce");
  create.set_paused(true);
  create.mutable_settings()->set_dynamics(v1::DYNAMICS_SEQUENTIAL_IMPULSES);
  create.mutable_settings()->set_contacts(true);
  c.create_world(create);
  v1::ApplyBatchRequest batch;
  batch.set_world("bounce");
  auto body = [&](const std::string& name, double x, double y, bool ground) {
    v1::BodyDef* def = batch.add_commands()->mutable_create_body();
    def->set_name(name);
    def->set_kind(v1::BODY_KIND_RIGID);
    *def->mutable_position() = vec(x, y);
    if (ground) {
      def->set_motion(v1::MOTION_FIXED);
      def->mutable_shape()->mutable_box()->set_half_width(20);
      def->mutable_shape()->mutable_box()->set_half_height(0.5);
    } else {
      def->mutable_shape()->mutable_disk()->set_radius(0.1);
      def->mutable_material()->set_restitution(0.8);
    }
  };
  body("ground", 0, -0.5, true);
  body("ball", 0, 0.5, false);
  c.apply_batch(batch);

  for (const double rate : {0.0, 7.0}) {
    v1::StreamStateRequest request;
    request.set_world("bounce");
    request.set_rate_hz(rate);
    request.set_contacts(true);
    auto ctx = context(10s);
    auto reader = c.worlds->StreamState(ctx.get(), request);
    v1::Snapshot frame;
    ASSERT_TRUE(reader->Read(&frame));
    EXPECT_TRUE(frame.contact_events_full());
    const std::uint64_t until = frame.tick() + 90;
    c.step("bounce", 90);  // the ball falls, bounces, falls again
    Pairs held;
    int begins = 0, frames = 0;
    for (;;) {
      if (frame.contact_events_full()) held.clear();
      for (const v1::ContactEvent& e : frame.contact_events()) {
        const Pair p{itest::key(e.a()), itest::key(e.b())};
        if (e.kind() == v1::CONTACT_EVENT_KIND_BEGIN) {
          ++begins;
          held.insert(p);
        } else {
          held.erase(p);
        }
      }
      Pairs points;
      for (int i = 0; i < frame.contact_a_index_size(); ++i)
        points.insert(std::minmax(IdKey{frame.contact_a_index(i), frame.contact_a_generation(i)},
                                  IdKey{frame.contact_b_index(i), frame.contact_b_generation(i)}));
      EXPECT_EQ(held, points) << "rate " << rate << ", tick " << frame.tick();
      ++frames;
      if (frame.tick() >= until) break;
      ASSERT_TRUE(reader->Read(&frame)) << "the stream ended before tick " << until;
    }
    EXPECT_GE(begins, 1) << "rate " << rate;
    EXPECT_GE(frames, 2) << "rate " << rate;
    ctx->TryCancel();
    reader->Finish();
  }
}

}  // namespace
}  // namespace linkage::itest
