// Device routines for byte and bit shuffles of one buffer, run by a range of threads or warps;
// shared by the standalone shuffle kernels and the blosc kernels (.cu files only).
#pragma once

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/shuffle_format.hpp"

namespace cuzarr::gpu::detail {

/// Bytes of the shared-memory tile of the byte shuffle.
inline constexpr uint32_t kShuffleTileBytes = 8192;

// The tile holds byte k of tile element i at tile[k * m + i] (m elements in the tile). The element
// side (contiguous elements) moves whole elements as 2-, 4- or 8-byte words when the type size and
// alignment allow it, else bytes; the row side (byte k of every element, rows n bytes apart) moves
// 4-byte words when every row start is 4-byte aligned, else bytes. No divisions in the loops.

template <class Word>
__device__ void elements_to_tile(const unsigned char* src, unsigned char* tile, uint32_t m) {
  for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) {
    const Word v = reinterpret_cast<const Word*>(src)[i];
    for (uint32_t k = 0; k < sizeof(Word); ++k)
      tile[k * m + i] = static_cast<unsigned char>(v >> (8 * k));
  }
}
template <class Word>
__device__ void tile_to_elements(const unsigned char* tile, unsigned char* dst, uint32_t m) {
  for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) {
    Word v = 0;
    for (uint32_t k = 0; k < sizeof(Word); ++k) v |= static_cast<Word>(tile[k * m + i]) << (8 * k);
    reinterpret_cast<Word*>(dst)[i] = v;
  }
}

// src: the tile's first element; `wide`: src is aligned to the type size (2, 4 or 8).
__device__ inline void load_elements(const unsigned char* src, unsigned char* tile, uint32_t m,
                                     uint32_t typesize, bool wide) {
  if (wide && typesize == 2) return elements_to_tile<uint16_t>(src, tile, m);
  if (wide && typesize == 4) return elements_to_tile<uint32_t>(src, tile, m);
  if (wide && typesize == 8) return elements_to_tile<unsigned long long>(src, tile, m);
  for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) {
    for (uint32_t k = 0; k < typesize; ++k) tile[k * m + i] = src[uint64_t{i} * typesize + k];
  }
}
__device__ inline void store_elements(const unsigned char* tile, unsigned char* dst, uint32_t m,
                                      uint32_t typesize, bool wide) {
  if (wide && typesize == 2) return tile_to_elements<uint16_t>(tile, dst, m);
  if (wide && typesize == 4) return tile_to_elements<uint32_t>(tile, dst, m);
  if (wide && typesize == 8) return tile_to_elements<unsigned long long>(tile, dst, m);
  for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) {
    for (uint32_t k = 0; k < typesize; ++k) dst[uint64_t{i} * typesize + k] = tile[k * m + i];
  }
}

// rows: byte 0 of the tile's first element; row k starts at rows + k * n. `wide`: n, m and the
// rows pointer are multiples of 4 (the tile is 16-byte aligned).
__device__ inline void load_rows(const unsigned char* rows, uint64_t n, unsigned char* tile,
                                 uint32_t m, uint32_t typesize, bool wide) {
  for (uint32_t k = 0; k < typesize; ++k) {
    const unsigned char* row = rows + k * n;
    if (wide) {
      for (uint32_t q = threadIdx.x; q < m / 4; q += blockDim.x) {
        reinterpret_cast<uint32_t*>(tile + k * m)[q] = reinterpret_cast<const uint32_t*>(row)[q];
      }
    } else {
      for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) tile[k * m + i] = row[i];
    }
  }
}
__device__ inline void store_rows(const unsigned char* tile, unsigned char* rows, uint64_t n,
                                  uint32_t m, uint32_t typesize, bool wide) {
  for (uint32_t k = 0; k < typesize; ++k) {
    unsigned char* row = rows + k * n;
    if (wide) {
      for (uint32_t q = threadIdx.x; q < m / 4; q += blockDim.x) {
        reinterpret_cast<uint32_t*>(row)[q] = reinterpret_cast<const uint32_t*>(tile + k * m)[q];
      }
    } else {
      for (uint32_t i = threadIdx.x; i < m; i += blockDim.x) row[i] = tile[k * m + i];
    }
  }
}

