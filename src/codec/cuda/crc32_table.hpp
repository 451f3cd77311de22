// CRC-32 (the ISO-HDLC / IEEE 802.3 CRC of gzip, RFC 1952 section 8) for the CPU and the GPU:
// slicing-by-8 tables, the raw register update, and GF(2) arithmetic modulo the polynomial to
// combine the CRCs of consecutive pieces computed independently (as crc32c_table.hpp does for
// CRC-32C): with the raw update f(r, D) = r * x^(8|D|) + f(0, D) mod P,
//   crc32(D_1 ... D_m) = ~( ~0 * x^(8|D|)  xor  XOR_i f(0, D_i) * x^(8 * (bytes after D_i)) ).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/reflected_crc32.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kCrc32Polynomial = 0xEDB88320u;  // reflected 0x04C11DB7

/// table[k][b]: the raw CRC of byte b followed by k zero bytes (slicing-by-8).
using Crc32Tables = CrcSliceTables;

CUZARR_HOST_DEVICE constexpr Crc32Tables make_crc32_tables() {
  return make_crc_slice_tables(kCrc32Polynomial);
}

#if defined(__CUDACC__)
/// make_crc32_tables by the threads of a thread block (every thread calls it: it synchronises the
/// block), into shared memory.
__device__ inline void block_build_crc32_tables(Crc32Tables& t) {
  block_build_crc_slice_tables(t, kCrc32Polynomial);
}
#endif

/// The raw register after `n` bytes at `p`, from register `r` (tables: any memory space).
CUZARR_HOST_DEVICE inline uint32_t crc32_update(uint32_t r, const unsigned char* p, uint64_t n,
                                                const uint32_t (*table)[256]) {
  return crc_slice_update(r, p, n, table);
}

/// The CRC-32 of n bytes (pre- and post-inverted, as gzip stores it).
CUZARR_HOST_DEVICE inline uint32_t crc32(const unsigned char* p, uint64_t n,
                                         const uint32_t (*table)[256]) {
  return ~crc32_update(0xFFFFFFFFu, p, n, table);
}

/// a * b mod P, both reflected (bit 31 is x^0).
CUZARR_HOST_DEVICE constexpr uint32_t crc32_multiply(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31;
  uint32_t product = 0;
  CUZARR_NO_UNROLL
  while (m != 0) {
    if (a & m) product ^= b;
    m >>= 1;
    b = (b & 1u) ? (b >> 1) ^ kCrc32Polynomial : b >> 1;  // b *= x
  }
  return product;
}

/// The raw register `r` followed by n zero bytes: r * x^(8 n) mod P.
CUZARR_HOST_DEVICE constexpr uint32_t crc32_shift(uint32_t r, uint64_t n) {
  uint32_t base = 1u << 23;  // x^8
  while (n != 0) {
    if (n & 1u) r = crc32_multiply(r, base);
    base = crc32_multiply(base, base);
    n >>= 1;
  }
  return r;
}

/// crc32 of n bytes from the raw registers f(0, D_i) of its pieces, already shifted to the end
/// and XORed together (`combined`).
CUZARR_HOST_DEVICE constexpr uint32_t crc32_finish(uint32_t combined, uint64_t n) {
  return ~(crc32_shift(0xFFFFFFFFu, n) ^ combined);
}

}  // namespace cuzarr::gpu
