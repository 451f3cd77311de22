// Planning: which chunks a selection touches, and for each chunk which of its elements are
// selected and where they go in the output.
#pragma once

#include <vector>

#include "cuzarr/core/selection.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/metadata/rectilinear_chunk_grid.hpp"

namespace cuzarr {

/// One chunk touched by a selection.
struct PlannedChunk {
  Index coords;  ///< position in the chunk grid
  /// Per dimension: selected positions inside the chunk (start + k*step, k < count).
  std::vector<DimensionSelection> in_chunk;
  /// Per dimension: index in the output (full result shape, dropped dimensions kept) of the
  /// first selected position; successive positions go to successive output indices.
  Index out_start;
  /// The selection covers every element of the chunk that lies inside the array (writes need no
  /// read-modify-write).
  bool covers_valid_region = false;
  /// The selection is exactly the whole chunk in order (step 1, nothing outside the array).
  bool covers_whole_chunk = false;
};

/// Plans the chunks of a regular grid with `chunk_shape` over `array_shape` that `selection`
/// touches, in C order of the grid.
std::vector<PlannedChunk> plan_chunks(const NormalizedSelection& selection,
                                      std::span<const int64_t> array_shape,
                                      std::span<const int64_t> chunk_shape);
/// The same over a rectilinear chunk grid (chunks of varying edge lengths).
std::vector<PlannedChunk> plan_chunks(const NormalizedSelection& selection,
                                      std::span<const int64_t> array_shape,
                                      const RectilinearChunkGrid& grid);

}  // namespace cuzarr
