// Finding the chunks of an array that are present in a store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

struct StoredChunk {
  std::string key;  ///< full store key
  Index coords;     ///< grid position
};

/// Parses a chunk key (relative to the array's prefix) back into grid coordinates; nullopt when
/// `key` is not a chunk key of this encoding and rank (zarr.json, attributes, stray files).
std::optional<Index> parse_chunk_key(const ChunkKeyEncoding& encoding, std::string_view key,
                                     size_t ndim);

/// Every stored chunk of the array at `prefix` whose coordinates lie inside its chunk grid, in key
/// order.
std::vector<StoredChunk> list_stored_chunks(const Store& store, const std::string& prefix,
                                            const ArrayMetadata& metadata);

}  // namespace cuzarr
