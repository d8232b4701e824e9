// linkage against Box2D 2.4 on the shared scenes (Google Benchmark, JSON out).
//
// Every benchmark is one full run of one scene by one engine configuration:
// the scene is built (not timed), then stepped; each step is timed alone, and
// between steps (not timed) the state is read back and measured by the same
// engine-neutral functions for every engine (linkage/scenes/measure.hpp).
// Names are  <scene>/<engine>/<config> ; the counters are
//   median_step_ms, mean_step_ms   wall time of one step
//   worst_rel_error                max over the run of the worst relative constraint error
//   final_rel_error                the same at the end
//   energy_drift                   (E_end − E_0) / (M g H), see SceneSpec::energy_scale
//   max_energy_drift               max over the run of |E − E_0| / (M g H)
//   steps, dof, equations, diverged_at_step (0: never), rank_deficiency (linkage only)
//
//   bench --benchmark_out=results.json --benchmark_out_format=json
//   bench --steps=5 --benchmark_filter='^pendulum/'   (a quick look; also LINKAGE_BENCH_STEPS=5)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "box2d_scene.hpp"
#include "linkage/linkage.hpp"
#include "linkage/scenes/build.hpp"
#include "linkage/scenes/measure.hpp"
#include "linkage/scenes/spec.hpp"

