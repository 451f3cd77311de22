// Batched GPU numcodecs.delta (dtype == astype; see delta_format.hpp). For each chunk i, the
// input_sizes[i] bytes are elements of `type`: statuses[i] is corrupt_input when the size is not a
// multiple of the element size, output_too_small when output_capacities[i] < input_sizes[i], else
// ok with output_sizes[i] = input_sizes[i]. Inputs and outputs must not overlap. Integer decode
// is a parallel prefix sum per chunk. Float decode rounds exactly as numpy's cumsum, which adds in
// order: without scratch it adds serially (one warp per chunk, lane 0 summing tiles the warp loads
// and stores); with scratch it first takes a parallel prefix sum in wider precision and checks
// every step against numpy's, then adds serially only from a chunk's first step that differs
// (delta_float_sum.hpp). CUDA builds only; throws CudaError when a launch fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/delta_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

void delta_encode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream);
/// Integer decode with one thread block per chunk (no scratch).
void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream);

/// Ranges per chunk the decode with scratch takes for `count` chunks of at most `max_chunk_bytes`
/// bytes: one a chunk when the batch alone fills the GPU (kDeltaFillChunks chunks or more), else
/// ranges of 32 KiB, one thread block each.
inline constexpr size_t kDeltaFillChunks = 512;
uint32_t delta_decode_parts(size_t count, uint64_t max_chunk_bytes);

/// Scratch bytes the decoder with scratch needs for `count` chunks of at most `max_chunk_bytes`
/// bytes each.
size_t delta_decode_temp_bytes(size_t count, uint64_t max_chunk_bytes);
/// Decode that spreads each chunk of a batch of few chunks over many thread blocks, in a single
/// pass (a scan with decoupled look-back; floats speculatively, as above), in
/// delta_decode_parts(batch.count, max_chunk_bytes) ranges per chunk. A chunk larger than
/// `max_chunk_bytes` still decodes exactly, its ranges longer. `temp`:
/// delta_decode_temp_bytes(batch.count, max_chunk_bytes) device bytes.
void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, uint64_t max_chunk_bytes,
                        void* temp, Stream stream);

/// The decode with scratch in exactly `parts` ranges per chunk (for benchmarks and tests).
/// `temp`: delta_decode_temp_bytes_in_parts(batch.count, parts) device bytes.
size_t delta_decode_temp_bytes_in_parts(size_t count, uint32_t parts);
void delta_decode_batch_in_parts(const DeviceChunkBatch& batch, DeltaType type, uint32_t parts,
                                 void* temp, Stream stream);

}  // namespace cuzarr::gpu
