// The data directory's pieces without gRPC: the record framing and its
// checksums (every cut and every flipped byte found), the file names, atomic
// replacement, and a world journalled by a WorldStore and rebuilt by replay:
// bit-identical at its last tick and at ticks between, across checkpoints,
// with a torn journal tail and with a corrupt newest checkpoint.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "convert/scene_io.hpp"
#include "durable/crc32.hpp"
#include "durable/files.hpp"
#include "durable/frame.hpp"
#include "durable/layout.hpp"
#include "durable/replay.hpp"
#include "durable/world_store.hpp"

namespace linkage::server::durable {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> payloads() { return {"", "a", std::string(300, 'x'), "last record"}; }

std::string framed(const std::vector<std::string>& records) {
  std::string out(kJournalMagic);
  for (const std::string& r : records) append_frame(r, out);
  return out;
}

// The payloads a reader finds before it stops, and how it stops.
std::pair<std::vector<std::string>, FrameReader::Next> read_all(std::string_view bytes, std::size_t* good = nullptr) {
  FrameReader reader(bytes, kJournalMagic);
  std::vector<std::string> out;
  std::string_view payload;
  FrameReader::Next next;
  while ((next = reader.next(payload)) == FrameReader::Next::record) out.emplace_back(payload);
  if (good) *good = reader.good_bytes();
  return {out, next};
}

TEST(DurableFormat, Crc32IsIeee) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);  // the standard check value
  EXPECT_EQ(crc32(""), 0u);
}

TEST(DurableFormat, RecordsReadBackInOrder) {
  auto [records, next] = read_all(framed(payloads()));
  EXPECT_EQ(records, payloads());
  EXPECT_EQ(next, FrameReader::Next::end);
}

TEST(DurableFormat, EveryCutEndsAtTheLastWholeRecord) {
  const std::string whole = framed(payloads());
  // Where each record ends, from the magic on.
  std::vector<std::size_t> ends{kJournalMagic.size()};
  for (const std::string& p : payloads()) ends.push_back(ends.back() + kFrameHeader + p.size());
  for (std::size_t cut = kJournalMagic.size(); cut < whole.size(); ++cut) {
    std::size_t good = 0;
    auto [records, next] = read_all(std::string_view(whole).substr(0, cut), &good);
    const auto whole_records = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), cut) - ends.begin() - 1);
    ASSERT_EQ(records.size(), whole_records) << "cut at " << cut;
    EXPECT_EQ(good, ends[whole_records]) << "cut at " << cut;
    EXPECT_EQ(next, cut == ends[whole_records] ? FrameReader::Next::end : FrameReader::Next::damaged) << "cut at " << cut;
  }
}

TEST(DurableFormat, EveryFlippedByteIsFound) {
  const std::string whole = framed(payloads());
  for (std::size_t at = kJournalMagic.size(); at < whole.size(); ++at) {
    std::string bad = whole;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    auto [records, next] = read_all(bad);
    EXPECT_EQ(next, FrameReader::Next::damaged) << "byte " << at;
    EXPECT_LT(records.size(), payloads().size()) << "byte " << at;
    for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i], payloads()[i]) << "byte " << at;
  }
}

TEST(DurableFormat, WrongMagicAndHugeLengthsAreDamage) {
  EXPECT_EQ(read_all("lnkjrnl0").second, FrameReader::Next::damaged);
  std::string huge(kJournalMagic);
  huge += std::string("\xff\xff\xff\xff\0\0\0\0", 8);
  FrameReader reader(huge, kJournalMagic);
  std::string_view payload;
  EXPECT_EQ(reader.next(payload), FrameReader::Next::damaged);
  EXPECT_NE(reader.damage().find("length"), std::string::npos) << reader.damage();
}

TEST(DurableFormat, FileNamesSortByGenerationAndParseBack) {
  EXPECT_EQ(checkpoint_name(26), "checkpoint-000000000000001a");
  EXPECT_LT(journal_name(9), journal_name(10));
  EXPECT_EQ(checkpoint_generation(checkpoint_name(123456789)), 123456789u);
  EXPECT_EQ(journal_generation(journal_name(7)), 7u);
  EXPECT_FALSE(checkpoint_generation(journal_name(7)));
  EXPECT_FALSE(checkpoint_generation("checkpoint-000000000000001a.unused"));
  EXPECT_FALSE(journal_generation("journal-00000000000000zz"));
  EXPECT_EQ(world_dir_name(".."), "%..");
  EXPECT_EQ(world_dir_name("arm.v2"), "arm.v2");
}

Dir open_dir(const std::string& path, bool create = false) {
  Result<Dir> dir = Dir::open(path, create);
  EXPECT_TRUE(dir.ok()) << dir.error().message;
  return std::move(dir.value());
}

// A fresh directory under the system's temporary one, removed afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    path = (fs::temp_directory_path() / ("linkage-durable-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(DurableFiles, AtomicWriteReplacesWholeAndLeavesNoTemporary) {
  TempDir tmp;
  Dir dir = open_dir(tmp.path);
  ASSERT_TRUE(dir.write_atomically("f", "first").ok());
  ASSERT_TRUE(dir.write_atomically("f", "second, longer").ok());
  EXPECT_EQ(dir.read("f").value(), "second, longer");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"f"});
  EXPECT_EQ(dir.read("none").error().code, ErrorCode::not_found);
}

