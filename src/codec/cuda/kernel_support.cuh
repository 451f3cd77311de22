// Device-side helpers shared by the batched codec kernels: how a launch spreads chunks over thread
// blocks, and cooperative copies. For .cu files; the CPU tests compile the device code built on it
// with emulated warps (tests/codec/warp_emulator.hpp).
#pragma once

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#if defined(__CUDACC__)
#include "memory/cuda_check.hpp"
#endif

/// `#pragma unroll` for the device compiler only (the CPU tests compile some device code).
#if defined(__CUDACC__)
#define CUZARR_UNROLL _Pragma("unroll")
#else
#define CUZARR_UNROLL
#endif

namespace cuzarr::gpu::detail {

#if defined(__CUDACC__)
using ::cuzarr::detail::to_cuda;
#endif

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

}  // namespace cuzarr::gpu::detail