namespace {

using linkage::Dynamics;
using linkage::Integrator;
using linkage::Preset;
using linkage::with_preset;
using linkage::LinearSolver;
using linkage::WorldSettings;
namespace scenes = linkage::scenes;

// ---------------------------------------------------------------------------
// What is measured. Adding a configuration is one line in one of these tables.

struct OurConfig {
  std::string name;
  WorldSettings settings;  // gravity, dt and dimension come from the scene
  // Scenes this configuration runs on; empty: all. A configuration that
  // would take minutes on the largest scenes names the others.
  std::vector<std::string> only = {};
  // Contenders (exact configurations, and our Box2D method) run every scene
  // at its full length; the others run at most kShortSteps steps on scenes
  // of more than kShortDof DOF, and the report says so.
  bool contender = false;
};
constexpr int kShortSteps = 60;
constexpr int kShortDof = 5000;

WorldSettings threads(WorldSettings s, int count) {
  s.threads = count;
  return s;
}

// Witkin's force-based dynamics (λ at every derivative evaluation).
const std::vector<OurConfig> kForceBased = {
    {"force_based+ldlt+rk4", {.integrator = Integrator::rk4, .solver = LinearSolver::ldlt}},
    {"force_based+ldlt+semi_implicit_euler",
     {.integrator = Integrator::semi_implicit_euler, .solver = LinearSolver::ldlt}},
    {"force_based+cg+semi_implicit_euler",
     {.integrator = Integrator::semi_implicit_euler, .solver = LinearSolver::conjugate_gradient}},
};

// ===== The impulse family (velocity_projection, sequential_impulses, SHAKE/RATTLE) =====
// One velocity-level solve per step (core/src/impulse.cpp, projection.cpp).
// One line per configuration.
const std::vector<OurConfig> kImpulse = {
    {"velocity_projection+ldlt", {.solver = LinearSolver::ldlt, .dynamics = Dynamics::velocity_projection}},
    // SHAKE is left out of the cloths to keep the suite to minutes: their
    // straight, taut top row (a first-order mechanism) has no vertical
    // constraint direction, and Newton needs many cut-back iterations to hold
    // it (measured on cloth_32: 81 ms a step for a worst error of 4.4e-5).
    // Classic SHAKE (directions of the step's start): symplectic, unstable
    // once the step outruns a loaded fine chain's transverse waves, so only
    // where it is stable.
    {"velocity_projection+ldlt+shake+rattle",
     {.solver = LinearSolver::ldlt,
      .dynamics = Dynamics::velocity_projection,
      .baumgarte = 0.0,
      .project_positions = true,
      .project_velocities = true},
     {"pendulum", "chain_100", "joint_grid"}},
    // The exact preset (Gauss–Newton projection to the nearest point), on
    // one thread and on both cores.
    {"exact", with_preset(Preset::exact), {}, true},
    {"exact+2threads", threads(with_preset(Preset::exact), 2), {}, true},
    {"sequential_impulses+v8_p3",  // Box2D's defaults
     {.dynamics = Dynamics::sequential_impulses, .velocity_iterations = 8, .position_iterations = 3},
     {},
     true},
    {"sequential_impulses+v50_p50",
     {.dynamics = Dynamics::sequential_impulses, .velocity_iterations = 50, .position_iterations = 50}},
};

struct Box2DConfig {
  std::string name;
  int velocity_iterations, position_iterations;
};
const std::vector<Box2DConfig> kBox2D = {
    {"v8_p3", 8, 3},     // Box2D 2.4's defaults
    {"v50_p50", 50, 50}, // high iterations
};

struct SceneEntry {
  std::function<scenes::SceneSpec()> make;
  // Steps run by every engine; 0: the scene's own (600 = 10 s; joint_grid 500).
  // A scene is shortened here, for all engines alike, when a configuration
  // would take over a minute on it; BENCHMARKS.md says which.
  int steps = 0;
};
const std::vector<SceneEntry> kScenes = {
    {[] { return scenes::pendulum(); }},
    {[] { return scenes::chain(100); }},
    {[] { return scenes::chain(1000); }},
    {[] { return scenes::cloth(32); }},
    {[] { return scenes::cloth(100); }},
    {[] { return scenes::cloth_slack(100); }},
    {[] { return scenes::joint_grid(); }},
};

// ---------------------------------------------------------------------------

int g_steps_override = 0;  // --steps=N or LINKAGE_BENCH_STEPS=N: every scene runs N steps

struct Run {
  std::vector<double> step_seconds;
  double worst = 0.0, final_error = 0.0;
  double e0 = 0.0, e_end = 0.0, max_drift = 0.0;
  int diverged_at = 0;
};

bool finite_state(const scenes::SceneState& s) {
  for (std::size_t i = 0; i < s.position.size(); ++i)
    if (!std::isfinite(s.position[i].x()) || !std::isfinite(s.position[i].y()) || !std::isfinite(s.angle[i]) ||
        !std::isfinite(s.velocity[i].x()) || !std::isfinite(s.velocity[i].y()))
      return false;
  return true;
}

// Steps `steps` times; `step()` is timed, `read(state)` and the measures are not.
template <class Step, class Read>
Run run_scene(const scenes::SceneSpec& spec, int steps, Step step, Read read) {
  Run r;
  r.step_seconds.reserve(static_cast<std::size_t>(steps));
  scenes::SceneState state;
  read(state);
  r.e0 = r.e_end = scenes::total_energy(spec, state);
  r.worst = r.final_error = scenes::worst_relative_error(spec, state);
  for (int s = 1; s <= steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    const auto t1 = std::chrono::steady_clock::now();
    r.step_seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    read(state);
    r.final_error = scenes::worst_relative_error(spec, state);
    r.worst = std::max(r.worst, r.final_error);
    r.e_end = scenes::total_energy(spec, state);
    r.max_drift = std::max(r.max_drift, std::abs(r.e_end - r.e0) / spec.energy_scale);
    if (!finite_state(state)) {  // nothing more to learn; NaN arithmetic would only distort the times
      r.diverged_at = s;
      r.worst = r.final_error = std::numeric_limits<double>::infinity();
      break;
    }
  }
  return r;
}

void report(benchmark::State& state, const scenes::SceneSpec& spec, const Run& r) {
  std::vector<double> t = r.step_seconds;
  double total = 0.0;
  for (double x : t) total += x;
  double median = 0.0;
  if (!t.empty()) {
    std::sort(t.begin(), t.end());
    median = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
  }
  state.SetIterationTime(total);
  const scenes::SceneCounts c = scenes::counts(spec);
  state.counters["median_step_ms"] = median * 1e3;
  state.counters["mean_step_ms"] = t.empty() ? 0.0 : total / static_cast<double>(t.size()) * 1e3;
  state.counters["worst_rel_error"] = r.worst;
  state.counters["final_rel_error"] = r.final_error;
  state.counters["energy_drift"] = r.diverged_at ? std::numeric_limits<double>::infinity()
                                                  : (r.e_end - r.e0) / spec.energy_scale;
  state.counters["max_energy_drift"] = r.diverged_at ? std::numeric_limits<double>::infinity() : r.max_drift;
  state.counters["steps"] = static_cast<double>(t.size());
  state.counters["dof"] = c.dof;
  state.counters["equations"] = c.equations;
  state.counters["diverged_at_step"] = r.diverged_at;
}

int steps_for(const SceneEntry& entry, const scenes::SceneSpec& spec) {
  if (g_steps_override > 0) return g_steps_override;
  return entry.steps > 0 ? entry.steps : spec.steps;
}

// Steps a configuration runs: contenders the whole scene, the others at most
// kShortSteps on large scenes (the report marks them shortened).
int steps_for(const SceneEntry& entry, const scenes::SceneSpec& spec, const OurConfig& config) {
  const int steps = steps_for(entry, spec);
  if (config.contender || g_steps_override > 0 || scenes::counts(spec).dof <= kShortDof) return steps;
  return std::min(steps, kShortSteps);
}

// What the solver did over the run, per step: the means of its counts and of
// each stage's time, the path it took most, and the steps whose projection
// stopped at its cap.
struct SolverProfile {
  double factorizations = 0, solves = 0, pcg = 0, projection = 0;
  linkage::StageTimes stages;
  int path_steps[6] = {};
  int capped = 0, steps = 0;