/// Byte shuffle (forward) or unshuffle of `size` bytes with one thread block: tiles of whole
/// elements go through shared memory so that both the element-major and the byte-major side are
/// read / written contiguously. Tiles part, part + parts, ... are this block's; leftover bytes
/// are copied by part 0. `tile`: kShuffleTileBytes of shared memory, 16-byte aligned.
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
  if (typesize > kShuffleTileBytes / 4) {
    // Huge elements (numcodecs allows them): no tile, the index map directly.
    const uint64_t stride = uint64_t{parts} * blockDim.x;
    for (uint64_t x = uint64_t{part} * blockDim.x + threadIdx.x; x < size; x += stride) {
      dst[x] = src[kForward ? shuffle_source_index(x, size, typesize)
                            : unshuffle_source_index(x, size, typesize)];
    }
    return;
  }
  const uint64_t n = size / typesize;
  // Whole elements per tile, a multiple of 4 (at least 4 here; 32 for blosc's typesize <= 255).
  const uint32_t per_tile = kShuffleTileBytes / typesize / 4 * 4;
  const uint64_t tiles = (n + per_tile - 1) / per_tile;
  const unsigned char* elements = kForward ? src : dst;
  const unsigned char* rows = kForward ? dst : src;
  const bool elements_wide = (typesize == 2 || typesize == 4 || typesize == 8) &&
                             reinterpret_cast<uintptr_t>(elements) % typesize == 0;
  // Every tile's rows start at a multiple of 4 when n and the base are (per_tile is).
  const bool rows_wide = n % 4 == 0 && reinterpret_cast<uintptr_t>(rows) % 4 == 0;
  for (uint64_t t = part; t < tiles; t += parts) {
    const uint64_t e0 = t * per_tile;
    const auto m = static_cast<uint32_t>(umin(per_tile, n - e0));
    if (kForward) {
      load_elements(src + e0 * typesize, tile, m, typesize, elements_wide);
      __syncthreads();
      store_rows(tile, dst + e0, n, m, typesize, rows_wide);
    } else {
      load_rows(src + e0, n, tile, m, typesize, rows_wide);
      __syncthreads();
      store_elements(tile, dst + e0 * typesize, m, typesize, elements_wide);
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
  const unsigned char* rows = kForward ? dst : src;
  const unsigned char* elements = kForward ? src : dst;
  // A group's 4 bytes of a bit-row are one aligned 32-bit word when rows are multiples of 4.
  const bool rows_wide = row_bytes % 4 == 0 && reinterpret_cast<uintptr_t>(rows) % 4 == 0;
  // Elements of 1, 2, 4 or 8 bytes, aligned, are read / written whole.
  const bool elements_wide = (typesize == 1 || typesize == 2 || typesize == 4 || typesize == 8) &&
                             reinterpret_cast<uintptr_t>(elements) % typesize == 0;
  for (uint64_t g = warp; g < groups; g += warps) {
    const uint64_t e0 = g * 32;
    const uint64_t e = e0 + lane;
    const bool valid = e < n;
    const uint64_t column = e0 / 8;
    const uint32_t row_part = static_cast<uint32_t>(umin(4, row_bytes - column));
    const bool whole_word = rows_wide && row_part == 4;
    if (kForward) {
      unsigned long long element = 0;  // the lane's element, when read whole
      if (elements_wide && valid) {
        const unsigned char* p = src + e * typesize;
        if (typesize == 1) element = *p;
        if (typesize == 2) element = *reinterpret_cast<const uint16_t*>(p);
        if (typesize == 4) element = *reinterpret_cast<const uint32_t*>(p);
        if (typesize == 8) element = *reinterpret_cast<const unsigned long long*>(p);
      }
      for (uint32_t j = 0; j < typesize; ++j) {
        const unsigned value = !valid          ? 0u
                               : elements_wide ? static_cast<unsigned>(element >> (8 * j)) & 0xFFu
                                               : src[e * typesize + j];
        unsigned mine = 0;
        for (unsigned k = 0; k < 8; ++k) {
          const unsigned word = __ballot_sync(kFullMask, (value >> k) & 1u);
          if (lane == k) mine = word;
        }
        if (lane < 8) {
          unsigned char* row = dst + (uint64_t{j} * 8 + lane) * row_bytes + column;
          if (whole_word) {
            *reinterpret_cast<uint32_t*>(row) = mine;
          } else {
            for (uint32_t b = 0; b < row_part; ++b)
              row[b] = static_cast<unsigned char>(mine >> (8 * b));
          }
        }
      }
    } else {
      unsigned long long element = 0;
      for (uint32_t j = 0; j < typesize; ++j) {
        unsigned word = 0;
        if (lane < 8) {
          const unsigned char* row = src + (uint64_t{j} * 8 + lane) * row_bytes + column;
          if (whole_word) {
            word = *reinterpret_cast<const uint32_t*>(row);
          } else {
            for (uint32_t b = 0; b < row_part; ++b) word |= unsigned{row[b]} << (8 * b);
          }
        }
        unsigned value = 0;
        for (unsigned k = 0; k < 8; ++k) {
          const unsigned w = __shfl_sync(kFullMask, word, k);
          value |= ((w >> lane) & 1u) << k;
        }
        if (elements_wide) {
          element |= static_cast<unsigned long long>(value) << (8 * j);
        } else if (valid) {
          dst[e * typesize + j] = static_cast<unsigned char>(value);
        }
      }
      if (elements_wide && valid) {
        unsigned char* p = dst + e * typesize;
        if (typesize == 1) *p = static_cast<unsigned char>(element);
        if (typesize == 2) *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(element);
        if (typesize == 4) *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(element);
        if (typesize == 8) *reinterpret_cast<unsigned long long*>(p) = element;
      }
    }
  }
  const uint64_t rank = warp * kWarpSize + lane;
  for (uint64_t x = n * typesize + rank; x < size; x += warps * kWarpSize) dst[x] = src[x];
}

}  // namespace cuzarr::gpu::detail
