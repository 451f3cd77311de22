// CRC-32C (Castagnoli) pieces shared by the CPU tests and the GPU kernels: slicing-by-8 tables,
// the raw register update, and GF(2) arithmetic modulo the polynomial to combine the CRCs of
// consecutive pieces computed independently.
//
// With the raw update f(r, D) (no pre/post inversion), f(r, D) = r * x^(8|D|) + f(0, D) mod P in
// the reflected representation, so for D = D_1 ... D_m:
//   crc32c(D) = ~( ~0 * x^(8|D|)  xor  XOR_i f(0, D_i) * x^(8 * (bytes after D_i)) ).
// Every piece is independent; the products are XOR-combined in any order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/reflected_crc32.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kCrc32cPolynomial = 0x82F63B78u;  // reflected 0x1EDC6F41

/// table[k][b]: the raw CRC of byte b followed by k zero bytes (slicing-by-8).
using Crc32cTables = CrcSliceTables;

CUZARR_HOST_DEVICE constexpr Crc32cTables make_crc32c_tables() {
  return make_crc_slice_tables(kCrc32cPolynomial);
}

/// The raw register after `n` bytes at `p`, from register `r` (tables: any memory space).
CUZARR_HOST_DEVICE inline uint32_t crc32c_update(uint32_t r, const unsigned char* p, uint64_t n,
                                                 const uint32_t (*table)[256]) {
  return crc_slice_update(r, p, n, table);
}

/// a * b mod P, both reflected (bit 31 is x^0).
CUZARR_HOST_DEVICE constexpr uint32_t crc32c_multiply(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31;
  uint32_t product = 0;
  while (m != 0) {
    if (a & m) product ^= b;
    m >>= 1;
    b = (b & 1u) ? (b >> 1) ^ kCrc32cPolynomial : b >> 1;  // b *= x
  }
  return product;
}

/// x^(8 n) mod P (reflected): the operator that appends n zero bytes to a raw register.
CUZARR_HOST_DEVICE constexpr uint32_t crc32c_x_pow_8n(uint64_t n) {
  uint32_t result = 1u << 31;  // x^0
  uint32_t base = 1u << 23;    // x^8
  while (n != 0) {
    if (n & 1u) result = crc32c_multiply(result, base);
    base = crc32c_multiply(base, base);
    n >>= 1;
  }
  return result;
}

/// The raw register `r` followed by n zero bytes.
CUZARR_HOST_DEVICE constexpr uint32_t crc32c_shift(uint32_t r, uint64_t n) {
  return crc32c_multiply(r, crc32c_x_pow_8n(n));
}

/// pow2[k] = x^(8 * 2^k) mod P for k < 64: with it, a shift by n bytes costs one multiplication per
/// set bit of n (crc32c_shift_by_powers).
struct Crc32cPowers {
  uint32_t pow2[64];
};

CUZARR_HOST_DEVICE constexpr Crc32cPowers make_crc32c_powers() {
  Crc32cPowers p{};
  uint32_t x = 1u << 23;  // x^8
  for (int k = 0; k < 64; ++k) {
    p.pow2[k] = x;
    x = crc32c_multiply(x, x);
  }
  return p;
}

/// crc32c_shift(r, n) with a table of make_crc32c_powers() (in any memory space).
CUZARR_HOST_DEVICE inline uint32_t crc32c_shift_by_powers(uint32_t r, uint64_t n,
                                                          const uint32_t* pow2) {
  for (int k = 0; n != 0; ++k, n >>= 1) {
    if (n & 1u) r = crc32c_multiply(r, pow2[k]);
  }
  return r;
}

// The lane-interleaved scheme of the GPU kernel: the chunk's full steps of 8 * 32 bytes are split
// among `warps` warps; lane l of a warp folds the 8-byte words l, l + 32, ... of its steps as
// r = f(r * x^(8 * (kCrc32cStepBytes - 8)), word), then shifts r by crc32c_lane_shift; the bytes
// after the last full step (the tail) are added by lane 0 of the warp that owns the last step.

inline constexpr uint64_t kCrc32cStepBytes = 8 * 32;

/// Steps [first, last) of warp `warp`, and whether the warp also takes the tail.
struct Crc32cWarpRange {
  uint64_t first = 0;
  uint64_t last = 0;
  bool owns_tail = false;
};

CUZARR_HOST_DEVICE inline Crc32cWarpRange crc32c_warp_range(uint64_t n, uint64_t warp,
                                                            uint64_t warps) {
  const uint64_t steps = n / kCrc32cStepBytes;
  const uint64_t per_warp = (steps + warps - 1) / warps;
  Crc32cWarpRange r;
  r.first = warp * per_warp < steps ? warp * per_warp : steps;
  r.last = r.first + per_warp < steps ? r.first + per_warp : steps;
  const uint64_t tail_owner = steps == 0 ? 0 : (steps - 1) / per_warp;
  r.owns_tail = warp == tail_owner && n > steps * kCrc32cStepBytes;
  return r;
}

/// Bytes between the end of lane `lane`'s last word (in step last - 1) and the end of the chunk.
CUZARR_HOST_DEVICE inline uint64_t crc32c_lane_shift(uint64_t n, uint64_t last, unsigned lane) {
  return n - ((last - 1) * kCrc32cStepBytes + 8 * lane + 8);
}

}  // namespace cuzarr::gpu
