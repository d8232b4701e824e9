// linkaged's log lines (server/log/): JSON strings escaped exactly (quotes,
// control characters, bytes that are not UTF-8), field values, and the json
// format's lines for an event and for a plain message.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <limits>
#include <regex>
#include <sstream>

#include "log/log.hpp"

namespace linkage::server::log {
namespace {

TEST(JsonString, EscapesWhatJsonMust) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a \"quoted\" \\ path"), R"("a \"quoted\" \\ path")");
  EXPECT_EQ(json_string("tab\there\nline\rend"), R"("tab\there\nline\rend")");
  EXPECT_EQ(json_string(std::string("nul\0one\x01" "del\x7f", 12)), R"("nul\u0000one\u0001del\u007f")");
}

TEST(JsonString, KeepsUtf8AndReplacesWhatIsNot) {
  EXPECT_EQ(json_string("мир ✓ \xf0\x9f\x8c\x8d"), "\"мир ✓ \xf0\x9f\x8c\x8d\"");
  EXPECT_EQ(json_string("bad\xff"), R"("bad\ufffd")");
  EXPECT_EQ(json_string("\xc0\xaf"), R"("\ufffd\ufffd")");          // an overlong '/'
  EXPECT_EQ(json_string("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // a UTF-16 surrogate
  EXPECT_EQ(json_string("cut \xe2\x82"), R"("cut \ufffd\ufffd")");    // a sequence cut short
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // beyond U+10FFFF
}

TEST(Field, RendersValuesAsJson) {
  EXPECT_EQ(Field("n", 42).json, "42");
  EXPECT_EQ(Field("n", -7).json, "-7");
  EXPECT_EQ(Field("n", std::numeric_limits<std::uint64_t>::max()).json, "18446744073709551615");
  EXPECT_EQ(Field("x", 0.25).json, "0.25");
  EXPECT_EQ(Field("x", std::numeric_limits<double>::quiet_NaN()).json, "null");
  EXPECT_EQ(Field("b", true).json, "true");
  EXPECT_EQ(Field("s", "say \"hi\"").json, R"("say \"hi\"")");
  EXPECT_EQ(Field("s", std::string("x")).json, R"("x")");
}

TEST(JsonFormat, OneObjectALineForEventsAndPlainMessages) {
  std::ostringstream out;
  auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_st>(out));
  const auto before = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  set_format(Format::json);
  event(spdlog::level::warn, "world.halted", "w-1", "tick 7: \"paused\"", {{"tick", 7}, {"reason", "watchdog"}});
  spdlog::info("plain {}", 1);
  event(spdlog::level::debug, "not.shown", "", "below the level");
  spdlog::set_default_logger(before);

  const std::string time = R"("time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")";
  std::istringstream lines(out.str());
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_TRUE(std::regex_match(
      line, std::regex("\\{" + time +
                       R"(,"level":"warning","world":"w-1","event":"world\.halted","message":"tick 7: \\"paused\\"",)"
                       R"("fields":\{"tick":7,"reason":"watchdog"\}\})")))
      << line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_TRUE(std::regex_match(line, std::regex("\\{" + time + R"(,"level":"info","event":"message","message":"plain 1"\})")))
      << line;
  EXPECT_FALSE(std::getline(lines, line)) << line;
}

TEST(ParseFormat, TakesTextAndJsonOnly) {
  Format f = Format::json;
  EXPECT_TRUE(parse_format("text", &f));
  EXPECT_EQ(f, Format::text);
  EXPECT_TRUE(parse_format("json", &f));
  EXPECT_EQ(f, Format::json);
  EXPECT_FALSE(parse_format("JSON", &f));
  EXPECT_FALSE(parse_format("", &f));
}

}  // namespace
}  // namespace linkage::server::log
