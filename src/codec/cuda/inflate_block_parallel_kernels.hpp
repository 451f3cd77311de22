// The GPU passes of inflate_block_parallel.hpp over a batch (internal to inflate_batch,
// deflate_kernels.hpp): chunks that qualify decode block-parallel, the others are marked for the
// warp-per-chunk decoder. CUDA builds only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu::detail {

/// Scratch bytes for `count` chunks of at most `max_output` decoded bytes (0 when max_output is
/// below `min_capacity`: no chunk can qualify).
size_t inflate_bp_temp_bytes(size_t count, uint64_t max_output, uint64_t min_capacity);

/// Decodes the qualifying chunks block-parallel (statuses and output sizes written for those it
/// finishes) and returns `handled`: handled[i] = 1 for them, 0 for the chunks left to the warp
/// decoder (nullptr when no chunk can qualify). `temp`: inflate_bp_temp_bytes bytes.
const uint32_t* inflate_bp_decode_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper,
                                        bool verify, uint64_t max_output, uint64_t min_capacity,
                                        void* temp, Stream stream);

}  // namespace cuzarr::gpu::detail
