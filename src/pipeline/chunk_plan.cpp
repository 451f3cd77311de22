#include "cuzarr/pipeline/chunk_plan.hpp"

#include <algorithm>

namespace cuzarr {
namespace {

struct DimensionPiece {
  int64_t chunk;
  DimensionSelection in_chunk;
  int64_t out_start;
  bool covers_valid;
  bool covers_whole;
};

// The chunk boundaries along one dimension: a regular length, or the origins of a rectilinear
// grid's chunks (prefix sums of its edge lengths).
struct DimensionChunks {
  int64_t regular = 0;
  const RectilinearChunkGrid* grid = nullptr;
  size_t dim = 0;

  int64_t index_of(int64_t position) const {
    return grid ? grid->chunk_index(dim, position) : position / regular;
  }
  int64_t origin(int64_t index) const {
    return grid ? grid->chunk_origin(dim, index) : index * regular;
  }
  int64_t length(int64_t index) const {
    return grid ? grid->edges(dim)[static_cast<size_t>(index)] : regular;
  }
};

// Splits the positions start + k*step (k < count) of one dimension into runs that fall in the
// same chunk. Consecutive k stay in one chunk until the position crosses a chunk boundary, so
// each run is found in O(1) (O(log chunks) on a rectilinear grid) and the work is proportional
// to the chunks touched.
std::vector<DimensionPiece> split_dimension(const DimensionSelection& sel, int64_t extent,
                                            const DimensionChunks& chunks) {
  std::vector<DimensionPiece> pieces;
  int64_t k = 0;
  while (k < sel.count) {
    const int64_t pos = sel.start + k * sel.step;
    const int64_t c = chunks.index_of(pos);
    const int64_t chunk_begin = chunks.origin(c);
    const int64_t chunk = chunks.length(c);
    int64_t k_end;
    if (sel.step > 0) {
      // last k with start + k*step < chunk_begin + chunk
      k_end = (chunk_begin + chunk - sel.start + sel.step - 1) / sel.step;
    } else {
      // last k with start + k*step >= chunk_begin
      k_end = (sel.start - chunk_begin) / (-sel.step) + 1;
    }
    k_end = std::min(k_end, sel.count);
    const int64_t n = k_end - k;
    const int64_t valid = std::min(chunk, extent - chunk_begin);
    DimensionPiece piece{c, {pos - chunk_begin, sel.step, n, false}, k, false, false};
    const bool unit_step = sel.step == 1 || sel.step == -1 || n == 1;
    piece.covers_valid = unit_step && n == valid;
    piece.covers_whole = sel.step == 1 && n == chunk && pos == chunk_begin;
    pieces.push_back(piece);
    k = k_end;
  }
  return pieces;
}

std::vector<PlannedChunk> plan_from_pieces(std::vector<std::vector<DimensionPiece>> per_dim) {
  const size_t ndim = per_dim.size();
  size_t total = 1;
  for (const auto& pieces : per_dim) total *= pieces.size();
  std::vector<PlannedChunk> plan;
  if (total == 0) return plan;
  plan.reserve(total);
  std::vector<size_t> counter(ndim, 0);
  while (true) {
    PlannedChunk p;
    p.coords.resize(ndim);
    p.in_chunk.resize(ndim);
    p.out_start.resize(ndim);
    p.covers_valid_region = true;
    p.covers_whole_chunk = true;
    for (size_t d = 0; d < ndim; ++d) {
      const auto& piece = per_dim[d][counter[d]];
      p.coords[d] = piece.chunk;
      p.in_chunk[d] = piece.in_chunk;
      p.out_start[d] = piece.out_start;
      p.covers_valid_region = p.covers_valid_region && piece.covers_valid;
      p.covers_whole_chunk = p.covers_whole_chunk && piece.covers_whole;
    }
    plan.push_back(std::move(p));
    size_t d = ndim;
    while (d > 0) {
      --d;
      if (++counter[d] < per_dim[d].size()) break;
      counter[d] = 0;
      if (d == 0) return plan;
    }
    if (ndim == 0) return plan;
  }
}

}  // namespace

std::vector<PlannedChunk> plan_chunks(const NormalizedSelection& selection,
                                      std::span<const int64_t> array_shape,
                                      std::span<const int64_t> chunk_shape) {
  std::vector<std::vector<DimensionPiece>> per_dim(array_shape.size());
  for (size_t d = 0; d < array_shape.size(); ++d) {
    per_dim[d] = split_dimension(selection.dims[d], array_shape[d], {chunk_shape[d], nullptr, d});
  }
  return plan_from_pieces(std::move(per_dim));
}

std::vector<PlannedChunk> plan_chunks(const NormalizedSelection& selection,
                                      std::span<const int64_t> array_shape,
                                      const RectilinearChunkGrid& grid) {
  std::vector<std::vector<DimensionPiece>> per_dim(array_shape.size());
  for (size_t d = 0; d < array_shape.size(); ++d) {
    per_dim[d] = split_dimension(selection.dims[d], array_shape[d], {0, &grid, d});
  }
  return plan_from_pieces(std::move(per_dim));
}

}  // namespace cuzarr
