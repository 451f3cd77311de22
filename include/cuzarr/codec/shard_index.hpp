// The shard index of the sharding_indexed codec (Zarr v3 sharding spec, "Binary shard format"):
// for each inner chunk, (offset, nbytes) as little-endian uint64; both 2^64-1 for an empty chunk.
// Pure functions, tested alone.
#pragma once

#include <cstdint>
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
  /// Linear (C order) index of inner chunk `coords`.
  size_t linear_index(std::span<const int64_t> coords) const;
  bool is_empty(size_t i) const { return offsets[i] == kEmpty && nbytes[i] == kEmpty; }
  bool all_empty() const;

  /// Throws CorruptDataError (naming `source`) unless every non-empty entry lies inside a shard
  /// of `shard_size` bytes (excluding the index itself, [data_begin, data_end)) and no offset +
  /// nbytes overflows.
  void validate(uint64_t data_begin, uint64_t data_end, const std::string& source) const;
};

}  // namespace cuzarr
