// A batched device-to-device copy: each chunk's input bytes to its output, many chunks per
// launch (e.g. gathering compressed streams back to back into one bitstream). CUDA builds only.
#pragma once

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// Copies inputs[i][0, input_sizes[i]) to outputs[i]: output_sizes[i] = input_sizes[i], status
/// ok, or output_too_small (nothing copied) when the input exceeds output_capacities[i]. Queued
/// on `stream`; throws CudaError when the launch fails.
void copy_batch(const DeviceChunkBatch& batch, Stream stream);

}  // namespace cuzarr::gpu
