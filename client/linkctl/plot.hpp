#pragma once
// The picture of `linkctl world watch`: pure functions from samples to lines
// of text, so the exact drawing is tested without a terminal or a server.

#include <cstdint>
#include <string>
#include <vector>

namespace linkage::linkctl {

// One frame's numbers.
struct WatchSample {
  std::uint64_t tick = 0;
  double time = 0;       // s, world time
  double energy = 0;     // J: kinetic + gravitational + spring
  double max_error = 0;  // max |C|, in each row's unit
};

// `values` as a braille line chart `width` cells wide and `height` rows high.
// A cell holds 2×4 dots, so the newest 2·width values are drawn, oldest at the
// left, scaled so the smallest sits on the bottom dot row and the largest on
// the top one (a flat series runs through the middle); consecutive values are
// joined by a vertical run of dots. Non-finite values are left out. Empty
// cells are spaces. One string per row, top first.
std::vector<std::string> braille_chart(const std::vector<double>& values, int width, int height);

// The whole picture for a terminal `columns` wide and `rows` high: a title
// line (world, tick, time, the span drawn), the note when there is one (why
// the server paused the world), then for the energy and for max |C| a line
// with the newest value and a labelled chart of the newest samples. No line
// is wider than `columns` characters, so a redraw in place can count lines.
std::vector<std::string> watch_plot(const std::string& world, const std::vector<WatchSample>& samples,
                                    const std::string& note, int columns, int rows);

// "TICK TIME ENERGY MAX_ERROR", space-separated (num()'s digits): one line
// per sample when standard output is not a terminal.
std::string sample_line(const WatchSample& s);

}  // namespace linkage::linkctl
