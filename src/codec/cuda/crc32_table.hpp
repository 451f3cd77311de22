// CRC-32 (the ISO-HDLC / IEEE 802.3 CRC of gzip, RFC 1952 section 8) for the CPU and the GPU:
// slicing-by-8 tables, the raw register update, and GF(2) arithmetic modulo the polynomial to
// combine the CRCs of consecutive pieces computed independently (as crc32c_table.hpp does for
// CRC-32C): with the raw update f(r, D) = r * x^(8|D|) + f(0, D) mod P,
//   crc32(D_1 ... D_m) = ~( ~0 * x^(8|D|)  xor  XOR_i f(0, D_i) * x^(8 * (bytes after D_i)) ).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kCrc32Polynomial = 0xEDB88320u;  // reflected 0x04C11DB7

/// table[k][b]: the raw CRC of byte b followed by k zero bytes (slicing-by-8).
struct Crc32Tables {
  uint32_t table[8][256];
};

CUZARR_HOST_DEVICE constexpr Crc32Tables make_crc32_tables() {
  Crc32Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32Polynomial : c >> 1;
    t.table[0][b] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      t.table[k][b] = (t.table[k - 1][b] >> 8) ^ t.table[0][t.table[k - 1][b] & 0xFFu];
    }
  }
  return t;
}

#if defined(__CUDACC__)
/// make_crc32_tables by the threads of a thread block (every thread calls it: it synchronises the
/// block), into shared memory.
__device__ inline void block_build_crc32_tables(Crc32Tables& t) {
  for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32Polynomial : c >> 1;
    t.table[0][b] = c;
  }
  __syncthreads();
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
      t.table[k][b] = (t.table[k - 1][b] >> 8) ^ t.table[0][t.table[k - 1][b] & 0xFFu];
    }
    __syncthreads();
  }
}
#endif

/// The raw register after `n` bytes at `p`, from register `r` (tables: any memory space).
CUZARR_HOST_DEVICE inline uint32_t crc32_update(uint32_t r, const unsigned char* p, uint64_t n,
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
