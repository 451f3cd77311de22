// DirtyRanges: a set of disjoint, sorted byte ranges that marks what changed in a buffer. Ranges
// that overlap, touch, or lie closer than a threshold are merged, so that one copy of a few
// unchanged bytes replaces two copies (MirroredArray uploads one range per copy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <vector>

namespace cuzarr {

/// The half-open byte range [begin, end).
struct ByteInterval {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const noexcept { return end - begin; }
  friend bool operator==(const ByteInterval&, const ByteInterval&) = default;
  /// Prints "[begin, end)".
  friend std::ostream& operator<<(std::ostream& os, const ByteInterval& r) {
    return os << '[' << r.begin << ", " << r.end << ')';
  }
};

class DirtyRanges {
 public:
  /// Ranges whose gap is smaller than `merge_threshold` bytes are merged into one (ranges that
  /// overlap or touch are always merged, whatever the threshold).
  explicit DirtyRanges(uint64_t merge_threshold = 0) : threshold_(merge_threshold) {}

  /// Marks [begin, end) dirty; an empty range (begin >= end) is ignored.
  void add(uint64_t begin, uint64_t end);
  void add(ByteInterval range) { add(range.begin, range.end); }
  /// Marks every range of `other` dirty.
  void add(const DirtyRanges& other);
  /// Marks [begin, end) clean again: ranges are cut, so a range may split in two (the pieces are
  /// not merged back even when their gap is below the threshold).
  void remove(uint64_t begin, uint64_t end);
  /// Forgets every range.
  void clear() noexcept { ranges_.clear(); }

  /// The ranges, sorted and disjoint.
  std::vector<ByteInterval> ranges() const;
  /// Number of ranges.
  size_t count() const noexcept { return ranges_.size(); }
  bool empty() const noexcept { return ranges_.empty(); }
  /// Sum of the range sizes.
  uint64_t total_bytes() const noexcept;
  /// True when some byte of [begin, end) is dirty.
  bool intersects(uint64_t begin, uint64_t end) const;

  uint64_t merge_threshold() const noexcept { return threshold_; }
  /// Changes the threshold and merges the ranges that are now close enough.
  void set_merge_threshold(uint64_t merge_threshold);

 private:
  // Whether a range ending at `end` merges with one beginning at `begin` (begin >= end).
  bool close(uint64_t end, uint64_t begin) const noexcept { return begin - end < threshold_; }

  uint64_t threshold_;
  std::map<uint64_t, uint64_t> ranges_;  // begin -> end
};

}  // namespace cuzarr
