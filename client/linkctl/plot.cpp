// world watch's picture: braille charts of the energy and max |C|.
#include "plot.hpp"

#include <algorithm>
#include <cmath>

#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

// The bit of each dot in a braille cell (Unicode's numbering: dots 1-3 and 7
// down the left column, 4-6 and 8 down the right).
constexpr unsigned kDot[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};

std::string braille(unsigned bits) {
  if (bits == 0) return " ";
  const unsigned code = 0x2800 + bits;  // three bytes of UTF-8
  return {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
          static_cast<char>(0x80 | (code & 0x3F))};
}

// Characters, not bytes: "┤" and the braille cells are one each.
std::size_t width_of(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first `columns` characters of `s`, without trailing spaces.
std::string fit(const std::string& s, int columns) {
  std::size_t end = 0, chars = 0;
  while (end < s.size() && chars < static_cast<std::size_t>(columns)) {
    ++end;
    while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    ++chars;
  }
  std::string out = s.substr(0, end);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string pad(const std::string& s, std::size_t width) {
  return std::string(width - std::min(width, width_of(s)), ' ') + s;
}

struct Range {
  double lo = 0, hi = 0;
  bool any = false;
};

Range range_of(const std::vector<double>& values) {
  Range r;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    r.lo = r.any ? std::min(r.lo, v) : v;
    r.hi = r.any ? std::max(r.hi, v) : v;
    r.any = true;
  }
  return r;
}

}  // namespace

std::vector<std::string> braille_chart(const std::vector<double>& values, int width, int height) {
  width = std::max(width, 1);
  height = std::max(height, 1);
  const int dots_x = 2 * width, dots_y = 4 * height;
  const std::size_t first = values.size() > static_cast<std::size_t>(dots_x) ? values.size() - dots_x : 0;
  const std::vector<double> shown(values.begin() + static_cast<std::ptrdiff_t>(first), values.end());
  const Range r = range_of(shown);

  // Dot row of a value, 0 at the top.
  auto row_of = [&](double v) {
    if (r.hi == r.lo) return dots_y / 2 - 1;
    const double level = (v - r.lo) / (r.hi - r.lo);
    return (dots_y - 1) - static_cast<int>(std::lround(level * (dots_y - 1)));
  };
  std::vector<unsigned> cells(static_cast<std::size_t>(width * height), 0);
  auto set = [&](int x, int y) { cells[(y / 4) * width + x / 2] |= kDot[x % 2][y % 4]; };
  int previous = -1;  // the last drawn value's dot row; -1 after a gap
  for (int x = 0; x < static_cast<int>(shown.size()); ++x) {
    if (!std::isfinite(shown[x])) {
      previous = -1;
      continue;
    }
    const int y = row_of(shown[x]);
    // From just past the previous dot to this one, so the line has no gaps.
    int from = y, to = y;
    if (previous >= 0 && previous < y) from = previous + 1;
    if (previous > y) to = previous - 1;
    for (int yy = from; yy <= to; ++yy) set(x, yy);
    previous = y;
  }

  std::vector<std::string> rows(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) rows[y] += braille(cells[y * width + x]);
  return rows;
}

std::vector<std::string> watch_plot(const std::string& world, const std::vector<WatchSample>& samples,
                                    const std::string& note, int columns, int rows) {
  columns = std::max(columns, 24);
  std::vector<std::string> out;
  std::vector<double> energy, error;
  for (const WatchSample& s : samples) {
    energy.push_back(s.energy);
    error.push_back(s.max_error);
  }
  // Two charts with a title line each, under the title and the note, and a
  // line left for the cursor; each chart 2 to 8 rows high.
  const int spare = rows - 1 - (note.empty() ? 0 : 1) - 2 - 1;
  const int height = std::clamp(spare / 2, 2, 8);

  // The scale labels of both charts share a column, as wide as the widest.
  std::size_t label = 1;
  for (const auto* series : {&energy, &error}) {
    const Range r = range_of(*series);
    if (r.any) label = std::max({label, width_of(num(r.hi)), width_of(num(r.lo))});
  }
  const int width = std::max(4, columns - static_cast<int>(label) - 2);
  const std::size_t shown = std::min(samples.size(), static_cast<std::size_t>(2 * width));

  if (samples.empty()) {
    out.push_back(fit("world " + world + "  waiting for the first frame", columns));
  } else {
    const WatchSample& first = samples[samples.size() - shown];
    const WatchSample& last = samples.back();
    out.push_back(fit("world " + world + "  tick " + std::to_string(last.tick) + "  t = " + num(last.time) +
                          " s  (last " + num(last.time - first.time) + " s)",
                      columns));
  }
  if (!note.empty()) out.push_back(fit(note, columns));

  auto chart = [&](const std::string& title, const std::vector<double>& series) {
    out.push_back(fit(title + (series.empty() ? "" : ": " + num(series.back())), columns));
    const std::vector<double> tail(series.end() - static_cast<std::ptrdiff_t>(shown), series.end());
    const Range r = range_of(tail);
    const std::vector<std::string> lines = braille_chart(tail, width, height);
    for (int y = 0; y < height; ++y) {
      std::string left(label, ' ');
      if (r.any && y == 0) left = pad(num(r.hi), label);
      if (r.any && y == height - 1) left = pad(num(r.lo), label);
      const bool tick = r.any && (y == 0 || y == height - 1);
      out.push_back(fit(left + (tick ? " ┤" : " │") + lines[y], columns));
    }
  };
  chart("energy (J)", energy);
  chart("max |C|", error);
  return out;
}

std::string sample_line(const WatchSample& s) {
  return std::to_string(s.tick) + " " + num(s.time) + " " + num(s.energy) + " " + num(s.max_error);
}

}  // namespace linkage::linkctl
