#include "change_log.hpp"

#include <algorithm>
#include <unordered_map>

namespace linkage::server {
namespace {

// One object's net change over a span, with where it goes in its list:
// the order of its add, first update or removal. Ids are never reused, so
// an object's entries are an add (if born in the span), updates, and a
// removal (if gone) in that order.
struct Net {
  bool born = false, updated = false, gone = false;
  std::uint64_t added_at = 0, updated_at = 0, removed_at = 0;
};

// The span's net change of one kind, by id; each list in order of its
// entries (a map's lookups, so that a span of n entries costs O(n log n),
// not the O(n²) of searching the lists).
template <class IdT>
class Fold {
 public:
  template <class Op>
  void see(IdT id, Op op, std::uint64_t at) {
    Net& n = net_[key(id)];
    if (op == Op::added) {
      n.born = true;
      n.added_at = at;
    } else if (op == Op::updated) {
      if (!n.updated) n.updated_at = at;
      n.updated = true;
    } else {
      n.gone = true;
      n.removed_at = at;
    }
  }
  // An object added in the span is sent as it is now (added, never
  // updated); one born and gone within it nets to nothing.
  void write(std::vector<IdT>& added, std::vector<IdT>& updated, std::vector<IdT>& removed) const {
    std::vector<std::pair<std::uint64_t, IdT>> a, u, r;
    for (const auto& [k, n] : net_) {
      const IdT id{static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k)};
      if (n.born && !n.gone) a.push_back({n.added_at, id});
      if (!n.born && n.updated && !n.gone) u.push_back({n.updated_at, id});
      if (!n.born && n.gone) r.push_back({n.removed_at, id});
    }
    sorted_into(a, added);
    sorted_into(u, updated);
    sorted_into(r, removed);
  }

 private:
  static std::uint64_t key(IdT id) { return std::uint64_t{id.index} << 32 | id.generation; }
  static void sorted_into(std::vector<std::pair<std::uint64_t, IdT>>& v, std::vector<IdT>& out) {
    std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    out.reserve(v.size());
    for (const auto& [at, id] : v) out.push_back(id);
  }
  std::unordered_map<std::uint64_t, Net> net_;
};

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
  Fold<BodyId> bodies;
  Fold<ConstraintId> constraints;
  Fold<ForceId> springs;
  for (auto it = first; it != entries_.end(); ++it) {
    switch (it->kind) {
      case Kind::body: bodies.see(BodyId{it->index, it->generation}, it->op, it->version); break;
      case Kind::constraint: constraints.see(ConstraintId{it->index, it->generation}, it->op, it->version); break;
      case Kind::spring: springs.see(ForceId{it->index, it->generation}, it->op, it->version); break;
      case Kind::settings: d.settings = true; break;
    }
  }
  bodies.write(d.added_bodies, d.updated_bodies, d.removed_bodies);
  constraints.write(d.added_constraints, d.updated_constraints, d.removed_constraints);
  springs.write(d.added_springs, d.updated_springs, d.removed_springs);
  return d;
}

}  // namespace linkage::server