  void add(const linkage::StepDiagnostics& d) {
    factorizations += d.factorizations;
    solves += d.solves;
    pcg += d.pcg_iterations;
    projection += d.projection_iterations;
    for (int k = 0; k < linkage::kStageCount; ++k) stages.seconds[k] += d.stage_seconds.seconds[k];
    ++path_steps[static_cast<int>(d.solver_path)];
    capped += d.projection_capped ? 1 : 0;
    ++steps;
  }
  void report(benchmark::State& state) const {
    const double n = std::max(steps, 1);
    state.counters["factorizations_per_step"] = factorizations / n;
    state.counters["solves_per_step"] = solves / n;
    state.counters["pcg_per_step"] = pcg / n;
    state.counters["projection_iterations_per_step"] = projection / n;
    state.counters["capped_steps"] = capped;
    state.counters["solver_path"] = static_cast<double>(std::max_element(path_steps, path_steps + 6) - path_steps);
    for (int k = 0; k < linkage::kStageCount; ++k)
      state.counters[std::string(linkage::stage_name(static_cast<linkage::Stage>(k))) + "_ms"] = stages.seconds[k] / n * 1e3;
  }
};

void bench_linkage(benchmark::State& state, const SceneEntry& entry, const OurConfig& config) {
  const scenes::SceneSpec spec = entry.make();
  for (auto _ : state) {
    linkage::Result<scenes::SceneWorld> built = scenes::build_world(spec, config.settings);
    if (!built) {
      state.SkipWithError(("build_world: " + built.error().message).c_str());
      return;
    }
    scenes::SceneWorld& scene = built.value();
    int rank_deficiency = 0;
    SolverProfile profile;
    const int steps = steps_for(entry, spec, config);
    const Run r = run_scene(
        spec, steps,
        [&] {
          const linkage::StepDiagnostics& d = scene.world.step();
          rank_deficiency = d.rank_deficiency;
          profile.add(d);
        },
        [&](scenes::SceneState& s) { scenes::read_state(scene, s); });
    report(state, spec, r);
    state.counters["rank_deficiency"] = rank_deficiency;
    state.counters["shortened"] = steps < steps_for(entry, spec) ? 1 : 0;
    profile.report(state);
  }
}

void bench_box2d(benchmark::State& state, const SceneEntry& entry, const Box2DConfig& config) {
  const scenes::SceneSpec spec = entry.make();
  for (auto _ : state) {
    linkage::bench::Box2DScene scene = linkage::bench::build_box2d(spec);
    const float dt = static_cast<float>(spec.dt);
    const Run r = run_scene(
        spec, steps_for(entry, spec),
        [&] { scene.step(dt, config.velocity_iterations, config.position_iterations); },
        [&](scenes::SceneState& s) { linkage::bench::read_state(scene, s); });
    report(state, spec, r);
  }
}

// Takes --steps=N out of argv (Google Benchmark rejects flags it does not know).
void parse_own_flags(int& argc, char** argv) {
  if (const char* env = std::getenv("LINKAGE_BENCH_STEPS")) g_steps_override = std::atoi(env);
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--steps=", 8) == 0) {
      g_steps_override = std::atoi(argv[i] + 8);
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
}

void register_all() {
  std::vector<OurConfig> ours = kForceBased;
  ours.insert(ours.end(), kImpulse.begin(), kImpulse.end());
  for (const SceneEntry& entry : kScenes) {
    const scenes::SceneSpec spec = entry.make();
    const scenes::SceneCounts c = scenes::counts(spec);
    benchmark::AddCustomContext(
        "scene:" + spec.name,
        std::to_string(steps_for(entry, spec)) + " steps of 1/" +
            std::to_string(static_cast<int>(std::lround(1.0 / spec.dt))) + " s; dynamic bodies " +
            std::to_string(c.dynamic_bodies) + ", DOF " + std::to_string(c.dof) + ", joints " +
            std::to_string(c.active_joints) + ", equations " + std::to_string(c.equations) + "; energy scale " +
            spec.energy_scale_text);
    auto add = [&](const std::string& name, auto fn) {
      benchmark::RegisterBenchmark(name.c_str(), fn)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    };
    for (const OurConfig& config : ours)
      if (config.only.empty() || std::find(config.only.begin(), config.only.end(), spec.name) != config.only.end())
        add(spec.name + "/linkage/" + config.name,
            [entry, config](benchmark::State& s) { bench_linkage(s, entry, config); });
    for (const Box2DConfig& config : kBox2D)
      add(spec.name + "/box2d/" + config.name,
          [entry, config](benchmark::State& s) { bench_box2d(s, entry, config); });
  }
  if (g_steps_override > 0) benchmark::AddCustomContext("steps_override", std::to_string(g_steps_override));
  benchmark::AddCustomContext("box2d", "2.4.1 (Debian libbox2d-dev), float, sleeping off, no fixtures");
#if defined(__clang__)
  benchmark::AddCustomContext("compiler", "Clang " __clang_version__);
#elif defined(__GNUC__)
  benchmark::AddCustomContext("compiler", "GCC " __VERSION__);
#endif
#ifdef LINKAGE_BUILD_TYPE
  benchmark::AddCustomContext("build_type", LINKAGE_BUILD_TYPE);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  parse_own_flags(argc, argv);
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
