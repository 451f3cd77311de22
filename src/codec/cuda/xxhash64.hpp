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

/// XXH64 of data[0, size) with `seed`.
CUZARR_HOST_DEVICE inline uint64_t xxh64(const unsigned char* data, uint64_t size,
                                         uint64_t seed = 0) {
  uint64_t pos = 0, h;
  if (size >= 32) {
    uint64_t v1 = seed + kXxh64Prime1 + kXxh64Prime2, v2 = seed + kXxh64Prime2, v3 = seed,
             v4 = seed - kXxh64Prime1;
    for (; size - pos >= 32; pos += 32) {
      v1 = xxh64_round(v1, xxh64_load64(data + pos));
      v2 = xxh64_round(v2, xxh64_load64(data + pos + 8));
      v3 = xxh64_round(v3, xxh64_load64(data + pos + 16));
      v4 = xxh64_round(v4, xxh64_load64(data + pos + 24));
    }
    h = xxh64_rotl(v1, 1) + xxh64_rotl(v2, 7) + xxh64_rotl(v3, 12) + xxh64_rotl(v4, 18);
    h = xxh64_merge(h, v1);
    h = xxh64_merge(h, v2);
    h = xxh64_merge(h, v3);
    h = xxh64_merge(h, v4);
  } else {
    h = seed + kXxh64Prime5;
  }
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

}  // namespace cuzarr::gpu
