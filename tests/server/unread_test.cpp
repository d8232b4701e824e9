// Unread (server/host/unread.hpp): what clients have not read, by address.
#include "host/unread.hpp"

#include <gtest/gtest.h>

namespace linkage::server {
namespace {

TEST(Unread, TakesWhatFitsTheAddressAndTheWhole) {
  Unread unread({.total = 300, .per_peer = 200});
  EXPECT_TRUE(unread.take("a", 150));
  EXPECT_FALSE(unread.take("a", 51));  // past a's share
  EXPECT_TRUE(unread.take("a", 50));
  EXPECT_TRUE(unread.take("b", 100));
  EXPECT_FALSE(unread.take("c", 1));  // past the whole
  EXPECT_EQ(unread.counts().bytes, 300u);
  EXPECT_EQ(unread.counts().peers, 2u);
  unread.give_back("a", 200);
  EXPECT_EQ(unread.counts().peers, 1u);  // a holds nothing
  EXPECT_TRUE(unread.take("c", 1));
}

TEST(Unread, AddsAChangesAnswerPastTheLimits) {
  Unread unread({.total = 100, .per_peer = 100});
  unread.add("a", 150);
  EXPECT_EQ(unread.counts().bytes, 150u);
  EXPECT_FALSE(unread.take("a", 0));  // over: not even a call with nothing to hold
  EXPECT_FALSE(unread.take("b", 0));
  unread.give_back("a", 150);
  EXPECT_TRUE(unread.take("b", 100));
}

TEST(Unread, NoLimitTakesAnything) {
  Unread unread({.total = 0, .per_peer = 0});
  EXPECT_TRUE(unread.take("a", std::size_t{1} << 40));
}

TEST(Unread, ARefusalSaysWhatIsHeldAndWhatToDo) {
  Unread unread({.total = 64 << 20, .per_peer = 32 << 20});
  ASSERT_TRUE(unread.take("10.0.0.7", 3 << 20));
  unread.refused("10.0.0.7");
  EXPECT_EQ(unread.counts().refused, 1u);
  const std::string why = unread.refusal("10.0.0.7");
  EXPECT_NE(why.find("3 MiB of answers and frames for clients at 10.0.0.7"), std::string::npos) << why;
  EXPECT_NE(why.find("--max-unread-bytes-per-peer: 32 MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("read the answers of the calls already made"), std::string::npos) << why;
}

}  // namespace
}  // namespace linkage::server
