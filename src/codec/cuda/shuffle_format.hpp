// Byte shuffle as c-blosc 1.x and numcodecs.shuffle define it, written once for the CPU and the
// GPU. A buffer of `size` bytes holds n = size / typesize whole elements; byte k of element i moves
// from i * typesize + k to k * n + i, and the size % typesize leftover bytes at the end stay in
// place (c-blosc shuffle.c, shuffle_generic: "leftover bytes are copied verbatim").
// numcodecs.shuffle rejects sizes that are not multiples of the element size; its callers check
// that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Where shuffled byte `index` (of a `size`-byte buffer of `typesize`-byte elements) comes from in
/// the unshuffled buffer.
CUZARR_HOST_DEVICE inline uint64_t shuffle_source_index(uint64_t index, uint64_t size,
                                                        uint32_t typesize) {
  if (typesize <= 1) return index;
  const uint64_t n = size / typesize;
  if (index >= n * typesize) return index;  // leftover bytes
  return (index % n) * typesize + index / n;
}

/// Where unshuffled byte `index` comes from in the shuffled buffer (the inverse mapping).
CUZARR_HOST_DEVICE inline uint64_t unshuffle_source_index(uint64_t index, uint64_t size,
                                                          uint32_t typesize) {
  if (typesize <= 1) return index;
  const uint64_t n = size / typesize;
  if (index >= n * typesize) return index;
  return (index % typesize) * n + index / typesize;
}

/// dst = shuffle(src), both `size` bytes, not overlapping (serial reference).
CUZARR_HOST_DEVICE inline void shuffle_bytes(const unsigned char* src, unsigned char* dst,
                                             uint64_t size, uint32_t typesize) {
  for (uint64_t o = 0; o < size; ++o) dst[o] = src[shuffle_source_index(o, size, typesize)];
}

/// dst = unshuffle(src), both `size` bytes, not overlapping (serial reference).
CUZARR_HOST_DEVICE inline void unshuffle_bytes(const unsigned char* src, unsigned char* dst,
                                               uint64_t size, uint32_t typesize) {
  for (uint64_t o = 0; o < size; ++o) dst[o] = src[unshuffle_source_index(o, size, typesize)];
}

}  // namespace cuzarr::gpu
