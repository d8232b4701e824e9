// Issue 13: three clients race 2,000 random commands on one world (creates,
// updates of every field kind, removes, batches, settings, scene loads and
// resets) while a fourth keeps the C++ client's WorldMirror from the stream's
// change records alone. At the end the mirror equals ListBodies,
// ListConstraints, ListForces and GetWorld field for field (after every
// object changed once more by update masks, so that the last frames carry
// updates however slow the reader was).
//
// With LINKAGE_RECORD_STREAM=FILE it also writes what @linkage/client's
// mirror needs to replay the race (web/client/test/mirror-race.jsonl, made with
// LINKAGE_RACE_COMMANDS=400): each frame's change records, one JSON object a
// line, then the lists it must end equal to.
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "convert/scene_io.hpp"
#include "linkage/client/mirror.hpp"
#include "support.hpp"

namespace linkage::itest {
namespace {

using google::protobuf::util::MessageDifferencer;

// Field for field; an empty sub-message equals an unset one (the mirror
// writes a body's velocity from the columns, the server leaves a zero one out).
bool same(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  MessageDifferencer d;
  d.set_message_field_comparison(MessageDifferencer::EQUIVALENT);
  return d.Compare(a, b);
}

constexpr int kClients = 3;
constexpr int kCommands = 2000;  // all clients together

// LINKAGE_RACE_COMMANDS=N races N commands instead (a recording for the
// viewer's tests is kept small).
int commands_to_race() {
  const char* n = std::getenv("LINKAGE_RACE_COMMANDS");
  return n ? std::atoi(n) : kCommands;
}
constexpr char kWorld[] = "race";

v1::Scene scene_file(const std::string& name) {
  std::ifstream in(std::string(LINKAGE_SCENES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return server::parse_scene_json(text.str()).value();
}

// What the clients know of the world, shared: ids they were answered with
// (some since removed by another client, or by a scene load: commands on
// them fail, as they would for real clients).
class Known {
 public:
  using Ends = std::pair<v1::BodyRef, v1::BodyRef>;
  void add(std::vector<IdKey>& list, const v1::Id& id) {
    std::lock_guard lock(mutex_);
    list.push_back(key(id));
  }
  // A distance constraint or spring, with the bodies it joins: an update
  // keeps them (a constraint's and a spring's bodies cannot change).
  void add(std::vector<IdKey>& list, std::map<IdKey, Ends>& ends, const v1::Id& id, Ends e) {
    std::lock_guard lock(mutex_);
    list.push_back(key(id));
    ends[key(id)] = std::move(e);
  }
  // The bodies of `id`, if known.
  std::optional<Ends> ends_of(const std::map<IdKey, Ends>& ends, const v1::Id& id) {
    std::lock_guard lock(mutex_);
    const auto it = ends.find(key(id));
    if (it == ends.end()) return std::nullopt;
    return it->second;
  }
  // A random id of the list, or the null id if it is empty.
  v1::Id pick(const std::vector<IdKey>& list, std::mt19937& rng) {
    std::lock_guard lock(mutex_);
    v1::Id id;
    if (list.empty()) return id;
    const IdKey k = list[std::uniform_int_distribution<std::size_t>(0, list.size() - 1)(rng)];
    id.set_index(k.first);
    id.set_generation(k.second);
    return id;
  }
  // After the world was replaced: what it holds now.
  void replace(Client& c) {
    const v1::ListBodiesResponse listed_bodies = c.list_bodies(kWorld);
    const v1::ListConstraintsResponse listed_constraints = c.list_constraints(kWorld);
    const v1::ListForcesResponse listed_forces = c.list_forces(kWorld);
    std::vector<IdKey> b, k, f;
    std::map<IdKey, Ends> ke, fe;
    for (const v1::Body& x : listed_bodies.bodies()) b.push_back(key(x.id()));
    for (const v1::Constraint& x : listed_constraints.constraints()) {
      k.push_back(key(x.id()));
      if (x.def().has_distance()) ke[key(x.id())] = {x.def().distance().a(), x.def().distance().b()};
    }
    for (const v1::Force& x : listed_forces.forces()) {
      f.push_back(key(x.id()));
      if (x.def().has_spring()) fe[key(x.id())] = {x.def().spring().a(), x.def().spring().b()};
    }
    std::lock_guard lock(mutex_);
    bodies = std::move(b);
    constraints = std::move(k);
    springs = std::move(f);
    constraint_ends = std::move(ke);
    spring_ends = std::move(fe);
    forces.clear();
  }
  std::vector<IdKey> bodies, constraints, springs, forces;
  std::map<IdKey, Ends> constraint_ends, spring_ends;

 private:
  std::mutex mutex_;
};

class Racer {
 public:
  Racer(const std::string& target, Known& known, unsigned seed) : client_(target), known_(known), rng_(seed) {}

  // One random command (sometimes a batch of them); failures are expected.
  // `may_replace`: a scene load or reset may be among them.
  void run_one(bool may_replace) {
    const int what = uniform(0, 99);
    if (what < 12) return create_body();
    if (what < 16) return create_bodies();
    if (what < 34) return update_body();
    if (what < 40) return remove_body();
    if (what < 50) return add_constraint();
    if (what < 62) return update_constraint();
    if (what < 66) return remove_constraint();
    if (what < 72) return add_force();
    if (what < 80) return update_spring();
    if (what < 84) return remove_force();
    if (what < 93) return batch();
    // Replacing the world makes every id the clients hold stale: rarely.
    if (what < 98 || !may_replace || uniform(0, 3) != 0) return update_world();
    return uniform(0, 1) ? load_scene() : reset();
  }

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  std::string name(const char* prefix) {
    // A small pool, so that names collide (refused) and renames reuse freed ones.
    return std::string(prefix) + std::to_string(uniform(0, 40));
  }

  v1::BodyRef body_ref() {
    v1::BodyRef ref;
    if (uniform(0, 4) == 0) {
      ref.set_name(name("b"));
    } else {
      *ref.mutable_id() = known_.pick(known_.bodies, rng_);
    }
    return ref;
  }

  v1::BodyDef body_def() {
    v1::BodyDef d;
    d.set_kind(v1::BODY_KIND_RIGID);
    if (uniform(0, 1)) d.set_name(name("b"));
    *d.mutable_position() = vec(real(-2, 2), real(-2, 2));
    d.set_angle(real(-3, 3));
    *d.mutable_velocity() = vec(real(-1, 1), real(-1, 1));
    d.set_angular_velocity(real(-1, 1));
    d.set_mass(real(0.1, 3));
    if (uniform(0, 1)) {
      d.mutable_shape()->mutable_disk()->set_radius(real(0.05, 0.5));
    } else {
      d.mutable_shape()->mutable_box()->set_half_width(real(0.05, 0.5));
      d.mutable_shape()->mutable_box()->set_half_height(real(0.05, 0.5));
    }
    if (uniform(0, 5) == 0) {  // a fixed body stays where it is put
      d.set_motion(v1::MOTION_FIXED);
      d.clear_velocity();
      d.set_angular_velocity(0);
    } else {
      d.set_motion(v1::MOTION_DYNAMIC);
    }
    d.set_linear_damping(real(0, 0.5));
    d.set_angular_damping(real(0, 0.5));
    return d;
  }

  v1::ConstraintDef constraint_def() {
    v1::ConstraintDef c;
    v1::Distance* d = c.mutable_distance();
    *d->mutable_a() = body_ref();
    *d->mutable_b() = body_ref();
    *d->mutable_anchor_a() = vec(real(-0.1, 0.1), 0);
    if (uniform(0, 1)) d->set_length(real(0.2, 2));
    if (uniform(0, 1)) c.set_name(name("c"));
    if (uniform(0, 2) == 0) c.mutable_softness()->set_frequency(real(1, 20));
    return c;
  }

  v1::ForceDef spring_def() {
    v1::ForceDef f;
    v1::Spring* s = f.mutable_spring();
    *s->mutable_a() = body_ref();
    if (uniform(0, 1)) *s->mutable_b() = body_ref();
    *s->mutable_anchor_b() = vec(real(-1, 1), real(-1, 1));
    s->set_stiffness(real(0, 200));
    s->set_damping(real(0, 2));
    if (uniform(0, 1)) s->set_rest_length(real(0, 2));
    return f;
  }

  v1::ForceDef applied_def() {
    v1::ForceDef f;
    v1::AppliedForce* a = f.mutable_applied();
    *a->mutable_body() = body_ref();
    *a->mutable_force() = vec(real(-5, 5), real(-5, 5));
    a->set_ticks(static_cast<std::uint32_t>(uniform(0, 5)));
    return f;
  }

  v1::UpdateBodyRequest body_update() {
    v1::UpdateBodyRequest r;
    r.set_world(kWorld);
    *r.mutable_body() = body_ref();
    *r.mutable_def() = body_def();
    // An empty name keeps the body's; most updates change something else.
    if (uniform(0, 2)) r.mutable_def()->clear_name();
    return r;
  }

  v1::UpdateConstraintRequest constraint_update() {
    v1::UpdateConstraintRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = known_.pick(known_.constraints, rng_);
    *r.mutable_constraint() = constraint_def();
    if (auto ends = known_.ends_of(known_.constraint_ends, r.id())) {
      *r.mutable_constraint()->mutable_distance()->mutable_a() = ends->first;
      *r.mutable_constraint()->mutable_distance()->mutable_b() = ends->second;
    }
    return r;
  }

  v1::UpdateForceRequest spring_update() {
    v1::UpdateForceRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = known_.pick(known_.springs, rng_);
    *r.mutable_force() = spring_def();
    if (auto ends = known_.ends_of(known_.spring_ends, r.id())) {
      *r.mutable_force()->mutable_spring()->mutable_a() = ends->first;
      *r.mutable_force()->mutable_spring()->mutable_b() = ends->second;
    }
    return r;
  }

  void create_body() {
    v1::CreateBodyRequest r;
    r.set_world(kWorld);
    *r.mutable_body() = body_def();
    v1::CreateBodyResponse resp;
    if (client_.bodies->CreateBody(context().get(), r, &resp).ok()) known_.add(known_.bodies, resp.id());
  }

  void create_bodies() {
    v1::CreateBodiesRequest r;
    r.set_world(kWorld);
    for (int i = uniform(1, 3); i > 0; --i) *r.add_bodies() = body_def();
    v1::CreateBodiesResponse resp;
    if (client_.bodies->CreateBodies(context().get(), r, &resp).ok())
      for (const v1::Id& id : resp.ids()) known_.add(known_.bodies, id);
  }

  void update_body() {
    v1::UpdateBodyResponse resp;
    (void)client_.bodies->UpdateBody(context().get(), body_update(), &resp);
  }

  void remove_body() {
    v1::RemoveBodyRequest r;
    r.set_world(kWorld);
    *r.mutable_body() = body_ref();
    v1::RemoveBodyResponse resp;
    (void)client_.bodies->RemoveBody(context().get(), r, &resp);
  }

  void add_constraint() {
    v1::AddConstraintRequest r;
    r.set_world(kWorld);
    *r.mutable_constraint() = constraint_def();
    v1::AddConstraintResponse resp;
    if (client_.constraints->AddConstraint(context().get(), r, &resp).ok())
      known_.add(known_.constraints, known_.constraint_ends, resp.id(),
                 {r.constraint().distance().a(), r.constraint().distance().b()});
  }

  void update_constraint() {
    v1::UpdateConstraintResponse resp;
    (void)client_.constraints->UpdateConstraint(context().get(), constraint_update(), &resp);
  }

  void remove_constraint() {
    v1::RemoveConstraintRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = known_.pick(known_.constraints, rng_);
    v1::RemoveConstraintResponse resp;
    (void)client_.constraints->RemoveConstraint(context().get(), r, &resp);
  }

  void add_force() {
    const bool spring = uniform(0, 2) != 0;
    v1::AddForceRequest r;
    r.set_world(kWorld);
    *r.mutable_force() = spring ? spring_def() : applied_def();
    v1::AddForceResponse resp;
    if (!client_.forces->AddForce(context().get(), r, &resp).ok()) return;
    if (spring) {
      known_.add(known_.springs, known_.spring_ends, resp.id(), {r.force().spring().a(), r.force().spring().b()});
    } else {
      known_.add(known_.forces, resp.id());
    }
  }

  void update_spring() {
    v1::UpdateForceResponse resp;
    (void)client_.forces->UpdateForce(context().get(), spring_update(), &resp);
  }

  void remove_force() {
    v1::RemoveForceRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = known_.pick(uniform(0, 1) ? known_.springs : known_.forces, rng_);
    v1::RemoveForceResponse resp;
    (void)client_.forces->RemoveForce(context().get(), r, &resp);
  }

  // A few commands at once: all of them, or none if one fails.
  void batch() {
    v1::ApplyBatchRequest r;
    r.set_world(kWorld);
    for (int i = uniform(2, 5); i > 0; --i) {
      v1::Command* c = r.add_commands();
      switch (uniform(0, 7)) {
        case 0: *c->mutable_create_body() = body_def(); break;
        case 1: *c->mutable_update_body() = body_update(); break;
        case 2: *c->mutable_remove_body() = body_ref(); break;
        case 3: *c->mutable_add_constraint() = constraint_def(); break;
        case 4: *c->mutable_update_constraint() = constraint_update(); break;
        case 5: *c->mutable_remove_constraint() = known_.pick(known_.constraints, rng_); break;
        case 6: *c->mutable_add_force() = spring_def(); break;
        default: *c->mutable_remove_force() = known_.pick(known_.springs, rng_); break;
      }
    }
    v1::ApplyBatchResponse resp;
    if (!client_.worlds->ApplyBatch(context().get(), r, &resp).ok()) return;
    for (int i = 0; i < resp.results_size(); ++i) {
      if (!resp.results(i).has_created()) continue;
      const v1::Command& c = r.commands(i);
      if (c.has_create_body()) {
        known_.add(known_.bodies, resp.results(i).created());
      } else if (c.has_add_constraint()) {
        known_.add(known_.constraints, known_.constraint_ends, resp.results(i).created(),
                   {c.add_constraint().distance().a(), c.add_constraint().distance().b()});
      } else {
        known_.add(known_.springs, known_.spring_ends, resp.results(i).created(),
                   {c.add_force().spring().a(), c.add_force().spring().b()});
      }
    }
  }

  void update_world() {
    v1::UpdateWorldRequest r;
    r.set_world(kWorld);
    *r.mutable_settings()->mutable_gravity() = vec(real(-1, 1), real(-10, 0));
    v1::UpdateWorldResponse resp;
    (void)client_.worlds->UpdateWorld(context().get(), r, &resp);
  }

  void load_scene() {
    v1::LoadSceneRequest r;
    r.set_world(kWorld);
    *r.mutable_scene() = scene_file(uniform(0, 1) ? "four_bar.json" : "springs_vs_rods.json");
    r.mutable_scene()->mutable_settings()->set_dimension(2);
    v1::LoadSceneResponse resp;
    if (client_.worlds->LoadScene(context().get(), r, &resp).ok()) known_.replace(client_);
  }

  void reset() {
    v1::ResetRequest r;
    r.set_world(kWorld);
    v1::ResetResponse resp;
    if (client_.worlds->Reset(context().get(), r, &resp).ok()) known_.replace(client_);
  }

  Client client_;
  Known& known_;
  std::mt19937 rng_;
};

std::string json(const google::protobuf::Message& m) {
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &out).ok());
  return out;
}

// The C++ client's mirror, fed by a stream on its own connection.
class MirrorReader {
 public:
  explicit MirrorReader(const std::string& target) : client_(target) {
    if (const char* path = std::getenv("LINKAGE_RECORD_STREAM")) record_.open(path);
    v1::StreamStateRequest r;
    r.set_world(kWorld);
    reader_ = client_.worlds->StreamState(&context_, r);
    thread_ = std::thread([this] {
      v1::Snapshot frame;
      while (reader_->Read(&frame)) {
        std::lock_guard lock(mutex_);
        mirror_.apply(frame);
        if (!record_.is_open()) continue;
        v1::Snapshot changes;  // no columns: the scene model takes topology from the changes alone
        changes.set_world(frame.world());
        changes.set_tick(frame.tick());
        changes.set_topology_version(frame.topology_version());
        changes.set_dimension(frame.dimension());
        changes.set_paused(frame.paused());
        *changes.mutable_changes() = frame.changes();
        record_ << json(changes) << "\n";
      }
    });
  }
  ~MirrorReader() {
    context_.TryCancel();
    thread_.join();
  }
  template <class Fn>
  auto with(Fn fn) {
    std::lock_guard lock(mutex_);
    return fn(mirror_);
  }
  // The lists the recording must end equal to (after the last frame).
  void record_end(const v1::ListBodiesResponse& b, const v1::ListConstraintsResponse& c,
                  const v1::ListForcesResponse& f) {
    std::lock_guard lock(mutex_);
    if (record_.is_open())
      record_ << "{\"end\": {\"bodies\": " << json(b) << ", \"constraints\": " << json(c) << ", \"forces\": " << json(f)
              << "}}\n";
  }

