// Device-side helpers shared by the batched codec kernels (.cu files only): how a launch spreads
// chunks over thread blocks, cooperative copies, and the warp-cooperative execution of LZ4 /
// blosclz copy steps.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {

using ::cuzarr::detail::to_cuda;

__host__ __device__ inline uint64_t umin(uint64_t a, uint64_t b) { return a < b ? a : b; }
__host__ __device__ inline uint64_t umax(uint64_t a, uint64_t b) { return a < b ? b : a; }

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;
inline constexpr int kWarpSize = 32;

/// Thread blocks per chunk for kernels that split one chunk over several blocks: enough blocks
/// in total to fill the GPU (about 8192), at most 256 per chunk.
inline uint32_t parts_per_chunk(size_t count) {
  constexpr size_t kTargetBlocks = 8192;
  return static_cast<uint32_t>(
      std::clamp<size_t>(kTargetBlocks / std::max<size_t>(count, 1), 1, 256));
}

/// Grid size for count chunks of `parts` blocks each.
inline unsigned grid_for(size_t count, uint32_t parts) {
  return static_cast<unsigned>(count * parts);
}

/// Copies n bytes from src to dst with the threads [rank, rank + ranks) (16-byte words when both
/// pointers allow it).
__device__ inline void cooperative_copy(unsigned char* dst, const unsigned char* src, uint64_t n,
                                        uint64_t rank, uint64_t ranks) {
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  uint64_t head = 0;
  if ((d % 16) == (s % 16)) {
    head = umin(n, (16 - d % 16) % 16);
    const uint64_t words = (n - head) / 16;
    auto* dw = reinterpret_cast<uint4*>(dst + head);
    const auto* sw = reinterpret_cast<const uint4*>(src + head);
    for (uint64_t w = rank; w < words; w += ranks) dw[w] = sw[w];
    for (uint64_t t = rank; t < head; t += ranks) dst[t] = src[t];
    for (uint64_t t = head + words * 16 + rank; t < n; t += ranks) dst[t] = src[t];
    return;
  }
  for (uint64_t t = rank; t < n; t += ranks) dst[t] = src[t];
}

/// The warp executes one copy step at out[op] (literals from `in`, then the match); every lane
/// passes the same step. Ends with __syncwarp so the next step sees these bytes.
__device__ inline void warp_execute_step(const CopyStep& step, const unsigned char* in,
                                         unsigned char* out, uint64_t op, unsigned lane) {
  for (uint64_t t = lane; t < step.literal_length; t += kWarpSize) {
    out[op + t] = in[step.literal_start + t];
  }
  op += step.literal_length;
  if (step.match_length > 0) {
    if (step.literal_length > 0) __syncwarp();  // a match may read the literals just written
    const uint64_t distance = step.match_distance;
    if (distance >= step.match_length) {
      for (uint64_t t = lane; t < step.match_length; t += kWarpSize)
        out[op + t] = out[op - distance + t];
    } else {
      for (uint64_t t = lane; t < step.match_length; t += kWarpSize)
        out[op + t] = out[op - distance + t % distance];
    }
  }
  __syncwarp();
}

/// Broadcasts a copy step (and a status) from lane 0 to the warp.
__device__ inline void warp_broadcast(CopyStep& step, DeviceChunkStatus& status) {
  step.literal_start = __shfl_sync(kFullMask, step.literal_start, 0);
  step.literal_length = __shfl_sync(kFullMask, step.literal_length, 0);
  step.match_distance = __shfl_sync(kFullMask, step.match_distance, 0);
  step.match_length = __shfl_sync(kFullMask, step.match_length, 0);
  step.last = __shfl_sync(kFullMask, static_cast<int>(step.last), 0) != 0;
  status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
}

/// Warp-cooperative LZ4 block decode: lane 0 parses each sequence (all bounds checks in
/// lz4_parse_sequence), the warp copies it. All lanes return the same result.
__device__ inline DecodeResult warp_lz4_decode(const unsigned char* in, uint64_t in_size,
                                               unsigned char* out, uint64_t capacity,
                                               unsigned lane) {
  uint64_t ip = 0, op = 0;
  for (;;) {
    CopyStep step;
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    if (lane == 0) status = lz4_parse_sequence(in, in_size, ip, op, capacity, step);
    warp_broadcast(step, status);
    if (status != DeviceChunkStatus::ok) return {status, op};
    warp_execute_step(step, in, out, op, lane);
    op += step.literal_length + step.match_length;
    if (step.last) return {DeviceChunkStatus::ok, op};
  }
}

}  // namespace cuzarr::gpu::detail
