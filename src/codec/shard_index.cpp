#include "cuzarr/codec/shard_index.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

ShardIndex ShardIndex::empty(Shape grid) {
  const auto count = static_cast<size_t>(element_count(grid));
  ShardIndex index;
  index.grid = std::move(grid);
  index.offsets.assign(count, kEmpty);
  index.nbytes.assign(count, kEmpty);
  return index;
}

size_t ShardIndex::linear_index(std::span<const int64_t> coords) const {
  if (coords.size() != grid.size()) {
    throw InvalidArgumentError(
        fmt::format("inner chunk coordinates {} have {} dimensions, the shard grid {} has {}",
                    shape_to_string(coords), coords.size(), shape_to_string(grid), grid.size()));
  }
  size_t linear = 0;
  for (size_t d = 0; d < grid.size(); ++d) {
    if (coords[d] < 0 || coords[d] >= grid[d]) {
      throw InvalidArgumentError(
          fmt::format("inner chunk coordinates {} lie outside the shard grid {}",
                      shape_to_string(coords), shape_to_string(grid)));
    }
    linear = linear * static_cast<size_t>(grid[d]) + static_cast<size_t>(coords[d]);
  }
  return linear;
}

Index ShardIndex::chunk_coords(size_t i) const {
  Index coords(grid.size(), 0);
  for (size_t d = grid.size(); d-- > 0;) {
    const auto extent = static_cast<size_t>(grid[d]);
    if (extent == 0) break;
    coords[d] = static_cast<int64_t>(i % extent);
    i /= extent;
  }
  return coords;
}

bool ShardIndex::all_empty() const {
  for (size_t i = 0; i < chunk_count(); ++i) {
    if (!is_empty(i)) return false;
  }
  return true;
}

void ShardIndex::validate(uint64_t data_begin, uint64_t data_end, const std::string& source) const {
  const auto expected = static_cast<size_t>(element_count(grid));
  if (offsets.size() != expected || nbytes.size() != expected) {
    throw CorruptDataError(
        fmt::format("{}: shard index has {} offsets and {} sizes, expected {} for the grid {}",
                    source, offsets.size(), nbytes.size(), expected, shape_to_string(grid)));
  }
  for (size_t i = 0; i < expected; ++i) {
    const uint64_t offset = offsets[i];
    const uint64_t size = nbytes[i];
    if (offset == kEmpty && size == kEmpty) continue;
    // Sharding spec, "Binary shard format": an empty inner chunk sets BOTH offset and nbytes to
    // 2^64-1; an entry with only one of them set is neither empty nor a valid reference.
    if (offset == kEmpty || size == kEmpty) {
      throw CorruptDataError(fmt::format(
          "{}: shard index entry of inner chunk {} is half empty (offset {}, nbytes {})", source,
          shape_to_string(chunk_coords(i)), offset, size));
    }
    if (offset > kEmpty - size) {
      throw CorruptDataError(
          fmt::format("{}: shard index entry of inner chunk {} overflows (offset {} + nbytes {})",
                      source, shape_to_string(chunk_coords(i)), offset, size));
    }
    // The spec allows unused space and any order of the inner chunks (and does not forbid two
    // entries sharing bytes), so only the bounds are checked.
    if (offset < data_begin || offset + size > data_end) {
      throw CorruptDataError(fmt::format(
          "{}: inner chunk {} at bytes [{}, {}) lies outside the shard's data region [{}, {})",
          source, shape_to_string(chunk_coords(i)), offset, offset + size, data_begin, data_end));
    }
  }
}

}  // namespace cuzarr
