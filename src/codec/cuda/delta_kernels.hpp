// Batched GPU numcodecs.delta (dtype == astype; see delta_format.hpp). For each chunk i, the
// input_sizes[i] bytes are elements of `type`: statuses[i] is corrupt_input when the size is not a
// multiple of the element size, output_too_small when output_capacities[i] < input_sizes[i], else
// ok with output_sizes[i] = input_sizes[i]. Inputs and outputs must not overlap. Integer decode
// is a parallel prefix sum per chunk; float decode runs in order (one thread per chunk) so that
// it rounds exactly as numpy's cumsum. CUDA builds only; throws CudaError when a launch fails.
#pragma once

#include "codec/cuda/delta_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

void delta_encode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream);
void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream);

}  // namespace cuzarr::gpu
