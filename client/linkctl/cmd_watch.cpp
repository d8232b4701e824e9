// watch: a live table of the world that redraws in a terminal, or JSON Lines.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <memory>

#include "linkage/client/proto.hpp"
#include "linkage/client/subscription.hpp"
#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

volatile std::sig_atomic_t interrupted = 0;

void draw(const v1::Snapshot& frame, const lc::WorldMirror& mirror, bool terminal, int limit) {
  // Home and clear, so the table redraws in place; off a terminal, tables
  // follow one another.
  if (terminal) std::cout << "\x1b[H\x1b[2J";
  std::cout << "world " << frame.world() << (frame.paused() ? " (paused)" : "") << "  tick " << frame.tick()
            << "  t = " << num(frame.time()) << " s  bodies " << frame.body_index_size() << "  constraints "
            << mirror.constraints().size() << "  topology v" << frame.topology_version() << "\n";
  if (frame.has_halt()) std::cout << "halted: " << frame.halt().message() << "\n";
  if (frame.has_diagnostics()) {
    const v1::Diagnostics& d = frame.diagnostics();
    std::cout << "max |C| " << num(d.max_error()) << "  energy "
              << num(d.kinetic_energy() + d.gravitational_energy() + d.spring_energy()) << " J  solver "
              << d.solver_iterations() << " it  step " << num(d.step_seconds() * 1000) << " ms\n";
  }
  const int dim = frame.dimension();
  std::vector<std::vector<std::string>> rows;
  const int n = frame.body_index_size();
  for (int i = 0; i < n && (limit <= 0 || i < limit); ++i) {
    const lc::Id id{frame.body_index(i), frame.body_generation(i)};
    auto it = mirror.bodies().find(id);
    const std::string name = it == mirror.bodies().end() || it->second.def().name().empty() ? "-" : it->second.def().name();
    v1::Vec3 p, v;
    if (frame.position_size() >= dim * (i + 1) && frame.velocity_size() >= dim * (i + 1)) {
      p.set_x(frame.position(dim * i));
      p.set_y(frame.position(dim * i + 1));
      v.set_x(frame.velocity(dim * i));
      v.set_y(frame.velocity(dim * i + 1));
      if (dim == 3) {
        p.set_z(frame.position(dim * i + 2));
        v.set_z(frame.velocity(dim * i + 2));
      }
    }
    rows.push_back({id.to_string(), name, vec_text(p, dim), i < frame.angle_size() ? num(frame.angle(i)) : "-",
                    vec_text(v, dim)});
  }
  print_table({"ID", "NAME", "POSITION", "ANGLE", "VELOCITY"}, rows);
  if (limit > 0 && n > limit) std::cout << "… " << n - limit << " more (--limit)\n";
  std::cout.flush();
}

}  // namespace

void add_watch_command(CLI::App& app, Context& ctx) {
  struct Watch {
    double rate = 10, duration = 0;
    int count = 0, limit = 0;
    bool constraints = false, diagnostics = false;
  };
  auto w = std::make_shared<Watch>();
  CLI::App* watch = command(app, "watch", "Stream the world: a live table, or JSON Lines with --json",
                            "  linkctl watch --rate 10\n  linkctl watch --json --count 5 | jq .tick\n"
                            "  linkctl --world lab watch --diagnostics --duration 10\n\n"
                            "Runs until Ctrl-C, --count frames or --duration seconds. With --json each frame\n"
                            "is one linkage.v1.Snapshot per line (the first carries the whole topology).");
  watch->add_option("--rate", w->rate, "frames per second (default 10; 0: every tick)");
  watch->add_option("--count", w->count, "stop after this many frames");
  watch->add_option("--duration", w->duration, "stop after this many seconds");
  watch->add_option("--limit", w->limit, "table rows at most (default: as many as the terminal has)");
  watch->add_flag("--constraints", w->constraints, "include each constraint's λ and error (JSON)");
  watch->add_flag("--diagnostics", w->diagnostics, "include the tick's diagnostics");
  watch->callback([&ctx, w] {
    const bool terminal = !ctx.json && isatty(STDOUT_FILENO);
    int limit = w->limit;
    if (limit <= 0 && terminal) {
      const char* lines = std::getenv("LINES");
      limit = lines ? std::max(5, std::atoi(lines) - 4) : 40;
    }
    auto sub = ctx.client().subscribe(ctx.world, {.rate_hz = w->rate,
                                                  .constraints = w->constraints,
                                                  .diagnostics = w->diagnostics,
                                                  .on_snapshot = {},
                                                  .queue_capacity = 4});
    std::signal(SIGINT, [](int) { interrupted = 1; });
    const auto start = std::chrono::steady_clock::now();
    int frames = 0;
    while (!interrupted) {
      if (w->count > 0 && frames >= w->count) break;
      if (w->duration > 0 && std::chrono::steady_clock::now() - start >= std::chrono::duration<double>(w->duration))
        break;
      std::optional<v1::Snapshot> frame = sub->next(std::chrono::milliseconds(100));
      if (!frame) {
        if (sub->ended()) break;
        continue;
      }
      ++frames;
      if (ctx.json) {
        print_json(*frame);
        std::cout.flush();
      } else {
        draw(*frame, sub->mirror(), terminal, limit);
      }
    }
    sub->cancel();
    must(sub->status());
  });
}

}  // namespace linkage::linkctl
