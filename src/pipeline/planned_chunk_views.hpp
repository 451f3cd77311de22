// Views that connect a planned chunk to its data: the selected part of the decoded chunk, and the
// part of the output (or of the data being written) it corresponds to.
#pragma once

#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/pipeline/chunk_plan.hpp"

namespace cuzarr {

/// The part of a decoded chunk that planned chunk `p` selects.
inline NDBuffer chunk_view(const NDBuffer& chunk, const PlannedChunk& p) {
  NDBuffer v = chunk;
  for (size_t d = 0; d < p.in_chunk.size(); ++d) {
    const auto& s = p.in_chunk[d];
    v = v.sliced(d, s.start, s.step, s.count);
  }
  return v;
}

/// The part of the output (shape: the full result shape of the selection) that `p` fills.
inline NDBuffer output_view(const NDBuffer& out, const PlannedChunk& p) {
  NDBuffer v = out;
  for (size_t d = 0; d < p.in_chunk.size(); ++d)
    v = v.sliced(d, p.out_start[d], 1, p.in_chunk[d].count);
  return v;
}

}  // namespace cuzarr
