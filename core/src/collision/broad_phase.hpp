#pragma once
// The broad phase: which pairs of boxes overlap, by sort and sweep along x.
// O(n log n + k) for n boxes and k pairs when boxes are spread along x (a
// ball pit, a pyramid); its order and its answer are deterministic.

#include <utility>
#include <vector>

#include "hull.hpp"

namespace linkage::collision {

// Every pair (i, j), i < j, of overlapping boxes, sorted.
std::vector<std::pair<int, int>> overlapping_pairs(const std::vector<Aabb>& boxes);

}  // namespace linkage::collision
