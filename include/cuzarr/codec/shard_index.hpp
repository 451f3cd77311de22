// The shard index of the sharding_indexed codec (Zarr v3 sharding spec, "Binary shard format"):
// for each inner chunk, (offset, nbytes) as little-endian uint64; both 2^64-1 for an empty chunk.
// Pure functions, tested alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cuzarr/core/shape.hpp"

namespace cuzarr {

struct ShardIndex {
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  Shape grid;  ///< inner chunks per dimension (chunks_per_shard)
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> nbytes;

  /// An index of `grid` with every chunk empty.
  static ShardIndex empty(Shape grid);
  size_t chunk_count() const { return offsets.size(); }
  /// Linear (C order) index of inner chunk `coords`. Throws InvalidArgumentError when `coords`
  /// has the wrong rank or lies outside the grid.
  size_t linear_index(std::span<const int64_t> coords) const;
  /// Coordinates of the inner chunk with linear (C order) index `i` (inverse of linear_index).
  Index chunk_coords(size_t i) const;
  bool is_empty(size_t i) const { return offsets[i] == kEmpty && nbytes[i] == kEmpty; }
  bool all_empty() const;

  /// Throws CorruptDataError (naming `source` and the inner chunk) unless every non-empty entry
  /// lies inside the data region [data_begin, data_end) of the shard (the shard without its
  /// index), no offset + nbytes overflows, and no entry has only one of offset/nbytes == kEmpty.
  /// Entries may overlap (the sharding spec fixes no layout).
  void validate(uint64_t data_begin, uint64_t data_end, const std::string& source) const;
};

}  // namespace cuzarr
