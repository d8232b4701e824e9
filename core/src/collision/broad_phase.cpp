#include "broad_phase.hpp"

#include <algorithm>
#include <numeric>

namespace linkage::collision {

std::vector<std::pair<int, int>> overlapping_pairs(const std::vector<Aabb>& boxes, std::size_t limit, bool& capped) {
  capped = false;
  // The axis whose boxes' centres spread the most.
  int axis = 0;
  if (!boxes.empty()) {
    Vec2 lo = boxes.front().lo + boxes.front().hi, hi = lo;
    for (const Aabb& b : boxes) {
      const Vec2 c = b.lo + b.hi;
      lo = lo.cwiseMin(c);
      hi = hi.cwiseMax(c);
    }
    axis = hi.y() - lo.y() > hi.x() - lo.x() ? 1 : 0;
  }
  std::vector<int> order(boxes.size());
  std::iota(order.begin(), order.end(), 0);
  // By the near edge; ties by index, so the sweep is the same on every run.
  std::sort(order.begin(), order.end(), [&](int i, int j) {
    const double a = boxes[static_cast<std::size_t>(i)].lo[axis], b = boxes[static_cast<std::size_t>(j)].lo[axis];
    return a < b || (a == b && i < j);
  });
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t k = 0; k < order.size() && !capped; ++k) {
    const Aabb& a = boxes[static_cast<std::size_t>(order[k])];
    for (std::size_t l = k + 1; l < order.size(); ++l) {
      const Aabb& b = boxes[static_cast<std::size_t>(order[l])];
      if (b.lo[axis] > a.hi[axis]) break;  // every later box starts further along
      if (!a.overlaps(b)) continue;
      if (pairs.size() == limit) {
        capped = true;
        break;
      }
      pairs.emplace_back(std::min(order[k], order[l]), std::max(order[k], order[l]));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace linkage::collision
