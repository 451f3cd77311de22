// Adler-32 (RFC 1950, section 8.2: the zlib stream's trailer) for the CPU and the GPU: the serial
// checksum and a split form in which pieces of the data are summed independently and combined.
//
// With a = 1 + sum of the bytes and b = sum of the successive values of a (both mod 65521), a
// piece D of n bytes contributes s(D) = sum D[i] to a and t(D) = sum (n - i) D[i] to b, and for
// the whole data of N bytes: a = 1 + sum_k s_k, b = N + sum_k (t_k + s_k * (bytes after piece k)).
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kAdlerModulus = 65521;  // the largest prime below 2^16
/// The most bytes summed before a reduction keeps b below 2^32 (zlib's NMAX, RFC 1950 8.2).
inline constexpr uint64_t kAdlerBlock = 5552;

/// The sums (s, t) of one piece, reduced mod 65521.
struct AdlerPiece {
  uint32_t s = 0;
  uint32_t t = 0;
};

/// s and t of n bytes (see above).
CUZARR_HOST_DEVICE inline AdlerPiece adler32_piece(const unsigned char* p, uint64_t n) {
  // Running sums a' = sum D[0..i], b' = sum of those a': b' = t(D) after the last byte.
  uint32_t a = 0, b = 0;
  while (n > 0) {
    const uint64_t step = n < kAdlerBlock ? n : kAdlerBlock;
    for (uint64_t i = 0; i < step; ++i) {
      a += p[i];
      b += a;
    }
    a %= kAdlerModulus;
    b %= kAdlerModulus;
    p += step;
    n -= step;
  }
  return {a, b};
}

/// The Adler-32 of N bytes from the combined contribution (a_part, b_part): a_part = sum s_k,
/// b_part = sum (t_k + s_k * bytes after piece k), both mod 65521.
CUZARR_HOST_DEVICE inline uint32_t adler32_finish(uint32_t a_part, uint32_t b_part, uint64_t n) {
  const uint32_t a = (1 + a_part) % kAdlerModulus;
  const uint32_t b = static_cast<uint32_t>((n % kAdlerModulus + b_part) % kAdlerModulus);
  return b << 16 | a;
}

/// (s * m + t) mod 65521: a piece's contribution to b when m bytes follow it.
CUZARR_HOST_DEVICE inline uint32_t adler32_b_contribution(const AdlerPiece& piece, uint64_t m) {
  return static_cast<uint32_t>((uint64_t{piece.s} * (m % kAdlerModulus) + piece.t) % kAdlerModulus);
}

/// Adler-32 of n bytes.
CUZARR_HOST_DEVICE inline uint32_t adler32(const unsigned char* p, uint64_t n) {
  const AdlerPiece piece = adler32_piece(p, n);
  return adler32_finish(piece.s, piece.t, n);
}

}  // namespace cuzarr::gpu
