// A chunk of an LZ4 batch as the decode kernels see it (.cu files only): its block (after the
// numcodecs.lz4 size header, if any), the capacity it must decode within, and how its result is
// recorded.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"

namespace cuzarr::gpu {

/// A chunk's LZ4 block (numcodecs.lz4: after its size header) and what the framing says before
/// any decoding.
struct ChunkBlock {
  const unsigned char* in;
  uint64_t in_size;
  unsigned char* out;
  uint64_t capacity;
  uint64_t expected = 0;  // numcodecs.lz4: the header's size
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  bool decode = true;  // false: `status` is the chunk's, with no bytes
};

template <bool kNumcodecs>
__device__ inline ChunkBlock chunk_block(const DeviceChunkBatch& batch, size_t chunk) {
  ChunkBlock b{reinterpret_cast<const unsigned char*>(batch.inputs[chunk]),
               batch.input_sizes[chunk], reinterpret_cast<unsigned char*>(batch.outputs[chunk]),
               batch.output_capacities[chunk]};
  if (kNumcodecs) {
    if (b.in_size < kNumcodecsLz4HeaderSize) {
      b.status = DeviceChunkStatus::corrupt_input;
    } else {
      b.expected = load_le32(b.in);
      if (b.expected > b.capacity) b.status = DeviceChunkStatus::output_too_small;
      b.in += kNumcodecsLz4HeaderSize;
      b.in_size -= kNumcodecsLz4HeaderSize;
      b.capacity = b.expected;
    }
    b.decode = b.status == DeviceChunkStatus::ok && b.expected > 0;
  }
  return b;
}

/// The chunk's result from its block's: a numcodecs.lz4 block must decode to its header's size.
template <bool kNumcodecs>
__device__ inline DecodeResult chunk_result(const ChunkBlock& b, DecodeResult r) {
  if (kNumcodecs && (r.status == DeviceChunkStatus::output_too_small ||
                     (r.status == DeviceChunkStatus::ok && r.size != b.expected))) {
    r.status = DeviceChunkStatus::corrupt_input;  // the block disagrees with its header
  }
  return r;
}

__device__ inline void record_result(const DeviceChunkBatch& batch, size_t chunk, DecodeResult r,
                                     unsigned lane) {
  if (lane == 0) {
    batch.statuses[chunk] = r.status;
    batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
  }
}

}  // namespace cuzarr::gpu
