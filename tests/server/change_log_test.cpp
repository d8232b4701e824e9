// The change log's net change since a version: what a subscriber that
// skipped frames is told. Against the rules written out one entry at a time
// on random histories, and the cases those rules name.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "host/change_log.hpp"

using namespace linkage;
using namespace linkage::server;

namespace {

// The net change of bodies by the rules, entry by entry: an add is listed;
// an update of an object neither added nor updated in the span is listed;
// a removal unlists the object's update, and its add (born and gone: nothing)
// or else lists the removal.
struct Expected {
  std::vector<BodyId> added, updated, removed;
  void add(BodyId id) { added.push_back(id); }
  void update(BodyId id) {
    if (!has(added, id) && !has(updated, id)) updated.push_back(id);
  }
  void remove(BodyId id) {
    take(updated, id);
    if (!take(added, id)) removed.push_back(id);
  }
  static bool has(const std::vector<BodyId>& v, BodyId id) { return std::find(v.begin(), v.end(), id) != v.end(); }
  static bool take(std::vector<BodyId>& v, BodyId id) {
    const auto it = std::find(v.begin(), v.end(), id);
    if (it == v.end()) return false;
    v.erase(it);
    return true;
  }
};

}  // namespace

TEST(ChangeLog, NetsAnObjectsChangesOverTheSpan) {
  ChangeLog log;
  const BodyId a{1, 1}, b{2, 1}, c{3, 1}, d{4, 1};
  log.added(a);
  const std::uint64_t start = log.version();
  log.updated(a);   // before the span: updated
  log.added(b);     // added and updated: added
  log.updated(b);
  log.added(c);     // born and gone: nothing
  log.removed(c);
  log.added(d);
  const std::uint64_t later = log.version();
  log.removed(d);   // added before `later`: removed since it
  log.updated(a);
  log.settings_changed();
  const TopologyDelta since_start = log.since(start);
  EXPECT_FALSE(since_start.full);
  EXPECT_EQ(since_start.updated_bodies, std::vector<BodyId>{a});
  EXPECT_EQ(since_start.added_bodies, std::vector<BodyId>{b});
  EXPECT_TRUE(since_start.removed_bodies.empty());
  EXPECT_TRUE(since_start.settings);
  const TopologyDelta since_later = log.since(later);
  EXPECT_EQ(since_later.removed_bodies, std::vector<BodyId>{d});
  EXPECT_EQ(since_later.updated_bodies, std::vector<BodyId>{a});
  EXPECT_TRUE(since_later.added_bodies.empty());
  EXPECT_TRUE(log.since(log.version()).updated_bodies.empty());
}

TEST(ChangeLog, AVersionOlderThanItKeepsGetsTheWholeTopology) {
  ChangeLog log(4);
  const std::uint64_t start = log.version();
  for (std::uint32_t i = 1; i <= 5; ++i) log.added(BodyId{i, 1});
  EXPECT_TRUE(log.since(start).full);
  EXPECT_FALSE(log.since(log.version() - 4).full);
  EXPECT_EQ(log.since(log.version() - 4).added_bodies.size(), 4u);
  const std::uint64_t before = log.version();
  log.replaced();
  EXPECT_TRUE(log.since(before).full);
}

// Random histories of adds, updates and removals (each id added once,
// removed at most once, never used again), asked from every version: the
// lists in the rules' order, for each kind alike.
TEST(ChangeLog, AgreesWithTheRulesOnRandomHistories) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    ChangeLog log(1024);
    const std::uint64_t first = log.version();
    struct Step {
      int op;
      BodyId id;
    };
    std::vector<Step> history;
    std::vector<BodyId> alive;
    std::uint32_t next = 1;
    for (int i = 0; i < 400; ++i) {
      const int pick = alive.empty() ? 0 : std::uniform_int_distribution<int>(0, 2)(rng);
      if (pick == 0) {
        const BodyId id{next++, 1 + next % 3};
        alive.push_back(id);
        history.push_back({0, id});
      } else {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(0, alive.size() - 1)(rng);
        history.push_back({pick, alive[k]});
        if (pick == 2) alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    for (const Step& s : history) {
      if (s.op == 0) log.added(s.id);
      if (s.op == 1) log.updated(s.id);
      if (s.op == 2) log.removed(s.id);
      // The same history for constraints and springs: the same lists.
      const ConstraintId cid{s.id.index, s.id.generation};
      if (s.op == 0) log.added(cid);
      if (s.op == 1) log.updated(cid);
      if (s.op == 2) log.removed(cid);
    }
    for (std::size_t from = 0; from <= history.size(); from += 37) {
      Expected e;
      for (std::size_t i = from; i < history.size(); ++i) {
        const Step& s = history[i];
        if (s.op == 0) e.add(s.id);
        if (s.op == 1) e.update(s.id);
        if (s.op == 2) e.remove(s.id);
      }
      const TopologyDelta d = log.since(first + 2 * from);  // two entries a step
      ASSERT_FALSE(d.full);
      EXPECT_EQ(d.added_bodies, e.added) << "trial " << trial << " from " << from;
      EXPECT_EQ(d.updated_bodies, e.updated) << "trial " << trial << " from " << from;
      EXPECT_EQ(d.removed_bodies, e.removed) << "trial " << trial << " from " << from;
      ASSERT_EQ(d.added_constraints.size(), e.added.size());
      ASSERT_EQ(d.updated_constraints.size(), e.updated.size());
      ASSERT_EQ(d.removed_constraints.size(), e.removed.size());
    }
  }
}
