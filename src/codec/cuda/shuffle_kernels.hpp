// Batched GPU byte shuffle and bit shuffle (c-blosc 1.x / numcodecs.shuffle semantics, see
// shuffle_format.hpp and bitshuffle_format.hpp). For each chunk i: outputs[i] gets
// input_sizes[i] bytes, output_sizes[i] = input_sizes[i]; statuses[i] is output_too_small when
// output_capacities[i] < input_sizes[i] (nothing written), ok otherwise. Inputs and outputs must
// not overlap. CUDA builds only; each call queues kernels on `stream` and throws CudaError when a
// launch fails.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Byte k of element i moves from i * typesize + k to k * n + i; leftover bytes stay in place.
void shuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream);
/// The inverse of shuffle_batch.
void unshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream);
/// c-blosc's bit shuffle of one block per chunk (whole chunk copied when the element count is not
/// a multiple of 8).
void bitshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream);
/// The inverse of bitshuffle_batch.
void bitunshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream);

}  // namespace cuzarr::gpu