 private:
  Client client_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1::Snapshot>> reader_;
  std::mutex mutex_;
  client::WorldMirror mirror_;
  std::ofstream record_;
  std::thread thread_;
};

TEST(MirrorUpdates, EveryMirrorAgreesWithListAfterRacingClients) {
  InProcessServer server;
  Client c(server.target());
  v1::CreateWorldRequest create;
  create.set_name(kWorld);
  create.set_paused(true);  // nothing moves but by command: the pictures compare exactly
  create.mutable_settings()->set_dimension(2);
  c.create_world(create);
  MirrorReader mirror(server.target());

  Known known;
  const int total = commands_to_race();
  std::vector<std::thread> racers;
  for (int i = 0; i < kClients; ++i)
    racers.emplace_back([&, i] {
      Racer racer(server.target(), known, 1300 + i);
      // Scene loads and resets in the first half only: the second's updates
      // must reach the mirror as updates, not in a whole new picture.
      const int commands = total / kClients + (i < total % kClients);
      for (int n = 0; n < commands; ++n) racer.run_one(n < commands / 2);
    });
  for (std::thread& t : racers) t.join();

  // The stream catches up with the last command's version.
  auto caught_up = [&] {
    const std::uint64_t version = c.get_world(kWorld).topology_version();
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (mirror.with([](const client::WorldMirror& m) { return m.topology_version(); }) != version &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
    return version;
  };
  caught_up();
  // A reader slower than the race would have met most objects already
  // updated (an object added and updated between two frames comes as
  // added); so, once it has caught up, every object changes once more, by
  // update masks.
  const v1::ListBodiesResponse listed_bodies = c.list_bodies(kWorld);
  for (const v1::Body& b : listed_bodies.bodies()) {
    v1::UpdateBodyRequest r;
    r.set_world(kWorld);
    *r.mutable_body()->mutable_id() = b.id();
    r.mutable_def()->set_mass(b.def().mass() + 1);
    r.mutable_def()->set_name("last-" + std::to_string(b.id().index()));
    r.mutable_update_mask()->add_paths("mass");
    r.mutable_update_mask()->add_paths("name");
    v1::UpdateBodyResponse resp;
    EXPECT_TRUE(c.bodies->UpdateBody(context().get(), r, &resp).ok());
  }
  const v1::ListConstraintsResponse listed_constraints = c.list_constraints(kWorld);
  for (const v1::Constraint& k : listed_constraints.constraints()) {
    v1::UpdateConstraintRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = k.id();
    r.mutable_constraint()->set_name("last-" + std::to_string(k.id().index()));
    r.mutable_update_mask()->add_paths("name");
    v1::UpdateConstraintResponse resp;
    EXPECT_TRUE(c.constraints->UpdateConstraint(context().get(), r, &resp).ok());
  }
  const v1::ListForcesResponse listed_forces = c.list_forces(kWorld);
  for (const v1::Force& f : listed_forces.forces()) {
    if (!f.def().has_spring()) continue;
    v1::UpdateForceRequest r;
    r.set_world(kWorld);
    *r.mutable_id() = f.id();
    r.mutable_force()->mutable_spring()->set_stiffness(f.def().spring().stiffness() + 1);
    r.mutable_update_mask()->add_paths("spring.stiffness");
    v1::UpdateForceResponse resp;
    EXPECT_TRUE(c.forces->UpdateForce(context().get(), r, &resp).ok());
  }
  const std::uint64_t version = caught_up();

  const v1::ListBodiesResponse bodies = c.list_bodies(kWorld);
  const v1::ListConstraintsResponse constraints = c.list_constraints(kWorld);
  const v1::ListForcesResponse forces = c.list_forces(kWorld);
  const v1::World world = c.get_world(kWorld);
  mirror.record_end(bodies, constraints, forces);
  mirror.with([&](const client::WorldMirror& m) {
    ASSERT_EQ(m.topology_version(), version);
    EXPECT_EQ(m.inconsistencies(), 0u);
    EXPECT_TRUE(same(m.settings(), world.settings()))
        << m.settings().ShortDebugString() << "\nvs\n" << world.settings().ShortDebugString();
    ASSERT_EQ(m.bodies().size(), static_cast<std::size_t>(bodies.bodies_size()));
    for (const v1::Body& b : bodies.bodies()) {
      const auto it = m.bodies().find(client::Id{b.id().index(), b.id().generation()});
      ASSERT_NE(it, m.bodies().end()) << b.ShortDebugString();
      EXPECT_TRUE(same(it->second, b))
          << it->second.ShortDebugString() << "\nvs\n" << b.ShortDebugString();
    }
    ASSERT_EQ(m.constraints().size(), static_cast<std::size_t>(constraints.constraints_size()));
    for (const v1::Constraint& k : constraints.constraints()) {
      const auto it = m.constraints().find(client::Id{k.id().index(), k.id().generation()});
      ASSERT_NE(it, m.constraints().end()) << k.ShortDebugString();
      // The definition; λ, errors and reactions are the step's, not the model's.
      EXPECT_TRUE(same(it->second.def(), k.def()))
          << it->second.def().ShortDebugString() << "\nvs\n" << k.def().ShortDebugString();
    }
    std::size_t springs = 0;
    for (const v1::Force& f : forces.forces()) {
      if (!f.def().has_spring()) continue;
      ++springs;
      const auto it = m.springs().find(client::Id{f.id().index(), f.id().generation()});
      ASSERT_NE(it, m.springs().end()) << f.ShortDebugString();
      EXPECT_TRUE(same(it->second, f))
          << it->second.ShortDebugString() << "\nvs\n" << f.ShortDebugString();
    }
    EXPECT_EQ(m.springs().size(), springs);
  });
  // The race did build something worth comparing.
  EXPECT_GT(bodies.bodies_size() + constraints.constraints_size(), 5);
}

}  // namespace
}  // namespace linkage::itest
