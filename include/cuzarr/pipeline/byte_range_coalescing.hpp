// Coalescing of byte ranges: nearby reads of one value are merged into fewer, larger reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cuzarr {

struct CoalescedRead {
  uint64_t offset = 0;
  uint64_t length = 0;
  /// Indices (into the input) of the ranges this read serves.
  std::vector<size_t> members;
};

/// Merges ranges [offset, offset + length) whose gap to the previous (in offset order) is at most
/// `max_gap` bytes; every input range is a member of exactly one read.
std::vector<CoalescedRead> coalesce_byte_ranges(
    const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t max_gap);

}  // namespace cuzarr
