// Device routines for byte and bit shuffles of one buffer, run by a range of threads or warps;
// shared by the standalone shuffle kernels and the blosc kernels (.cu files only).
#pragma once

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/shuffle_format.hpp"

namespace cuzarr::gpu::detail {

/// Bytes of the shared-memory tile of the byte shuffle.
inline constexpr uint32_t kShuffleTileBytes = 8192;

/// Byte shuffle (forward) or unshuffle of `size` bytes with one thread block: tiles of whole
/// elements go through shared memory so that both the element-major and the byte-major side are
/// read / written contiguously. Tiles part, part + parts, ... are this block's; leftover bytes
/// are copied by part 0. `tile` is kShuffleTileBytes of shared memory.
template <bool kForward>
__device__ void block_shuffle(const unsigned char* src, unsigned char* dst, uint64_t size,
                              uint32_t typesize, uint32_t part, uint32_t parts,
                              unsigned char* tile) {
  if (typesize <= 1) {
    const uint64_t slice = (size + parts - 1) / parts;
    const uint64_t begin = umin(size, slice * part);
    const uint64_t end = umin(size, begin + slice);
    cooperative_copy(dst + begin, src + begin, end - begin, threadIdx.x, blockDim.x);
    return;
  }
  const uint64_t n = size / typesize;
  const uint64_t per_tile = umax(1, kShuffleTileBytes / typesize);
  const uint64_t tiles = (n + per_tile - 1) / per_tile;
  for (uint64_t t = part; t < tiles; t += parts) {
    const uint64_t e0 = t * per_tile;
    const uint64_t m = umin(per_tile, n - e0);
    const uint64_t bytes = m * typesize;
    if (kForward) {
      for (uint64_t x = threadIdx.x; x < bytes; x += blockDim.x) tile[x] = src[e0 * typesize + x];
      __syncthreads();
      for (uint64_t x = threadIdx.x; x < bytes; x += blockDim.x) {
        const uint64_t k = x / m, i = x % m;
        dst[k * n + e0 + i] = tile[i * typesize + k];
      }
    } else {
      for (uint64_t x = threadIdx.x; x < bytes; x += blockDim.x) {
        const uint64_t k = x / m, i = x % m;
        tile[k * m + i] = src[k * n + e0 + i];
      }
      __syncthreads();
      for (uint64_t x = threadIdx.x; x < bytes; x += blockDim.x) {
        dst[e0 * typesize + x] = tile[(x % typesize) * m + x / typesize];
      }
    }
    __syncthreads();
  }
  if (part == 0) {
    for (uint64_t x = n * typesize + threadIdx.x; x < size; x += blockDim.x) dst[x] = src[x];
  }
}

/// Bit shuffle (forward) or unshuffle of `size` bytes by the warps [warp, warp + warps), 32
/// elements per warp step: forward, a ballot over the lanes' bit k of byte j is the 4 output bytes
/// of row j * 8 + k for those elements; backward, lanes 0..7 load the rows of byte j and each
/// lane picks its element's bits. Copies the block when it is not transposed.
template <bool kForward>
__device__ void warps_bitshuffle(const unsigned char* src, unsigned char* dst, uint64_t size,
                                 uint32_t typesize, uint64_t warp, uint64_t warps, unsigned lane) {
  if (!bitshuffle_transposes(size, typesize)) {
    cooperative_copy(dst, src, size, warp * kWarpSize + lane, warps * kWarpSize);
    return;
  }
  const uint64_t n = size / typesize;
  const uint64_t row_bytes = n / 8;
  const uint64_t groups = (n + 31) / 32;
  for (uint64_t g = warp; g < groups; g += warps) {
    const uint64_t e0 = g * 32;
    const uint64_t e = e0 + lane;
    const bool valid = e < n;
    const uint64_t column = e0 / 8;
    const uint32_t row_part = static_cast<uint32_t>(umin(4, row_bytes - column));
    for (uint32_t j = 0; j < typesize; ++j) {
      if (kForward) {
        const unsigned value = valid ? src[e * typesize + j] : 0u;
        unsigned mine = 0;
        for (unsigned k = 0; k < 8; ++k) {
          const unsigned word = __ballot_sync(kFullMask, (value >> k) & 1u);
          if (lane == k) mine = word;
        }
        if (lane < 8) {
          unsigned char* row = dst + (uint64_t{j} * 8 + lane) * row_bytes + column;
          for (uint32_t b = 0; b < row_part; ++b)
            row[b] = static_cast<unsigned char>(mine >> (8 * b));
        }
      } else {
        unsigned word = 0;
        if (lane < 8) {
          const unsigned char* row = src + (uint64_t{j} * 8 + lane) * row_bytes + column;
          for (uint32_t b = 0; b < row_part; ++b) word |= unsigned{row[b]} << (8 * b);
        }
        unsigned value = 0;
        for (unsigned k = 0; k < 8; ++k) {
          const unsigned w = __shfl_sync(kFullMask, word, k);
          value |= ((w >> lane) & 1u) << k;
        }
        if (valid) dst[e * typesize + j] = static_cast<unsigned char>(value);
      }
    }
  }
  const uint64_t rank = warp * kWarpSize + lane;
  for (uint64_t x = n * typesize + rank; x < size; x += warps * kWarpSize) dst[x] = src[x];
}

}  // namespace cuzarr::gpu::detail
