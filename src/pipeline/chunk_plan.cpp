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

// Splits the positions start + k*step (k < count) of one dimension into runs that fall in the
// same chunk. Consecutive k stay in one chunk until the position crosses a chunk boundary, so
// each run is found in O(1) and the work is proportional to the chunks touched.
std::vector<DimensionPiece> split_dimension(const DimensionSelection& sel, int64_t extent,
                                            int64_t chunk) {
  std::vector<DimensionPiece> pieces;
  int64_t k = 0;
  while (k < sel.count) {
    const int64_t pos = sel.start + k * sel.step;
    const int64_t c = pos / chunk;
    const int64_t chunk_begin = c * chunk;
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

}  // namespace

std::vector<PlannedChunk> plan_chunks(const NormalizedSelection& selection,
                                      std::span<const int64_t> array_shape,
                                      std::span<const int64_t> chunk_shape) {
  const size_t ndim = array_shape.size();
  std::vector<std::vector<DimensionPiece>> per_dim(ndim);
  size_t total = 1;
  for (size_t d = 0; d < ndim; ++d) {
    per_dim[d] = split_dimension(selection.dims[d], array_shape[d], chunk_shape[d]);
    total *= per_dim[d].size();
  }
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

}  // namespace cuzarr
