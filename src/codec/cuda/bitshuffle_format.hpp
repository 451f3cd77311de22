// Bit shuffle as c-blosc 1.x applies it to one block (BLOSC_DOBITSHUFFLE), written once for the CPU
// and the GPU. With n = size / typesize elements (c-blosc shuffle.c, blosc_internal_bitshuffle):
//  - when n is a multiple of 8, the first n * typesize bytes are bit-transposed and the
//    size % typesize leftover bytes are copied verbatim;
//  - otherwise the whole block is copied verbatim (no bit shuffle at all).
// The transposed layout (bitshuffle's bshuf_trans_bit_elem: byte transpose, bit transpose of 8x8
// bit matrices, then bit-row transpose) puts bit k of byte j of element i at bit i % 8 of byte
//   (j * 8 + k) * (n / 8) + i / 8,
// that is 8 * typesize rows of n / 8 bytes, one row per (byte, bit) of the type, LSB first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// True when a `size`-byte block of `typesize`-byte elements is bit-transposed (n % 8 == 0);
/// blosc copies other blocks verbatim.
CUZARR_HOST_DEVICE inline bool bitshuffle_transposes(uint64_t size, uint32_t typesize) {
  return typesize > 0 && (size / typesize) % 8 == 0;
}

/// Bit-shuffled byte `index` of a `size`-byte block, computed from the unshuffled block `src`.
CUZARR_HOST_DEVICE inline unsigned char bitshuffle_byte(const unsigned char* src, uint64_t size,
                                                        uint32_t typesize, uint64_t index) {
  if (!bitshuffle_transposes(size, typesize)) return src[index];
  const uint64_t n = size / typesize;
  if (index >= n * typesize) return src[index];
  const uint64_t row_bytes = n / 8;
  const uint64_t row = index / row_bytes;  // j * 8 + k
  const uint64_t column = index % row_bytes;
  const uint64_t j = row / 8;
  const unsigned k = static_cast<unsigned>(row % 8);
  unsigned value = 0;
  for (unsigned b = 0; b < 8; ++b) {
    value |= ((src[(column * 8 + b) * typesize + j] >> k) & 1u) << b;
  }
  return static_cast<unsigned char>(value);
}

/// Unshuffled byte `index` of a `size`-byte block, computed from the bit-shuffled block `src`.
CUZARR_HOST_DEVICE inline unsigned char bitunshuffle_byte(const unsigned char* src, uint64_t size,
                                                          uint32_t typesize, uint64_t index) {
  if (!bitshuffle_transposes(size, typesize)) return src[index];
  const uint64_t n = size / typesize;
  if (index >= n * typesize) return src[index];
  const uint64_t row_bytes = n / 8;
  const uint64_t i = index / typesize;
  const uint64_t j = index % typesize;
  unsigned value = 0;
  for (unsigned k = 0; k < 8; ++k) {
    value |= ((src[(j * 8 + k) * row_bytes + i / 8] >> (i % 8)) & 1u) << k;
  }
  return static_cast<unsigned char>(value);
}

/// dst = bitshuffle(src), both `size` bytes, not overlapping (serial reference).
CUZARR_HOST_DEVICE inline void bitshuffle_bytes(const unsigned char* src, unsigned char* dst,
                                                uint64_t size, uint32_t typesize) {
  for (uint64_t o = 0; o < size; ++o) dst[o] = bitshuffle_byte(src, size, typesize, o);
}

/// dst = bitunshuffle(src), both `size` bytes, not overlapping (serial reference).
CUZARR_HOST_DEVICE inline void bitunshuffle_bytes(const unsigned char* src, unsigned char* dst,
                                                  uint64_t size, uint32_t typesize) {
  for (uint64_t o = 0; o < size; ++o) dst[o] = bitunshuffle_byte(src, size, typesize, o);
}

}  // namespace cuzarr::gpu
