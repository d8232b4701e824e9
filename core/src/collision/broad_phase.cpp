#include "broad_phase.hpp"

#include <algorithm>
#include <numeric>

namespace linkage::collision {

std::vector<std::pair<int, int>> overlapping_pairs(const std::vector<Aabb>& boxes) {
  std::vector<int> order(boxes.size());
  std::iota(order.begin(), order.end(), 0);
  // By left edge; ties by index, so the sweep is the same on every run.
  std::sort(order.begin(), order.end(), [&](int i, int j) {
    const double a = boxes[static_cast<std::size_t>(i)].lo.x(), b = boxes[static_cast<std::size_t>(j)].lo.x();
    return a < b || (a == b && i < j);
  });
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Aabb& a = boxes[static_cast<std::size_t>(order[k])];
    for (std::size_t l = k + 1; l < order.size(); ++l) {
      const Aabb& b = boxes[static_cast<std::size_t>(order[l])];
      if (b.lo.x() > a.hi.x()) break;  // every later box starts further right
      if (a.overlaps(b)) pairs.emplace_back(std::min(order[k], order[l]), std::max(order[k], order[l]));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace linkage::collision
