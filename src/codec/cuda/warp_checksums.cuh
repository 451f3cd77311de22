// CRC-32 and Adler-32 of a span of bytes by a warp, in the lane scheme of checksum_lanes.hpp
// (coalesced 8-byte words, lane l taking word l of every 256-byte step). For the inflate kernels'
// trailer checks (.cu files and the emulated-warp tests).
#pragma once

#include <cstdint>

#include "codec/cuda/adler32.hpp"
#include "codec/cuda/checksum_lanes.hpp"
#include "codec/cuda/kernel_support.cuh"

namespace cuzarr::gpu::detail {

/// The raw register f(0, p[0, n)) (crc32_table.hpp); every lane calls it and gets it.
__device__ inline uint32_t warp_crc32_raw(const unsigned char* p, uint64_t n,
                                          const Crc32LaneTables& t, unsigned lane) {
  const ChecksumSpan s = checksum_span(p, n);
  uint32_t r = crc32_lane_words(p, s, lane, t);
  for (int d = kWarpSize / 2; d > 0; d /= 2) r ^= __shfl_xor_sync(kFullMask, r, d);
  return crc32_span_finish(r, p, n, s, t);
}

/// adler32_piece(p, n): (s, t) of the n bytes; every lane calls it and gets it.
__device__ inline AdlerPiece warp_adler32_piece(const unsigned char* p, uint64_t n, unsigned lane) {
  const AdlerPiece part = adler32_lane_part(p, n, checksum_span(p, n), lane);
  uint32_t a = part.s, b = part.t;
  for (int d = kWarpSize / 2; d > 0; d /= 2) {
    a = (a + __shfl_xor_sync(kFullMask, a, d)) % kAdlerModulus;
    b = (b + __shfl_xor_sync(kFullMask, b, d)) % kAdlerModulus;
  }
  return {a, b};
}

}  // namespace cuzarr::gpu::detail
