#include "contact_log.hpp"

#include <algorithm>

namespace linkage::server {

void ContactLog::observe(std::uint64_t tick, const std::vector<ContactInfo>& contacts) {
  // A manifold lists a pair once per point: sort, then keep one of each.
  scratch_.clear();
  scratch_.reserve(contacts.size());
  for (const ContactInfo& c : contacts)
    scratch_.push_back({c.a < c.b ? ContactPair{c.a, c.b} : ContactPair{c.b, c.a}, tick});
  auto by_pair = [](const Touching& x, const Touching& y) { return x.pair < y.pair; };
  std::sort(scratch_.begin(), scratch_.end(), by_pair);
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end(),
                             [](const Touching& x, const Touching& y) { return x.pair == y.pair; }),
                 scratch_.end());
  // Both lists sorted: one merge finds the ends, the begins, and carries a
  // pair that stays over with the tick it began.
  std::size_t i = 0, j = 0;
  while (i < touching_.size() || j < scratch_.size()) {
    if (j == scratch_.size() || (i < touching_.size() && touching_[i].pair < scratch_[j].pair)) {
      entries_.push_back({++version_, {tick, false, touching_[i].pair}});
      ++i;
    } else if (i == touching_.size() || scratch_[j].pair < touching_[i].pair) {
      entries_.push_back({++version_, {tick, true, scratch_[j].pair}});
      ++j;
    } else {
      scratch_[j].since = touching_[i].since;
      ++i;
      ++j;
    }
  }
  touching_.swap(scratch_);
  while (entries_.size() > capacity_) {
    horizon_ = entries_.front().version;
    entries_.pop_front();
  }
}

void ContactLog::clear() {
  if (touching_.empty() && entries_.empty() && horizon_ == version_) return;  // nothing to forget
  touching_.clear();
  entries_.clear();
  scratch_ = {};
  // Whoever saw an older version saw pairs this log no longer knows.
  horizon_ = ++version_;
}

ContactDelta ContactLog::since(std::uint64_t version) const {
  ContactDelta delta;
  if (version < horizon_) {
    delta.full = true;
    delta.events.reserve(touching_.size());
    for (const Touching& t : touching_) delta.events.push_back({t.since, true, t.pair});
    return delta;
  }
  // Entries are in version order: skip to the first one after `version`.
  auto first = std::upper_bound(entries_.begin(), entries_.end(), version,
                                [](std::uint64_t v, const Entry& e) { return v < e.version; });
  for (auto it = first; it != entries_.end(); ++it) delta.events.push_back(it->event);
  return delta;
}

}  // namespace linkage::server
