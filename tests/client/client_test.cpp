// The C++ client library against a real server on loopback: connecting and
// its retries, the typed helpers and the errors they give back, batches, and
// subscriptions whose mirror must equal ListBodies / ListConstraints after
// another client's random creates and removes.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "linkage/client/client.hpp"
#include "linkage/client/subscription.hpp"
#include "support.hpp"

namespace linkage::client {
namespace {

using namespace std::chrono_literals;

Client connect_to(const itest::InProcessServer& server) {
  Result<Client> c = Client::connect(server.target(), {.connect_timeout = 5s, .call_timeout = 5s});
  EXPECT_TRUE(c.ok()) << c.error().to_string();
  return std::move(c).value();
}

// A port nothing listens on (yet): bound by the system, then released.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

TEST(ClientConnect, NoServerIsUnavailableWithinTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  Result<Client> c = Client::connect("127.0.0.1:" + std::to_string(free_port()), {.connect_timeout = 400ms});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(c.error().message.find("cannot reach linkaged"), std::string::npos) << c.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_THROW((void)c.value(), BadResultAccess);  // a caller's bug, reported, not undefined
}

TEST(ClientConnect, RetriesUntilAServerStartsListening) {
  const int port = free_port();
  const std::string target = "127.0.0.1:" + std::to_string(port);
  pid_t pid = -1;
  // linkaged starts 400 ms after connect() began trying.
  std::thread starter([&] {
    std::this_thread::sleep_for(400ms);
    pid = ::fork();
    if (pid == 0) {
      ::execl(LINKAGED, LINKAGED, "--listen", target.c_str(), "--log-level", "warn", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  });
  const auto start = std::chrono::steady_clock::now();
  Result<Client> c = Client::connect(target, {.connect_timeout = 10s});
  const auto took = std::chrono::steady_clock::now() - start;
  starter.join();
  EXPECT_LT(took, 5s);
  EXPECT_TRUE(c.ok()) << c.error().to_string();
  if (c.ok()) {
    EXPECT_TRUE(c->get_world("default").ok());
  }
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::cerr << "connected after " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ClientErrors, CarryTheServersStatusAndMessage) {
  itest::InProcessServer server;
  Client c = connect_to(server);
  Result<Id> missing = c.create_body("nowhere", BodyDef{.mass = 1});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(missing.error().message.find("nowhere"), std::string::npos);

  Result<Id> massless = c.create_body("default", BodyDef{});  // a particle needs a mass
  ASSERT_FALSE(massless.ok());
  EXPECT_EQ(massless.error().code, grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(massless.error().message.rfind("body.", 0), 0u) << massless.error().message;

  Result<v1::Body> stale = c.get_body("default", Id{42, 7});
  EXPECT_EQ(stale.error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(c.remove_constraint("default", Id{3, 1}).error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(c.step("default", 1).error().code, grpc::StatusCode::FAILED_PRECONDITION);  // running: no Step
}

TEST(ClientHelpers, EveryRpcThroughTypedDefs) {
  itest::InProcessServer server;
  Client c = connect_to(server);
  CreateWorldOptions options;
  options.settings.integrator = Integrator::rk4;
  options.settings.solver = LinearSolver::conjugate_gradient;
  options.paused = true;
  Result<v1::World> w = c.create_world("lab", options);
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  EXPECT_EQ(w->settings().solver(), v1::LINEAR_SOLVER_CONJUGATE_GRADIENT);
  EXPECT_TRUE(w->paused());
  ASSERT_TRUE(c.list_worlds().ok());
  EXPECT_EQ(c.list_worlds()->size(), 2u);

  const Id bob = c.create_body("lab", BodyDef{.name = "bob", .position = {1, 0, 0}, .mass = 1}).value();
  const std::vector<Id> more =
      c.create_bodies("lab", {BodyDef{.name = "p2", .position = {2, 0, 0}, .mass = 1},
                              BodyDef{.name = "wheel", .kind = BodyKind::rigid, .position = {0, 3, 0}, .shape = Disk{0.5}}})
          .value();
  ASSERT_EQ(more.size(), 2u);
  const Id rod = c.add_constraint("lab", DistanceDef{.b = bob}, {.name = "rod"}).value();  // a: the world
  EXPECT_NEAR(c.get_constraint("lab", rod)->def().distance().length(), 1.0, 1e-12);  // measured: current
  const std::vector<Id> two = c.add_constraints("lab", {to_proto(DistanceDef{.a = "bob", .b = "p2"}),
                                                        to_proto(MotorDef{.b = more[1], .speed = 2})})
                                  .value();
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(c.list_constraints("lab")->size(), 3u);
  EXPECT_NEAR(c.update_constraint("lab", rod, DistanceDef{.b = bob, .length = 1.5})->def().distance().length(), 1.5,
              1e-12);

  const Id spring = c.add_spring("lab", SpringDef{.a = bob, .b = "p2", .stiffness = 50}).value();
  const Id push = c.apply_force("lab", ForceDef{.body = "p2", .force = {0, 10, 0}, .ticks = 5}).value();
  EXPECT_EQ(c.list_forces("lab")->size(), 2u);
  EXPECT_NEAR(c.update_spring("lab", spring, SpringDef{.a = bob, .b = "p2", .stiffness = 80})->def().spring().stiffness(),
              80.0, 1e-12);
  EXPECT_TRUE(c.apply_impulse("lab", ImpulseDef{.body = bob, .impulse = {1, 0, 0}}).ok());
  EXPECT_TRUE(c.remove_force("lab", push).ok());

  const auto stepped = c.step("lab", 3);
  ASSERT_TRUE(stepped.ok());
  EXPECT_EQ(stepped->ticks(), 3u);
  EXPECT_EQ(stepped->ended(), v1::STEP_END_DONE);
  EXPECT_EQ(stepped->world().tick(), 3u);
  EXPECT_FALSE(c.resume("lab")->paused());
  EXPECT_TRUE(c.pause("lab")->paused());
  EXPECT_TRUE(c.update_world("lab", {.substeps = 2}).value().settings().substeps() == 2);

  const v1::Body moved = c.update_body("lab", "p2", BodyDef{.name = "p2", .position = {2, 1, 0}, .mass = 2}).value();
  EXPECT_EQ(moved.def().mass(), 2.0);
  EXPECT_EQ(c.get_body("lab", "p2")->def().position().y(), 1.0);

  Batch batch;
  batch.create_body({.name = "b1", .position = {0, -1, 0}, .mass = 1})
      .add_constraint(PinDef{.a = "bob", .b = "b1"})
      .remove_constraint(two[1]);
  const v1::ApplyBatchResponse applied = c.apply_batch("lab", batch).value();
  ASSERT_EQ(applied.results_size(), 3);
  // A batch is all or nothing: a bad command leaves the world as it was.
  Batch bad;
  bad.create_body({.name = "b2", .mass = 1}).add_constraint(DistanceDef{.a = "b2", .b = "nobody"});
  EXPECT_EQ(c.apply_batch("lab", bad).error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(c.get_body("lab", "b2").ok());

  const Removed removed = c.remove_body("lab", bob).value();
  EXPECT_EQ(removed.constraints.size(), 3u);  // rod, bob–p2, the pin
  EXPECT_EQ(removed.forces.size(), 1u);       // the spring

  const v1::Scene scene = c.save_scene("lab").value();
  EXPECT_EQ(scene.bodies_size(), 3);
  ASSERT_TRUE(c.load_scene("default", scene).ok());
  EXPECT_EQ(c.get_world("default")->body_count(), 3u);
  EXPECT_TRUE(c.reset("default").ok());
  EXPECT_TRUE(c.delete_world("lab").ok());
  EXPECT_EQ(c.get_world("lab").error().code, grpc::StatusCode::NOT_FOUND);
}

// Another client creates and removes bodies, constraints and springs at
// random; the subscriber's mirror, built from the stream alone, must then
// equal what ListBodies, ListConstraints and ListForces say.
TEST(ClientSubscription, MirrorEqualsTheListsAfterRandomChangesByAnotherClient) {
  itest::InProcessServer server;
  Client watcher = connect_to(server);
  Client writer = connect_to(server);  // its own channel and connection
  const std::string world = "default";
  std::atomic<int> callbacks{0};
  auto sub = watcher.subscribe(world, {.rate_hz = 0,
                                       .constraints = true,
                                       .diagnostics = false,
                                       .on_snapshot = [&](const v1::Snapshot&, const WorldMirror&) { ++callbacks; },
                                       .queue_capacity = 8});

  std::mt19937 rng(20240611);
  std::vector<Id> bodies, constraints, springs;
  auto pick = [&](std::vector<Id>& v) {
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng);
    const Id id = v[i];
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    return id;
  };
  auto forget = [](std::vector<Id>& v, const std::vector<Id>& gone) {
    std::erase_if(v, [&](const Id& id) { return std::find(gone.begin(), gone.end(), id) != gone.end(); });
  };
  for (int op = 0; op < 300; ++op) {
    const int what = std::uniform_int_distribution<int>(0, 9)(rng);
    if (what < 4 || bodies.size() < 2) {
      const double x = std::uniform_real_distribution<double>(-5, 5)(rng);
      BodyDef def{.position = {x, 0, 0}, .mass = 1};
      if (op % 3 == 0) def.name = "body-" + std::to_string(op);
      bodies.push_back(writer.create_body(world, def).value());
    } else if (what < 6) {
      const Id a = bodies[std::uniform_int_distribution<std::size_t>(0, bodies.size() - 1)(rng)];
      Id b = a;
      while (b == a) b = bodies[std::uniform_int_distribution<std::size_t>(0, bodies.size() - 1)(rng)];
      // Soft, so that any random set of rods stays solvable.
      constraints.push_back(writer.add_constraint(world, DistanceDef{.a = a, .b = b}, {.softness = {.frequency = 2}}).value());
    } else if (what == 6) {
      springs.push_back(writer.add_spring(world, SpringDef{.a = bodies.front(), .b = bodies.back()}).value());
    } else if (what == 7 && !constraints.empty()) {
      ASSERT_TRUE(writer.remove_constraint(world, pick(constraints)).ok());
    } else if (what == 8 && !springs.empty()) {
      ASSERT_TRUE(writer.remove_force(world, pick(springs)).ok());
    } else {
      const Removed r = writer.remove_body(world, pick(bodies)).value();
      forget(constraints, r.constraints);
      forget(springs, r.forces);
    }
  }

  // And a change of settings, which the stream carries too.
  ASSERT_TRUE(writer.update_world(world, {.substeps = 3}).ok());

  const std::uint64_t version = writer.get_world(world)->topology_version();
  ASSERT_TRUE(sub->wait_until([&](const WorldMirror& m) { return m.topology_version() >= version; }, 10s))
      << "the mirror stayed at topology version " << sub->mirror().topology_version() << " < " << version;
  const WorldMirror mirror = sub->mirror();
  EXPECT_EQ(mirror.inconsistencies(), 0u);
  EXPECT_EQ(mirror.settings().substeps(), 3);
  EXPECT_EQ(mirror.settings().SerializeAsString(), writer.get_world(world)->settings().SerializeAsString());

  std::map<Id, std::string> listed, mirrored;
  for (const v1::Body& b : writer.list_bodies(world).value()) listed[from_proto(b.id())] = b.def().name();
  for (const auto& [id, b] : mirror.bodies()) mirrored[id] = b.def().name();
  EXPECT_EQ(mirrored, listed);
  EXPECT_EQ(listed.size(), bodies.size());

  std::map<Id, std::string> listed_c, mirrored_c;
  for (const v1::Constraint& k : writer.list_constraints(world).value())
    listed_c[from_proto(k.id())] = std::to_string(k.def().distance().a().id().index()) + "/" + std::to_string(k.def().distance().b().id().index());
  for (const auto& [id, k] : mirror.constraints())
    mirrored_c[id] = std::to_string(k.def().distance().a().id().index()) + "/" + std::to_string(k.def().distance().b().id().index());
  EXPECT_EQ(mirrored_c, listed_c);
  EXPECT_EQ(listed_c.size(), constraints.size());

  std::set<Id> listed_s, mirrored_s;
  for (const v1::Force& f : writer.list_forces(world).value())
    if (f.def().has_spring()) listed_s.insert(from_proto(f.id()));
  for (const auto& [id, f] : mirror.springs()) mirrored_s.insert(id);
  EXPECT_EQ(mirrored_s, listed_s);

  // The queue and the callback saw frames too, and the stream is healthy.
  EXPECT_TRUE(sub->next(2s).has_value());
  EXPECT_GT(callbacks.load(), 0);
  EXPECT_FALSE(sub->ended());
  EXPECT_TRUE(sub->status().ok());
}

TEST(ClientSubscription, EndsWithTheServersStatus) {
  itest::InProcessServer server;
  Client c = connect_to(server);
  auto missing = c.subscribe("nowhere", {.queue_capacity = 1});
  EXPECT_FALSE(missing->next(5s).has_value());
  EXPECT_TRUE(missing->ended());
  EXPECT_EQ(missing->status().error().code, grpc::StatusCode::NOT_FOUND);

  ASSERT_TRUE(c.create_world("brief").ok());
  auto sub = c.subscribe("brief", {.queue_capacity = 2});
  ASSERT_TRUE(sub->next(5s).has_value());
  ASSERT_TRUE(c.delete_world("brief").ok());
  EXPECT_TRUE(sub->wait_until([](const WorldMirror&) { return false; }, 5s) == false);
  EXPECT_TRUE(sub->ended());
  EXPECT_FALSE(sub->status().ok());  // the world went away: not a clean end

  // Our own cancel is a clean end.
  auto mine = c.subscribe("default", {.queue_capacity = 1});
  ASSERT_TRUE(mine->next(5s).has_value());
  mine->cancel();
  mine->wait_until([](const WorldMirror&) { return false; }, 2s);
  EXPECT_TRUE(mine->status().ok());
}

// A ball bounces on a segment beside a capsule lying on it: the mirror's
// set of touching pairs, kept from the begin and end events alone, is the
// frame's contact points' pairs at every frame; the defs of the new shapes,
// materials and contact settings reach the server as given.
TEST(ClientSubscription, ContactEventsKeepTheTouchingPairs) {
  itest::InProcessServer server;
  Client c = connect_to(server);
  ASSERT_TRUE(c.create_world("bounce", {.settings = {.dynamics = Dynamics::sequential_impulses, .contacts = true,
                                                     .contact_margin = 0.01},
                                        .paused = true})
                  .ok());
  c.create_body("bounce", BodyDef{.name = "ground", .kind = BodyKind::rigid, .motion = Motion::fixed,
                                                    .shape = Segment{{-5, 0, 0}, {5, 0, 0}}})
      .value();
  c.create_body("bounce", BodyDef{.name = "ball", .kind = BodyKind::rigid, .position = {0, 0.5, 0},
                                                  .shape = Disk{0.1}, .material = {.restitution = 0.8}})
                      .value();
  c.create_body("bounce", BodyDef{.name = "capsule", .kind = BodyKind::rigid, .position = {1, 0.1, 0},
                                  .shape = Capsule{0.1, 0.3}, .filter = {.group = 0}})
      .value();
  const v1::Body defined = c.get_body("bounce", "ball").value();
  EXPECT_EQ(defined.def().material().restitution(), 0.8);
  EXPECT_EQ(c.get_body("bounce", "ground")->def().shape().segment().b().x(), 5.0);
  EXPECT_EQ(c.get_body("bounce", "capsule")->def().shape().capsule().half_length(), 0.3);
  EXPECT_EQ(c.get_world("bounce")->settings().contact_margin(), 0.01);

  std::mutex m;
  int frames = 0, begins = 0, mismatches = 0;
  auto sub = c.subscribe("bounce", {.contacts = true, .on_snapshot = [&](const v1::Snapshot&, const WorldMirror& w) {
                                      std::set<std::pair<Id, Id>> points;
                                      for (const ContactPoint& p : w.contacts())
                                        points.insert(std::minmax(p.a, p.b));
                                      std::lock_guard lock(m);
                                      ++frames;
                                      mismatches += points != w.touching();
                                      for (const ContactChange& e : w.contact_changes()) begins += e.begin;
                                    }});
  ASSERT_TRUE(sub->wait_until([](const WorldMirror& w) { return w.frames() >= 1; }, 5s));
  ASSERT_TRUE(c.step("bounce", 120).ok());
  ASSERT_TRUE(sub->wait_until([](const WorldMirror& w) { return w.tick() >= 120; }, 5s));
  const WorldMirror mirror = sub->mirror();
  EXPECT_EQ(mirror.inconsistencies(), 0u);
  std::lock_guard lock(m);
  EXPECT_GE(begins, 2) << "the ball and the capsule both touch the ground";
  EXPECT_EQ(mismatches, 0) << "of " << frames << " frames";
}

}  // namespace
}  // namespace linkage::client
