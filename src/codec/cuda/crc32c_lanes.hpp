// The lane scheme of the GPU CRC-32C kernels (crc32c_kernels.cu), written once for the CPU tests
// and the kernels. A chunk's full steps of 32 * 16 bytes are split among warps; lane l of a warp
// folds the 16-byte words l, l + 32, ... of its steps (one coalesced 512-byte load per warp and
// step) as r = f(r * x^(8 * (kCrc32cWideStepBytes - 16)), word) with slicing-by-16 tables; then r
// is shifted to the end of the chunk (crc32c_wide_lane_shift) and XOR-combined (crc32c_table.hpp
// gives the algebra). The bytes after the last full step (the tail) are added by lane 0 of the
// warp that owns the last step.
#pragma once

#include <cstdint>

#include "codec/cuda/crc32c_table.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint64_t kCrc32cLaneBytes = 16;
inline constexpr uint64_t kCrc32cWideStepBytes = 32 * kCrc32cLaneBytes;

/// table[k][b]: the raw CRC of byte b followed by k zero bytes, k < 16 (the first 8 are the
/// slicing-by-8 tables of crc32c_table.hpp); step[i][b]: (b << 8 i) * x^(8 (kCrc32cWideStepBytes
/// - 16)) mod P, so that a register times that power costs 4 lookups.
struct Crc32cWideTables {
  uint32_t table[16][256];
  uint32_t step[4][256];
};

/// The tables for the wide scheme (serial; the kernels build the same tables cooperatively).
CUZARR_HOST_DEVICE inline void make_crc32c_wide_tables(Crc32cWideTables& t) {
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32cPolynomial : c >> 1;
    t.table[0][b] = c;
  }
  for (int k = 1; k < 16; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      t.table[k][b] = (t.table[k - 1][b] >> 8) ^ t.table[0][t.table[k - 1][b] & 0xFFu];
    }
  }
  const uint32_t factor = crc32c_x_pow_8n(kCrc32cWideStepBytes - 16);
  for (uint32_t x = 0; x < 4 * 256; ++x) {
    t.step[x / 256][x % 256] = crc32c_multiply((x % 256) << (8 * (x / 256)), factor);
  }
}

/// The raw register after the 16 bytes (w0..w3 little-endian) from register r.
CUZARR_HOST_DEVICE inline uint32_t crc32c_update16(const uint32_t (*t)[256], uint32_t r,
                                                   uint32_t w0, uint32_t w1, uint32_t w2,
                                                   uint32_t w3) {
  w0 ^= r;
  return t[15][w0 & 0xFF] ^ t[14][(w0 >> 8) & 0xFF] ^ t[13][(w0 >> 16) & 0xFF] ^ t[12][w0 >> 24] ^
         t[11][w1 & 0xFF] ^ t[10][(w1 >> 8) & 0xFF] ^ t[9][(w1 >> 16) & 0xFF] ^ t[8][w1 >> 24] ^
         t[7][w2 & 0xFF] ^ t[6][(w2 >> 8) & 0xFF] ^ t[5][(w2 >> 16) & 0xFF] ^ t[4][w2 >> 24] ^
         t[3][w3 & 0xFF] ^ t[2][(w3 >> 8) & 0xFF] ^ t[1][(w3 >> 16) & 0xFF] ^ t[0][w3 >> 24];
}

/// r * x^(8 (kCrc32cWideStepBytes - 16)) mod P with the step tables.
CUZARR_HOST_DEVICE inline uint32_t crc32c_times_wide_step(const uint32_t (*step)[256], uint32_t r) {
  return step[0][r & 0xFF] ^ step[1][(r >> 8) & 0xFF] ^ step[2][(r >> 16) & 0xFF] ^
         step[3][r >> 24];
}

/// Steps [first, last) of warp `warp` of `warps`, and whether it also takes the tail.
CUZARR_HOST_DEVICE inline Crc32cWarpRange crc32c_wide_warp_range(uint64_t n, uint64_t warp,
                                                                 uint64_t warps) {
  const uint64_t steps = n / kCrc32cWideStepBytes;
  const uint64_t per_warp = (steps + warps - 1) / warps;
  Crc32cWarpRange r;
  r.first = warp * per_warp < steps ? warp * per_warp : steps;
  r.last = r.first + per_warp < steps ? r.first + per_warp : steps;
  const uint64_t tail_owner = steps == 0 ? 0 : (steps - 1) / per_warp;
  r.owns_tail = warp == tail_owner && n > steps * kCrc32cWideStepBytes;
  return r;
}

/// Bytes between the end of lane `lane`'s last word (in step last - 1) and the end of the chunk.
CUZARR_HOST_DEVICE inline uint64_t crc32c_wide_lane_shift(uint64_t n, uint64_t last,
                                                          unsigned lane) {
  return n - ((last - 1) * kCrc32cWideStepBytes + kCrc32cLaneBytes * lane + kCrc32cLaneBytes);
}

}  // namespace cuzarr::gpu
