// linkaged simulate: a scene run offline, as fast as the machine allows.
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "convert/scene_io.hpp"
#include "host/frames.hpp"
#include "options.hpp"

namespace linkage::server {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "linkaged simulate: %s\n", message.c_str());
  return 2;
}

}  // namespace

int simulate(const SimulateOptions& o) {
  std::ifstream in(o.scene);
  if (!in) return fail("cannot read " + o.scene);
  std::stringstream text;
  text << in.rdbuf();
  Result<v1::Scene> scene = parse_scene_json(text.str());
  if (!scene) return fail(o.scene + ": " + scene.error().message);
  Result<LoadedScene> loaded = load_scene(scene.value(), WorldSettings{});
  if (!loaded) return fail(o.scene + ": " + loaded.error().message);

  WorldHost::State s{.world = HostedWorld(std::move(loaded.value().world), std::move(loaded.value().names))};
  const double dt = s.world.core().settings().dt;
  const std::int64_t steps = o.steps > 0 ? o.steps : static_cast<std::int64_t>(std::llround(o.seconds / dt));
  std::ofstream out;
  if (!o.out.empty()) {
    out.open(o.out);
    if (!out) return fail("cannot write " + o.out);
  }
  google::protobuf::util::JsonPrintOptions json;
  json.preserve_proto_field_names = true;
  // Every line carries this tick's states and diagnostics; the first also
  // the whole topology, so that a file can be read on its own.
  auto write = [&](bool first) {
    std::shared_ptr<v1::Snapshot> frame = build_frame(s, o.scene, true, true);
    if (first) fill_changes(s, TopologyDelta{.full = true}, frame->mutable_changes());
    std::string line;
    (void)google::protobuf::util::MessageToJsonString(*frame, &line, json);
    out << line << '\n';
  };
  const bool terminal = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  if (out.is_open()) write(true);
  double worst = 0.0;
  for (std::int64_t i = 1; i <= steps; ++i) {
    const StepDiagnostics& d = s.world.step();
    ++s.tick;
    if (!std::isfinite(d.max_error) || !std::isfinite(d.total_energy()))
      return fail("the simulation diverged at step " + std::to_string(i) + " (t = " + std::to_string(d.time) + " s)");
    worst = std::max(worst, d.max_error);
    if (out.is_open() && i % o.every == 0) write(false);
    if (terminal && (i % 50 == 0 || i == steps)) {
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "\r  t = %.2f / %.2f s   step %lld / %lld   max|C| %.2e   %.0f steps/s   ", d.time,
                   steps * dt, static_cast<long long>(i), static_cast<long long>(steps), d.max_error, i / wall);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (terminal) std::fprintf(stderr, "\n");
  std::printf("%s: %lld steps (%.2f s simulated) in %.3f s; worst max|C| %.3e; final energy %.6f J\n", o.scene.c_str(),
              static_cast<long long>(steps), steps * dt, wall, worst, s.world.core().diagnostics().total_energy());
  return 0;
}

}  // namespace linkage::server
