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

/// Scratch bytes the decoder with scratch needs for `count` chunks of at most `max_chunk_bytes`
/// bytes each.
size_t delta_decode_temp_bytes(size_t count, uint64_t max_chunk_bytes);
/// Decode that spreads each chunk over many thread blocks, one 8 KiB tile each for a chunk of
/// `max_chunk_bytes`, in a single pass (a scan with decoupled look-back: fills the GPU with few
/// large chunks as well; floats speculatively, as above). A larger chunk still decodes exactly,
/// its blocks taking longer ranges. `temp`: delta_decode_temp_bytes(batch.count,
/// max_chunk_bytes) device bytes.
void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, uint64_t max_chunk_bytes,
                        void* temp, Stream stream);

}  // namespace cuzarr::gpu
