#pragma once
// The broad phase: which pairs of boxes overlap, by sort and sweep along the
// axis of their widest spread. O(n log n + k) for n boxes and k pairs when
// boxes are spread along that axis (a ball pit, a pyramid, a column); its
// order and its answer are deterministic.

#include <cstddef>
#include <utility>
#include <vector>

#include "hull.hpp"

namespace linkage::collision {

// Every pair (i, j), i < j, of overlapping boxes, sorted; at most `limit`
// of them (`capped` says whether there were more): the first the sweep
// meets. The sweep runs along the axis the boxes spread over most, so that
// a column of bodies is as cheap as a row.
std::vector<std::pair<int, int>> overlapping_pairs(const std::vector<Aabb>& boxes, std::size_t limit, bool& capped);

}  // namespace linkage::collision
