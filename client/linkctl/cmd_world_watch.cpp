// world watch: a live plot of a world's energy and max |C| in the terminal,
// or one line per sample when standard output is not a terminal.
#include <sys/ioctl.h>
#include <unistd.h>

#include <csignal>
#include <deque>
#include <iostream>
#include <memory>

#include "linkage/client/subscription.hpp"
#include "linkctl.hpp"
#include "plot.hpp"

namespace linkage::linkctl {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

// Samples kept: more than any terminal is wide (a chart draws two per column).
constexpr std::size_t kKeep = 1024;

// The terminal's size, for a chart that fits it (it may change between frames).
void terminal_size(int& columns, int& rows) {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    columns = ws.ws_col;
    rows = ws.ws_row;
    return;
  }
  columns = 80;
  rows = 24;
}

// Draws the plot in place: back up over the last drawing, rewrite each line
// and clear what is left of it and below. The cursor is hidden while drawing
// and shown again when this goes out of scope, on Ctrl-C and on errors alike.
class InPlace {
 public:
  InPlace() { std::cout << "\x1b[?25l" << std::flush; }
  ~InPlace() { std::cout << "\x1b[?25h" << std::flush; }
  InPlace(const InPlace&) = delete;
  InPlace& operator=(const InPlace&) = delete;

  void draw(const std::vector<std::string>& lines) {
    std::string out;
    if (drawn_ > 0) out += "\x1b[" + std::to_string(drawn_) + "F";  // to the start of the first line drawn
    for (const std::string& line : lines) out += line + "\x1b[K\n";
    out += "\x1b[J";
    std::cout << out << std::flush;
    drawn_ = lines.size();
  }

 private:
  std::size_t drawn_ = 0;
};

WatchSample sample_of(const v1::Snapshot& frame) {
  const v1::Diagnostics& d = frame.diagnostics();
  return {.tick = frame.tick(),
          .time = frame.time(),
          .energy = d.kinetic_energy() + d.gravitational_energy() + d.spring_energy(),
          .max_error = d.max_error()};
}

void print_sample_json(const WatchSample& s) {
  std::cout << "{\"tick\": " << s.tick << ", \"time\": " << num(s.time) << ", \"energy\": " << num(s.energy)
            << ", \"max_error\": " << num(s.max_error) << "}\n";
}

}  // namespace

void add_world_watch_command(CLI::App& world, Context& ctx) {
  struct Watch {
    std::string name;
    double seconds = 0, rate = 10;
    bool once = false;
  };
  auto w = std::make_shared<Watch>();
  CLI::App* watch = command(
      world, "watch", "A live plot of a world's total energy and max |C| (constraint error)",
      "  linkctl world watch lab\n  linkctl world watch lab --seconds 30 --rate 20\n"
      "  linkctl world watch lab --once\n  linkctl world watch lab --seconds 5 > energy.txt\n\n"
      "In a terminal the plot redraws in place until Ctrl-C or --seconds. Piped, it prints one\n"
      "line per sample, 'TICK TIME ENERGY MAX_ERROR' (s, J, each row's unit); --json: one object\n"
      "per line. A world deleted while watched ends it with the server's message.");
  watch->add_option("world", w->name, "the world (default: --world)")->type_name("WORLD");
  watch->add_option("--seconds", w->seconds, "stop after this many seconds (default: at Ctrl-C)")
      ->check(CLI::PositiveNumber);
  watch->add_option("--rate", w->rate, "samples per second (default 10)")->check(CLI::PositiveNumber);
  watch->add_flag("--once", w->once, "print the newest sample as one line and stop");
  watch->callback([&ctx, w] {
    const std::string name = w->name.empty() ? ctx.world : w->name;
    const bool terminal = !ctx.json && !w->once && isatty(STDOUT_FILENO);
    auto sub = ctx.client().subscribe(
        name, {.rate_hz = w->rate, .diagnostics = true, .on_snapshot = {}, .queue_capacity = 64});
    stop_requested = 0;
    std::signal(SIGINT, [](int) { stop_requested = 1; });
    std::signal(SIGTERM, [](int) { stop_requested = 1; });

    std::optional<InPlace> screen;
    if (terminal) screen.emplace();
    std::deque<WatchSample> samples;
    std::string note;
    const auto start = std::chrono::steady_clock::now();
    while (!stop_requested) {
      if (w->seconds > 0 && std::chrono::steady_clock::now() - start >= std::chrono::duration<double>(w->seconds))
        break;
      std::optional<v1::Snapshot> frame = sub->next(std::chrono::milliseconds(100));
      if (!frame) {
        if (sub->ended()) break;
        continue;
      }
      if (!frame->has_diagnostics()) continue;
      const WatchSample s = sample_of(*frame);
      const std::string now_note = frame->has_halt() ? "halted: " + frame->halt().message() : "";
      if (ctx.json) {
        print_sample_json(s);
      } else if (terminal) {
        samples.push_back(s);
        if (samples.size() > kKeep) samples.pop_front();
        int columns = 0, rows = 0;
        terminal_size(columns, rows);
        screen->draw(watch_plot(name, {samples.begin(), samples.end()}, now_note, columns, rows));
      } else {
        // Lines a program can read: the halt, once, as a '#' comment.
        if (!now_note.empty() && now_note != note) std::cout << "# " << now_note << "\n";
        std::cout << sample_line(s) << "\n";
      }
      note = now_note;
      std::cout.flush();
      if (w->once) break;
    }
    sub->cancel();
    screen.reset();
    must(sub->status());
  });
}

}  // namespace linkage::linkctl
