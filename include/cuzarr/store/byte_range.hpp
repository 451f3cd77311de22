// Byte ranges of a stored value: the whole value, [offset, offset+length), from an offset to the
// end, or the last N bytes (zarr-python's RangeByteRequest / OffsetByteRequest /
// SuffixByteRequest).
#pragma once

#include <cstdint>
#include <string>

namespace cuzarr {

struct ByteRange {
  enum class Kind { full, range, offset, suffix };
  Kind kind = Kind::full;
  uint64_t offset = 0;  ///< range, offset
  uint64_t length = 0;  ///< range: bytes to read; suffix: bytes at the end

  static ByteRange full() { return {}; }
  static ByteRange range(uint64_t offset, uint64_t length) { return {Kind::range, offset, length}; }
  static ByteRange from_offset(uint64_t offset) { return {Kind::offset, offset, 0}; }
  static ByteRange suffix(uint64_t length) { return {Kind::suffix, 0, length}; }

  /// Resolves to [begin, end) within a value of `value_size` bytes, clamping ranges that run past
  /// the end (as zarr-python stores do).
  void resolve(uint64_t value_size, uint64_t& begin, uint64_t& end) const;
  std::string to_string() const;
};

}  // namespace cuzarr
