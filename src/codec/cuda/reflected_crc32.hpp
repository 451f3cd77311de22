// Reflected 32-bit CRCs of any polynomial, for the CPU and the GPU: the slicing-by-8 tables and
// the raw register update (no pre- or post-inversion). crc32_table.hpp (gzip's CRC-32) and
// crc32c_table.hpp (CRC-32C) build on them with their polynomials and add the GF(2) arithmetic
// that combines the CRCs of pieces computed independently.
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// table[k][b]: the raw CRC of byte b followed by k zero bytes (slicing-by-8).
struct CrcSliceTables {
  uint32_t table[8][256];
};

/// The raw CRC of the one byte b: eight steps of the bitwise division by the reflected
/// `polynomial`.
CUZARR_HOST_DEVICE constexpr uint32_t reflected_crc_of_byte(uint32_t polynomial, uint32_t b) {
  uint32_t c = b;
  for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ polynomial : c >> 1;
  return c;
}

/// Row k of the slicing tables from row k - 1: one more zero byte after each byte.
CUZARR_HOST_DEVICE constexpr uint32_t crc_slice_entry(const CrcSliceTables& t, int k, uint32_t b) {
  return (t.table[k - 1][b] >> 8) ^ t.table[0][t.table[k - 1][b] & 0xFFu];
}

CUZARR_HOST_DEVICE constexpr CrcSliceTables make_crc_slice_tables(uint32_t polynomial) {
  CrcSliceTables t{};
  for (uint32_t b = 0; b < 256; ++b) t.table[0][b] = reflected_crc_of_byte(polynomial, b);
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t.table[k][b] = crc_slice_entry(t, k, b);
  }
  return t;
}

#if defined(__CUDACC__)
/// make_crc_slice_tables by the threads of a thread block (every thread calls it: it synchronises
/// the block), into shared memory.
__device__ inline void block_build_crc_slice_tables(CrcSliceTables& t, uint32_t polynomial) {
  for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x)
    t.table[0][b] = reflected_crc_of_byte(polynomial, b);
  __syncthreads();
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x)
      t.table[k][b] = crc_slice_entry(t, k, b);
    __syncthreads();
  }
}
#endif

/// The raw register after `n` bytes at `p`, from register `r`, with the slicing tables of the
/// CRC's polynomial (in any memory space).
CUZARR_HOST_DEVICE inline uint32_t crc_slice_update(uint32_t r, const unsigned char* p, uint64_t n,
                                                    const uint32_t (*table)[256]) {
  while (n >= 8) {
    const uint32_t lo =
        (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24) ^ r;
    const uint32_t hi =
        uint32_t{p[4]} | uint32_t{p[5]} << 8 | uint32_t{p[6]} << 16 | uint32_t{p[7]} << 24;
    r = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
        table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
        table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    r = (r >> 8) ^ table[0][(r ^ *p++) & 0xFFu];
    --n;
  }
  return r;
}

}  // namespace cuzarr::gpu
