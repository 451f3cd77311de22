// The GPU passes of lz4_block_parallel.hpp over a batch (internal to the LZ4 launchers of
// lz4_kernels.hpp): chunks whose block qualifies decode block-parallel, the others are marked
// for the warp-per-chunk decoder. CUDA builds only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu::detail {

/// Scratch bytes for `count` chunks of at most `max_output` decoded bytes (0 when max_output is
/// below `min_capacity`: no chunk can qualify).
size_t lz4_bp_temp_bytes(size_t count, uint64_t max_output, uint64_t min_capacity);

/// Decodes the qualifying chunks block-parallel (statuses and output sizes written for them) and
/// sets handled[i] = 1 for those, 0 for the chunks left to the warp decoder. `numcodecs`: each
/// input starts with the 4-byte decoded size of numcodecs.lz4. `temp`: lz4_bp_temp_bytes bytes,
/// whose first `count` uint32_t are `handled`; returns that pointer.
const uint32_t* lz4_bp_decode_batch(const DeviceChunkBatch& batch, bool numcodecs,
                                    uint64_t max_output, uint64_t min_capacity, void* temp,
                                    Stream stream);

}  // namespace cuzarr::gpu::detail
