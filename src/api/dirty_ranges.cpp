#include "cuzarr/api/dirty_ranges.hpp"

#include <algorithm>
#include <iterator>

namespace cuzarr {

void DirtyRanges::add(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  // The first range that could merge: the last one beginning at or before `begin`, when it ends
  // close enough, else the first one beginning after `begin`.
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin()) {
    auto previous = std::prev(it);
    if (previous->second >= begin || close(previous->second, begin)) it = previous;
  }
  // Swallow every range that overlaps [begin, end) or lies within the threshold after it.
  while (it != ranges_.end() && (it->first <= end || close(end, it->first))) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(begin, end);
}

void DirtyRanges::add(const DirtyRanges& other) {
  for (const auto& [begin, end] : other.ranges_) add(begin, end);
}

void DirtyRanges::remove(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second > begin) it = std::prev(it);
  while (it != ranges_.end() && it->first < end) {
    const uint64_t range_begin = it->first;
    const uint64_t range_end = it->second;
    it = ranges_.erase(it);
    if (range_begin < begin) ranges_.emplace(range_begin, begin);
    if (range_end > end) {
      ranges_.emplace(end, range_end);
      break;
    }
  }
}

std::vector<ByteInterval> DirtyRanges::ranges() const {
  std::vector<ByteInterval> result;
  result.reserve(ranges_.size());
  for (const auto& [begin, end] : ranges_) result.push_back({begin, end});
  return result;
}

uint64_t DirtyRanges::total_bytes() const noexcept {
  uint64_t total = 0;
  for (const auto& [begin, end] : ranges_) total += end - begin;
  return total;
}

bool DirtyRanges::intersects(uint64_t begin, uint64_t end) const {
  if (begin >= end) return false;
  auto it = ranges_.upper_bound(begin);
  if (it != ranges_.begin() && std::prev(it)->second > begin) return true;
  return it != ranges_.end() && it->first < end;
}

void DirtyRanges::set_merge_threshold(uint64_t merge_threshold) {
  threshold_ = merge_threshold;
  auto old = std::move(ranges_);
  ranges_.clear();
  for (const auto& [begin, end] : old) add(begin, end);
}

}  // namespace cuzarr
