#pragma once
// Generational slots: hands out ids, maps a live id to its dense index.
// Ids are never reused: a freed slot comes back with the next generation, and
// a slot whose generation would wrap is retired for good.

#include <cassert>
#include <cstdint>
#include <limits>
#include <vector>

#include "linkage/ids.hpp"

namespace linkage {

template <class IdT>
class SlotMap {
 public:
  IdT insert(int dense) {
    std::uint32_t index;
    if (free_.empty()) {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back({});
    } else {
      index = free_.back();
      free_.pop_back();
    }
    Slot& s = slots_[index];
    ++s.generation;
    s.dense = dense;
    return IdT{index, s.generation};
  }

  // The dense index of a live id, or −1.
  int find(IdT id) const {
    if (id.is_null() || id.index >= slots_.size()) return -1;
    const Slot& s = slots_[id.index];
    return s.generation == id.generation ? s.dense : -1;
  }

  void set_dense(IdT id, int dense) {
    assert(find(id) >= 0 && "only a live id moves");
    slots_[id.index].dense = dense;
  }

  void erase(IdT id) {
    assert(find(id) >= 0 && "only a live id is erased");
    Slot& s = slots_[id.index];
    s.dense = -1;
    if (s.generation == std::numeric_limits<std::uint32_t>::max()) return;
    ++s.generation;  // the erased id is orphaned at once
    free_.push_back(id.index);
  }

  // Reads or writes the slots and the free list (core/src/snapshot.cpp).
  template <class Archive>
  void archive(Archive& a) {
    a(slots_, free_);
  }

  // Whether the slots describe `live` records with dense indices 0..live−1,
  // each named by one slot, and a free list of distinct empty slots: what
  // a decoded map must show before anything trusts it.
  bool consistent(std::size_t live) const {
    std::vector<char> named(live, 0), freed(slots_.size(), 0);
    for (const Slot& s : slots_) {
      if (s.dense < -1 || (s.dense >= 0 && static_cast<std::size_t>(s.dense) >= live)) return false;
      if (s.dense >= 0 && named[static_cast<std::size_t>(s.dense)]++) return false;
    }
    for (std::uint32_t index : free_) {
      if (index >= slots_.size() || slots_[index].dense != -1 || freed[index]++) return false;
    }
    for (char n : named) {
      if (!n) return false;
    }
    return true;
  }

  struct Slot {
    std::uint32_t generation = 0;
    int dense = -1;

    template <class Archive>
    void archive(Archive& a) {
      a(generation, dense);
    }
  };

 private:
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace linkage
