// Batched GPU CRC-32C and the Zarr v3 "crc32c" codec. Each chunk is spread over many warps: lane l
// of a warp takes 8-byte words l, l + 32, ... of the warp's range and the partial CRCs are
// combined by GF(2) shifts (crc32c_table.hpp) and XOR, so one chunk of any size runs at full
// speed. CUDA builds only; every call queues work on `stream` and throws CudaError when a launch
// fails.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// crcs[i] = CRC-32C of inputs[i][0, input_sizes[i]) for i < count (device arrays).
void crc32c_batch(const std::byte* const* inputs, const uint64_t* input_sizes, size_t count,
                  uint32_t* crcs, Stream stream);

/// Scratch bytes the crc32c codec launchers need for `count` chunks.
size_t crc32c_codec_temp_bytes(size_t count);

/// Zarr v3 crc32c decode: checks the 4-byte little-endian CRC-32C trailer of each input and copies
/// the bytes before it. statuses[i]: corrupt_input for inputs shorter than 4 bytes,
/// output_too_small when the payload exceeds output_capacities[i], checksum_mismatch when the
/// trailer differs (the payload is still copied), ok. output_sizes[i] = input_sizes[i] - 4.
/// `temp`: crc32c_codec_temp_bytes(count) bytes of device memory.
void crc32c_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);

/// Zarr v3 crc32c encode: copies each input and appends its CRC-32C (4 bytes, little-endian);
/// output_too_small when output_capacities[i] < input_sizes[i] + 4.
void crc32c_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream);

}  // namespace cuzarr::gpu