v1::Scene chain() {
  std::ifstream in(std::string(LINKAGE_SCENES_DIR) + "/chain.json");
  std::stringstream text;
  text << in.rdbuf();
  return parse_scene_json(text.str()).value();
}

// A world journalled as the tick loop journals one: commands, clock
// changes and ticks, with the hash after every tick kept for comparison.
struct Recorded {
  TempDir tmp;
  std::string path = tmp.path + "/w";
  WorldHost::State s{.world = HostedWorld(World::create().value())};
  std::unique_ptr<WorldStore> store;
  std::map<std::uint64_t, std::uint64_t> hashes;  // by tick

  explicit Recorded(double checkpoint_seconds) {
    Result<std::unique_ptr<WorldStore>> made = WorldStore::create(open_dir(path, true), "w", {checkpoint_seconds, 3}, s);
    EXPECT_TRUE(made.ok()) << made.error().message;
    store = std::move(made.value());
    store->attach(&s);
    s.world.record_to(store.get());
  }
  void tick() {
    s.world.step();
    ++s.tick;
    store->ticked(s);
    hashes[s.tick] = s.world.core().state_hash();
  }
  void command(const std::function<void()>& change) {
    change();
    store->after_command(s);
    ASSERT_EQ(store->commit(), "");
    hashes[s.tick] = s.world.core().state_hash();
  }
  void run() {
    command([&] { s.world.load_scene(load_scene(chain()).value()); });
    for (int i = 0; i < 25; ++i) tick();
    command([&] {
      v1::Impulse kick;
      kick.mutable_body()->set_name("link-20");
      kick.mutable_impulse()->set_x(0.05);
      ASSERT_TRUE(s.world.apply_impulse(kick).ok());
    });
    for (int i = 0; i < 20; ++i) tick();
    command([&] {
      v1::BodyDef extra;
      extra.set_name("extra");
      extra.set_kind(v1::BODY_KIND_PARTICLE);
      extra.set_mass(0.05);
      extra.mutable_position()->set_x(2.2);
      ASSERT_TRUE(s.world.create_body(extra).ok());
      s.paused = true;  // as Pause does
    });
    command([&] { s.paused = false; });
    for (int i = 0; i < 30; ++i) tick();
  }
};

TEST(DurableReplay, RebuildsTheLastTickBitIdentically) {
  Recorded r(0.1);  // a checkpoint every 6 ticks at 60 Hz: several on the way
  r.run();
  Result<Replayed> back = replay(open_dir(r.path), Limits{});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back.value().warnings.empty());
  EXPECT_EQ(back.value().name, "w");
  EXPECT_EQ(back.value().state.tick, r.s.tick);
  EXPECT_EQ(back.value().state.world.core().state_hash(), r.s.world.core().state_hash());
  EXPECT_TRUE(back.value().state.world.names().find_body("extra").has_value());
  EXPECT_FALSE(back.value().state.paused);
  // And they go on together.
  World a = r.s.world.core(), b = back.value().state.world.core();
  for (int i = 0; i < 10; ++i) {
    a.step();
    b.step();
  }
  EXPECT_EQ(a.state_hash(), b.state_hash());
}

TEST(DurableReplay, RebuildsAnyTickTheFilesHold) {
  Recorded r(1000.0);  // no checkpoint but the first: everything from the journal
  r.run();
  for (const std::uint64_t tick : {0u, 1u, 25u, 30u, 45u, 60u}) {
    Result<Replayed> back = replay(open_dir(r.path), Limits{}, tick);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value().state.tick, tick);
    EXPECT_EQ(back.value().state.world.core().state_hash(), r.hashes.at(tick)) << "tick " << tick;
  }
  Result<Replayed> past = replay(open_dir(r.path), Limits{}, r.s.tick + 1);
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message.find("ends at tick"), std::string::npos) << past.error().message;
}

TEST(DurableReplay, ATornJournalTailRestoresTheLastWholeRecord) {
  Recorded r(1000.0);
  r.run();
  const std::string journal = r.path + "/" + journal_name(0);
  const auto size = fs::file_size(journal);
  fs::resize_file(journal, size - 5);  // the last tick's marker torn
  Result<Replayed> back = replay(open_dir(r.path), Limits{});
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back.value().warnings.size(), 1u);
  EXPECT_EQ(back.value().state.tick, r.s.tick - 1);
  EXPECT_EQ(back.value().state.world.core().state_hash(), r.hashes.at(r.s.tick - 1));
  EXPECT_LT(back.value().journal_bytes, size - 5);
}

TEST(DurableReplay, ACorruptCheckpointFallsBackToTheOneBefore) {
  Recorded r(0.1);
  r.run();
  Dir dir = open_dir(r.path);
  std::string newest;
  for (const std::string& f : dir.list())
    if (checkpoint_generation(f)) newest = f;
  std::string bytes = dir.read(newest).value();
  bytes[bytes.size() / 2] ^= 0x01;
  ASSERT_TRUE(dir.write_atomically(newest, bytes).ok());
  Result<Replayed> back = replay(dir, Limits{});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back.value().unused, std::vector<std::string>{newest});
  EXPECT_EQ(back.value().state.tick, r.s.tick);
  EXPECT_EQ(back.value().state.world.core().state_hash(), r.s.world.core().state_hash());
}

}  // namespace
}  // namespace linkage::server::durable
