// XXH64 (the xxHash 64-bit hash, seed 0 by default) over a contiguous buffer, for the CPU and the
// GPU. Zstandard frames store its low 32 bits as the content checksum (RFC 8878, 3.1.1).
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint64_t kXxh64Prime1 = 0x9E3779B185EBCA87ull;
inline constexpr uint64_t kXxh64Prime2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t kXxh64Prime3 = 0x165667B19E3779F9ull;
inline constexpr uint64_t kXxh64Prime4 = 0x85EBCA77C2B2AE63ull;
inline constexpr uint64_t kXxh64Prime5 = 0x27D4EB2F165667C5ull;

CUZARR_HOST_DEVICE inline uint64_t xxh64_rotl(uint64_t v, unsigned r) {
  return (v << r) | (v >> (64 - r));
}

CUZARR_HOST_DEVICE inline uint64_t xxh64_load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

CUZARR_HOST_DEVICE inline uint64_t xxh64_round(uint64_t acc, uint64_t lane) {
  acc += lane * kXxh64Prime2;
  return xxh64_rotl(acc, 31) * kXxh64Prime1;
}

CUZARR_HOST_DEVICE inline uint64_t xxh64_merge(uint64_t h, uint64_t acc) {
  h ^= xxh64_round(0, acc);
  return h * kXxh64Prime1 + kXxh64Prime4;
}

/// The hash of the four accumulators v[0..3] after the input's whole 32-byte stripes.
CUZARR_HOST_DEVICE inline uint64_t xxh64_converge(const uint64_t* v) {
  uint64_t h =
      xxh64_rotl(v[0], 1) + xxh64_rotl(v[1], 7) + xxh64_rotl(v[2], 12) + xxh64_rotl(v[3], 18);
  for (int k = 0; k < 4; ++k) h = xxh64_merge(h, v[k]);
  return h;
}

/// The end of XXH64 over data[0, size): `h` is the hash so far (xxh64_converge of the
/// accumulators, or seed + kXxh64Prime5 for inputs under 32 bytes) and `pos` the first byte after
/// the whole stripes. Adds the length, the remaining 8-, 4- and 1-byte pieces, then avalanches.
CUZARR_HOST_DEVICE inline uint64_t xxh64_finish(uint64_t h, const unsigned char* data, uint64_t pos,
                                                uint64_t size) {
  h += size;
  for (; size - pos >= 8; pos += 8) {
    h ^= xxh64_round(0, xxh64_load64(data + pos));
    h = xxh64_rotl(h, 27) * kXxh64Prime1 + kXxh64Prime4;
  }
  if (size - pos >= 4) {
    const uint64_t word = uint64_t{data[pos]} | uint64_t{data[pos + 1]} << 8 |
                          uint64_t{data[pos + 2]} << 16 | uint64_t{data[pos + 3]} << 24;
    h ^= word * kXxh64Prime1;
    h = xxh64_rotl(h, 23) * kXxh64Prime2 + kXxh64Prime3;
    pos += 4;
  }
  for (; pos < size; ++pos) {
    h ^= data[pos] * kXxh64Prime5;
    h = xxh64_rotl(h, 11) * kXxh64Prime1;
  }
  h ^= h >> 33;
  h *= kXxh64Prime2;
  h ^= h >> 29;
  h *= kXxh64Prime3;
  h ^= h >> 32;
  return h;
}

/// XXH64 of data[0, size) with `seed`.
CUZARR_HOST_DEVICE inline uint64_t xxh64(const unsigned char* data, uint64_t size,
                                         uint64_t seed = 0) {
  if (size < 32) return xxh64_finish(seed + kXxh64Prime5, data, 0, size);
  uint64_t v[4] = {seed + kXxh64Prime1 + kXxh64Prime2, seed + kXxh64Prime2, seed,
                   seed - kXxh64Prime1};
  uint64_t pos = 0;
  for (; size - pos >= 32; pos += 32) {
    for (int k = 0; k < 4; ++k) v[k] = xxh64_round(v[k], xxh64_load64(data + pos + 8 * k));
  }
  return xxh64_finish(xxh64_converge(v), data, pos, size);
}

}  // namespace cuzarr::gpu
