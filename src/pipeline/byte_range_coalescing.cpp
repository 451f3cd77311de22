#include "cuzarr/pipeline/byte_range_coalescing.hpp"

#include <algorithm>
#include <numeric>

namespace cuzarr {

std::vector<CoalescedRead> coalesce_byte_ranges(
    const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t max_gap) {
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return ranges[a].first < ranges[b].first; });
  std::vector<CoalescedRead> reads;
  for (size_t i : order) {
    const auto [offset, length] = ranges[i];
    if (!reads.empty()) {
      auto& last = reads.back();
      const uint64_t last_end = last.offset + last.length;
      if (offset <= last_end + max_gap) {
        last.length = std::max(last_end, offset + length) - last.offset;
        last.members.push_back(i);
        continue;
      }
    }
    reads.push_back({offset, length, {i}});
  }
  return reads;
}

}  // namespace cuzarr
