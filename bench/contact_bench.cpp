// Contacts against Box2D 2.4 (Google Benchmark, JSON out): Box2D's pyramid
// (base 20, 210 unit boxes) and a ball pit (500 disks in a box), 600 steps
// at 1/60 each, both engines in the same process run, sleeping off.
//
// Counters per run:
//   median_step_ms      wall time of one step
//   max_penetration_mm  the deepest overlap of any contact over the run
//                       (Box2D's counted at its polygons' 1 cm skin, as its
//                       manifolds report it)
//   top_drift_mm        (pyramid) how far the top box moved from 1 s to 10 s
//   kinetic_energy_end  J, at the end (a settled pile: near 0)
//   mean_step_ms, steps the mean step and the steps run (all of them)
//
//   contact_bench --benchmark_out=contacts.json --benchmark_out_format=json
#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>
#include <box2d/box2d.h>

#include "linkage/linkage.hpp"

namespace {

using linkage::BodyId;
using linkage::BodyKind;
using linkage::Vec3;

constexpr int kSteps = 600;
constexpr double kDt = 1.0 / 60.0;
constexpr double kFriction = 0.6;
constexpr int kBase = 20;
constexpr int kBalls = 500;

// Where each scene's bodies start, the same for both engines.
struct Piece {
  bool disk = false;
  double x = 0.0, y = 0.0, size = 0.5;  // a box's half side, or a disk's radius
};
struct Wall {
  double x, y, half_width, half_height;
};
struct Scene {
  std::vector<Piece> pieces;
  std::vector<Wall> walls;
  int top = -1;  // the piece whose drift is measured, or −1
};

Scene pyramid() {
  Scene s;
  s.walls.push_back({0.0, -0.5, 40.0, 0.5});
  for (int row = 0; row < kBase; ++row)
    for (int i = 0; i < kBase - row; ++i) s.pieces.push_back({false, (i - (kBase - row - 1) * 0.5) * 1.125, 0.5 + row, 0.5});
  s.top = static_cast<int>(s.pieces.size()) - 1;
  return s;
}

Scene ball_pit() {
  Scene s;
  s.walls = {{0.0, -0.5, 4.0, 0.5}, {-3.75, 4.0, 0.25, 4.0}, {3.75, 4.0, 0.25, 4.0}};
  for (int i = 0; i < kBalls; ++i) s.pieces.push_back({true, -3.0 + 0.25 * (i % 25), 0.2 + 0.25 * (i / 25), 0.1});
  return s;
}

struct Stats {
  std::vector<double> step_ms;
  double penetration = 0.0, drift = 0.0, kinetic = 0.0;
};

void report(benchmark::State& state, Stats& st) {
  double total = 0.0;
  for (const double ms : st.step_ms) total += ms;
  state.counters["mean_step_ms"] = total / static_cast<double>(st.step_ms.size());
  std::sort(st.step_ms.begin(), st.step_ms.end());
  state.counters["median_step_ms"] = st.step_ms[st.step_ms.size() / 2];
  state.counters["max_penetration_mm"] = 1000.0 * st.penetration;
  state.counters["top_drift_mm"] = 1000.0 * st.drift;
  state.counters["kinetic_energy_end"] = st.kinetic;
  state.counters["steps"] = static_cast<double>(st.step_ms.size());
}

template <class Step, class Measure, class Top>
Stats run(const Step& step, const Measure& deepest, const Top& top) {
  Stats st;
  Vec3 settled = Vec3::Zero();
  for (int i = 0; i < kSteps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    st.step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    st.penetration = std::max(st.penetration, -deepest());
    if (i == 59) settled = top();
  }
  st.drift = (top() - settled).norm();
  return st;
}

// Sequential impulses as Box2D runs them, or the exact family (the exact
// preset: contacts held to the projection's tolerance).
linkage::WorldSettings sequential_impulses() {
  linkage::WorldSettings s;
  s.dynamics = linkage::Dynamics::sequential_impulses;
  s.solver = linkage::LinearSolver::gauss_seidel;
  s.integrator = linkage::Integrator::semi_implicit_euler;
  return s;
}
// The scene files' configuration: 4 substeps (Box2D v3's default), which
// hold every overlap within the slop where one step of 8/3 does not.
linkage::WorldSettings sequential_impulses_4_substeps() {
  linkage::WorldSettings s = sequential_impulses();
  s.substeps = 4;
  return s;
}
linkage::WorldSettings exact() { return linkage::with_preset(linkage::Preset::exact); }

void bench_linkage(benchmark::State& state, Scene (*make)(), linkage::WorldSettings (*family)()) {
  for (auto _ : state) {
    state.PauseTiming();
    const Scene scene = make();
    linkage::WorldSettings s = family();
    s.contacts = true;
    s.dt = kDt;
    linkage::World w = linkage::World::create(s).value();
    for (const Wall& wall : scene.walls)
      w.add_body({.kind = BodyKind::rigid, .motion = linkage::Motion::fixed, .position = Vec3(wall.x, wall.y, 0),
                  .shape = linkage::Box{wall.half_width, wall.half_height}, .material = {kFriction, 0.0}})
          .value();
    std::vector<BodyId> ids;
    for (const Piece& p : scene.pieces) {
      const linkage::Shape shape = p.disk ? linkage::Shape(linkage::Disk{p.size}) : linkage::Shape(linkage::Box{p.size, p.size});
      ids.push_back(
          w.add_body({.kind = BodyKind::rigid, .position = Vec3(p.x, p.y, 0), .shape = shape, .material = {kFriction, 0.0}})
              .value());
    }
    state.ResumeTiming();
    Stats st = run([&] { w.step(); },
                   [&] {
                     double d = 0.0;
                     for (const linkage::ContactInfo& c : w.contacts()) d = std::min(d, c.separation);
                     return d;
                   },
                   [&] { return scene.top >= 0 ? w.body(ids[static_cast<std::size_t>(scene.top)]).value().position : Vec3::Zero(); });
    state.PauseTiming();
    st.kinetic = w.diagnostics().kinetic_energy;
    report(state, st);
    state.ResumeTiming();
  }
}

void bench_box2d(benchmark::State& state, Scene (*make)()) {
  for (auto _ : state) {
    state.PauseTiming();
    const Scene scene = make();
    auto world = std::make_unique<b2World>(b2Vec2(0.0f, -9.81f));
    world->SetAllowSleeping(false);
    b2BodyDef fixed;
    b2Body* ground = world->CreateBody(&fixed);
    for (const Wall& wall : scene.walls) {
      b2PolygonShape box;
      box.SetAsBox(static_cast<float>(wall.half_width), static_cast<float>(wall.half_height),
                   b2Vec2(static_cast<float>(wall.x), static_cast<float>(wall.y)), 0.0f);
      b2FixtureDef f;
      f.shape = &box;
      f.friction = kFriction;
      ground->CreateFixture(&f);
    }
    std::vector<b2Body*> bodies;
    for (const Piece& p : scene.pieces) {
      b2BodyDef def;
      def.type = b2_dynamicBody;
      def.position.Set(static_cast<float>(p.x), static_cast<float>(p.y));
      b2Body* body = world->CreateBody(&def);
      b2PolygonShape box;
      b2CircleShape circle;
      box.SetAsBox(static_cast<float>(p.size), static_cast<float>(p.size));
      circle.m_radius = static_cast<float>(p.size);
      b2FixtureDef f;
      f.shape = p.disk ? static_cast<b2Shape*>(&circle) : static_cast<b2Shape*>(&box);
      f.density = 1.0f;
      f.friction = kFriction;
      body->CreateFixture(&f);
      bodies.push_back(body);
    }
    state.ResumeTiming();
    Stats st = run([&] { world->Step(static_cast<float>(kDt), 8, 3); },
                   [&] {
                     double d = 0.0;
                     for (b2Contact* c = world->GetContactList(); c; c = c->GetNext()) {
                       if (!c->IsTouching()) continue;
                       b2WorldManifold wm;
                       c->GetWorldManifold(&wm);
                       for (int k = 0; k < c->GetManifold()->pointCount; ++k) d = std::min(d, static_cast<double>(wm.separations[k]));
                     }
                     return d;
                   },
                   [&] {
                     if (scene.top < 0) return Vec3(Vec3::Zero());
                     const b2Vec2 p = bodies[static_cast<std::size_t>(scene.top)]->GetPosition();
                     return Vec3(p.x, p.y, 0.0);
                   });
    state.PauseTiming();
    double kinetic = 0.0;
    for (b2Body* b : bodies) {
      const b2Vec2 v = b->GetLinearVelocity();
      kinetic += 0.5 * b->GetMass() * (v.x * v.x + v.y * v.y) + 0.5 * b->GetInertia() * b->GetAngularVelocity() * b->GetAngularVelocity();
    }
    st.kinetic = kinetic;
    report(state, st);
    state.ResumeTiming();
  }
}

}  // namespace

BENCHMARK_CAPTURE(bench_linkage, pyramid, pyramid, sequential_impulses)->Name("pyramid/linkage/sequential_impulses+v8_p3")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_linkage, pyramid_4, pyramid, sequential_impulses_4_substeps)->Name("pyramid/linkage/sequential_impulses+v8_p3+4_substeps")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_linkage, pyramid_exact, pyramid, exact)->Name("pyramid/linkage/exact")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_box2d, pyramid, pyramid)->Name("pyramid/box2d/v8_p3")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_linkage, ball_pit, ball_pit, sequential_impulses)->Name("ball_pit/linkage/sequential_impulses+v8_p3")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_linkage, ball_pit_4, ball_pit, sequential_impulses_4_substeps)->Name("ball_pit/linkage/sequential_impulses+v8_p3+4_substeps")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_linkage, ball_pit_exact, ball_pit, exact)->Name("ball_pit/linkage/exact")->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bench_box2d, ball_pit, ball_pit)->Name("ball_pit/box2d/v8_p3")->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
