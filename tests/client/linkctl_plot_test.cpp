// world watch's picture, exactly: the braille dots worked out by hand from
// the scaling rule (smallest value on the bottom dot row, largest on the top,
// consecutive values joined) and Unicode's dot numbering.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "plot.hpp"

namespace linkage::linkctl {
namespace {

using Lines = std::vector<std::string>;

std::size_t chars(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(BrailleChart, ARampClimbsOneDotRowEveryTwoValues) {
  // 0..7 on 4 dot rows: rows 3,3,2,2,1,1,0,0 from the top; each pair fills one cell.
  EXPECT_EQ(braille_chart({0, 1, 2, 3, 4, 5, 6, 7}, 4, 1), Lines({"⣀⠤⠒⠉"}));
}

TEST(BrailleChart, AFlatSeriesRunsThroughTheMiddle) {
  // 8 dot rows, the flat line on row 3: the bottom dots of the top cells.
  EXPECT_EQ(braille_chart({5, 5, 5}, 2, 2), Lines({"⣀⡀", "  "}));
}

TEST(BrailleChart, AJumpIsJoinedByAVerticalRun) {
  // 0 then 7 over 8 dot rows: row 7 in the left column, rows 0-6 in the right.
  EXPECT_EQ(braille_chart({0, 7}, 1, 2), Lines({"⢸", "⡸"}));
}

TEST(BrailleChart, NonFiniteValuesLeaveAGap) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // 0 at the bottom, nothing, 1 at the top with no run joining it to 0.
  EXPECT_EQ(braille_chart({0, nan, 1}, 2, 1), Lines({"⡀⠁"}));
  EXPECT_EQ(braille_chart({nan, std::numeric_limits<double>::infinity()}, 1, 1), Lines({" "}));
}

TEST(BrailleChart, OnlyTheNewestValuesThatFitAreDrawn) {
  // One cell holds two values: 9 is dropped, so 0 and 1 span the whole height.
  EXPECT_EQ(braille_chart({9, 0, 1}, 1, 1), Lines({"⡸"}));
  EXPECT_EQ(braille_chart({}, 3, 1), Lines({"   "}));
}

std::vector<WatchSample> three() {
  return {{.tick = 60, .time = 1, .energy = 10, .max_error = 0},
          {.tick = 120, .time = 2, .energy = 12, .max_error = 0.001},
          {.tick = 180, .time = 3, .energy = 11, .max_error = 0.002}};
}

TEST(WatchPlot, TitleThenAChartOfTheEnergyAndOneOfMaxC) {
  // 10 rows: title, two titled charts of 3 rows, a line for the cursor. The
  // labels share a column as wide as "0.002".
  EXPECT_EQ(watch_plot("lab", three(), "", 48, 10), Lines({
                                                        "world lab  tick 180  t = 3 s  (last 2 s)",
                                                        "energy (J): 11",
                                                        "   12 ┤⢸⡆",
                                                        "      │⢸⠃",
                                                        "   10 ┤⡸",
                                                        "max |C|: 0.002",
                                                        "0.002 ┤ ⡇",
                                                        "      │⢰⠁",
                                                        "    0 ┤⡸",
                                                    }));
}

TEST(WatchPlot, TheNoteComesUnderTheTitleAndTheChartsShrinkForIt) {
  const Lines lines = watch_plot("lab", three(), "halted: diverged at tick 180", 48, 10);
  ASSERT_EQ(lines.size(), 8u);  // charts of 2 rows now
  EXPECT_EQ(lines[1], "halted: diverged at tick 180");
  EXPECT_EQ(lines[2], "energy (J): 11");
  EXPECT_EQ(lines[5], "max |C|: 0.002");
}

TEST(WatchPlot, BeforeTheFirstFrame) {
  EXPECT_EQ(watch_plot("lab", {}, "", 40, 6),
            Lines({"world lab  waiting for the first frame", "energy (J)", "  │", "  │", "max |C|", "  │", "  │"}));
}

TEST(WatchPlot, NoLineIsWiderThanTheTerminalAndTheChartsStaySmall) {
  std::vector<WatchSample> many;
  for (int i = 0; i < 500; ++i)
    many.push_back({.tick = static_cast<std::uint64_t>(i), .time = i / 60.0, .energy = std::sin(i * 0.1),
                    .max_error = 1e-6 * i});
  for (int columns : {10, 30, 80, 200}) {
    const Lines lines = watch_plot("a-rather-long-world-name", many, "halted: " + std::string(300, 'x'), columns, 60);
    EXPECT_EQ(lines.size(), 2u + 2u * (1u + 8u)) << columns;  // at most 8 rows a chart
    for (const std::string& line : lines) EXPECT_LE(chars(line), static_cast<std::size_t>(std::max(columns, 24)));
  }
}

TEST(SampleLine, TickTimeEnergyMaxError) {
  EXPECT_EQ(sample_line({.tick = 600, .time = 10, .energy = -9.81, .max_error = 1.5e-08}), "600 10 -9.81 1.5e-08");
}

}  // namespace
}  // namespace linkage::linkctl
