#include "change_log.hpp"

#include <algorithm>

namespace linkage::server {
namespace {

template <class IdT>
bool holds(const std::vector<IdT>& list, IdT id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

template <class IdT>
bool take(std::vector<IdT>& list, IdT id) {
  const auto it = std::find(list.begin(), list.end(), id);
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

// Folds one entry into the span's net change of its kind.
template <class IdT, class Op>
void apply(std::vector<IdT>& added, std::vector<IdT>& updated, std::vector<IdT>& removed, IdT id, Op op) {
  if (op == Op::added) {
    added.push_back(id);
  } else if (op == Op::updated) {
    // An object added in this span is sent as it is now anyway.
    if (!holds(added, id) && !holds(updated, id)) updated.push_back(id);
  } else {
    take(updated, id);
    // Born and gone within the span: the subscriber never hears of it.
    if (!take(added, id)) removed.push_back(id);
  }
}

}  // namespace

void ChangeLog::record(Kind kind, Op op, std::uint32_t index, std::uint32_t generation) {
  entries_.push_back({++version_, kind, op, index, generation});
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
      case Kind::body:
        apply(d.added_bodies, d.updated_bodies, d.removed_bodies, BodyId{it->index, it->generation}, it->op);
        break;
      case Kind::constraint:
        apply(d.added_constraints, d.updated_constraints, d.removed_constraints,
              ConstraintId{it->index, it->generation}, it->op);
        break;
      case Kind::spring:
        apply(d.added_springs, d.updated_springs, d.removed_springs, ForceId{it->index, it->generation}, it->op);
        break;
      case Kind::settings: d.settings = true; break;
    }
  }
  return d;
}

}  // namespace linkage::server
