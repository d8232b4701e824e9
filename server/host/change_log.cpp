#include "change_log.hpp"

#include <algorithm>

namespace linkage::server {
namespace {

// Adds or cancels one id in the span's net change.
template <class IdT>
void apply(std::vector<IdT>& added, std::vector<IdT>& removed, IdT id, bool add) {
  if (add) {
    added.push_back(id);
    return;
  }
  const auto it = std::find(added.begin(), added.end(), id);
  if (it != added.end()) {
    added.erase(it);  // born and gone within the span: the subscriber never hears of it
  } else {
    removed.push_back(id);
  }
}

}  // namespace

void ChangeLog::record(Kind kind, bool added, std::uint32_t index, std::uint32_t generation) {
  entries_.push_back({++version_, kind, added, index, generation});
  while (entries_.size() > capacity_) {
    horizon_ = entries_.front().version;
    entries_.pop_front();
  }
}

void ChangeLog::replaced() {
  entries_.clear();
  horizon_ = ++version_;
}

TopologyDelta ChangeLog::since(std::uint64_t version) const {
  TopologyDelta d;
  if (version < horizon_) {
    d.full = true;
    return d;
  }
  const auto first = std::upper_bound(entries_.begin(), entries_.end(), version,
                                      [](std::uint64_t v, const Entry& e) { return v < e.version; });
  for (auto it = first; it != entries_.end(); ++it) {
    switch (it->kind) {
      case Kind::body: apply(d.added_bodies, d.removed_bodies, BodyId{it->index, it->generation}, it->added); break;
      case Kind::constraint:
        apply(d.added_constraints, d.removed_constraints, ConstraintId{it->index, it->generation}, it->added);
        break;
      case Kind::spring: apply(d.added_springs, d.removed_springs, ForceId{it->index, it->generation}, it->added); break;
      case Kind::settings: d.settings = true; break;
    }
  }
  return d;
}

}  // namespace linkage::server
