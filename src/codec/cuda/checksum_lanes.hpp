// The lane scheme of the warps' CRC-32 and Adler-32 (the gzip and zlib checks of GPU inflate),
// written once for the kernels and for the CPU tests, which run the lanes one after another.
//
// The bytes are read in steps of kChecksumStepBytes: lane l takes the 8-byte word l of every step,
// so that each of the warp's loads is one coalesced 256-byte access. (A contiguous slice per lane
// made every load touch 32 lines 1/32 of the range apart, and the lanes' lines left L1 before
// their next bytes were read.) The bytes before the first 8-byte boundary (the head) and after
// the last full step (the tail) are summed apart.
//
// CRC-32 (crc32_table.hpp; f is the raw register update): lane l folds its words as
//   r = f(r * x^(8 * (kChecksumStepBytes - 8)), word),
// so that r stands for its words, each followed by the rest of its step. Multiplied by
// x^(8 * 8 * (31 - l)) it ends where the last full step ends; the XOR of the lanes is then the
// raw register of the full steps, which the tail continues (crc32_span_finish).
//
// Adler-32 (adler32.hpp): byte i of n contributes D[i] to s and (n - i) * D[i] to t; a word at i
// contributes its byte sum and (n - i - 8) * sum + sum (8 - j) D[i + j], so every lane sums its own
// words, head and tail bytes, and the lanes' sums add up.
#pragma once

#include <cstdint>
#include <cstring>

#include "codec/cuda/adler32.hpp"
#include "codec/cuda/crc32_table.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr unsigned kChecksumLanes = 32;
inline constexpr uint64_t kChecksumWordBytes = 8;
inline constexpr uint64_t kChecksumStepBytes = kChecksumLanes * kChecksumWordBytes;

/// Where the words of a span of n bytes at p lie: `head` bytes before the first 8-byte boundary,
/// then `steps` full steps, then the tail up to n.
struct ChecksumSpan {
  uint64_t head = 0;
  uint64_t steps = 0;
  uint64_t tail_begin = 0;
};

CUZARR_HOST_DEVICE inline ChecksumSpan checksum_span(const unsigned char* p, uint64_t n) {
  ChecksumSpan s;
  const uint64_t misaligned = reinterpret_cast<uintptr_t>(p) % kChecksumWordBytes;
  s.head = misaligned == 0 ? 0 : kChecksumWordBytes - misaligned;
  if (s.head > n) s.head = n;
  s.steps = (n - s.head) / kChecksumStepBytes;
  s.tail_begin = s.head + s.steps * kChecksumStepBytes;
  return s;
}

/// The 8 bytes at an 8-aligned p, little-endian.
CUZARR_HOST_DEVICE inline uint64_t load_aligned_le64(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint64_t*>(p);
#else
  uint64_t w;
  std::memcpy(&w, p, sizeof w);  // little-endian hosts only, as the rest of the codecs
  return w;
#endif
}

// ---------------------------------------------------------------------------------------------
// CRC-32

/// The tables of the lane scheme, in shared memory on the GPU.
struct Crc32LaneTables {
  Crc32Tables slice;                    ///< slicing-by-8 (crc32_table.hpp)
  uint32_t step[4][256];                ///< (b << 8 i) * x^(8 * (kChecksumStepBytes - 8)) mod P
  uint32_t lane_shift[kChecksumLanes];  ///< x^(8 * 8 * (31 - l)) mod P
  uint32_t pow2[64];                    ///< x^(8 * 2^k) mod P, for shifts by any length
};

CUZARR_HOST_DEVICE constexpr uint32_t crc32_x_pow_8n(uint64_t n) {
  return crc32_shift(1u << 31, n);  // bit 31 is x^0
}

/// Entry i of the step, lane-shift and power tables (i < 4 * 256 + 32 + 64), from the
/// multiplication's definition; the slicing tables come from crc32_table.hpp.
CUZARR_HOST_DEVICE constexpr uint32_t crc32_lane_table_entry(uint32_t i, uint32_t step_factor) {
  if (i < 4 * 256) return crc32_multiply((i % 256) << (8 * (i / 256)), step_factor);
  i -= 4 * 256;
  if (i < kChecksumLanes) return crc32_x_pow_8n(kChecksumWordBytes * (kChecksumLanes - 1 - i));
  i -= kChecksumLanes;
  return crc32_x_pow_8n(uint64_t{1} << (i % 64));
}

inline constexpr uint32_t kCrc32LaneEntries = 4 * 256 + kChecksumLanes + 64;

CUZARR_HOST_DEVICE inline uint32_t* crc32_lane_entry_slot(Crc32LaneTables& t, uint32_t i) {
  if (i < 4 * 256) return &t.step[i / 256][i % 256];
  i -= 4 * 256;
  if (i < kChecksumLanes) return &t.lane_shift[i];
  return &t.pow2[i - kChecksumLanes];
}

/// The lane tables, serially (CPU tests).
inline void make_crc32_lane_tables(Crc32LaneTables& t) {
  t.slice = make_crc32_tables();
  const uint32_t factor = crc32_x_pow_8n(kChecksumStepBytes - kChecksumWordBytes);
  for (uint32_t i = 0; i < kCrc32LaneEntries; ++i)
    *crc32_lane_entry_slot(t, i) = crc32_lane_table_entry(i, factor);
}

#if defined(__CUDACC__)
/// make_crc32_lane_tables by the threads of a thread block, into shared memory (every thread
/// calls it: it synchronises the block).
__device__ inline void block_build_crc32_lane_tables(Crc32LaneTables& t) {
  block_build_crc32_tables(t.slice);
  const uint32_t factor = crc32_x_pow_8n(kChecksumStepBytes - kChecksumWordBytes);
  for (uint32_t i = threadIdx.x; i < kCrc32LaneEntries; i += blockDim.x)
    *crc32_lane_entry_slot(t, i) = crc32_lane_table_entry(i, factor);
  __syncthreads();
}
#endif

/// r * x^(8 n) mod P: one multiplication per set bit of n.
CUZARR_HOST_DEVICE inline uint32_t crc32_shift_by_powers(uint32_t r, uint64_t n,
                                                         const Crc32LaneTables& t) {
  for (int k = 0; n != 0; ++k, n >>= 1) {
    if (n & 1u) r = crc32_multiply(r, t.pow2[k]);
  }
  return r;
}

/// Lane `lane`'s register over its words of the full steps, shifted to their end.
CUZARR_HOST_DEVICE inline uint32_t crc32_lane_words(const unsigned char* p, const ChecksumSpan& s,
                                                    unsigned lane, const Crc32LaneTables& t) {
  const unsigned char* word = p + s.head + kChecksumWordBytes * lane;
  const uint32_t(*table)[256] = t.slice.table;
  uint32_t r = 0;
  for (uint64_t k = 0; k < s.steps; ++k, word += kChecksumStepBytes) {
    const uint64_t w = load_aligned_le64(word);
    const uint32_t lo = static_cast<uint32_t>(w) ^ t.step[0][r & 0xFF] ^
                        t.step[1][(r >> 8) & 0xFF] ^ t.step[2][(r >> 16) & 0xFF] ^
                        t.step[3][r >> 24];
    const auto hi = static_cast<uint32_t>(w >> 32);
    r = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
        table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
        table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
  }
  return s.steps == 0 ? 0 : crc32_multiply(r, t.lane_shift[lane]);
}

/// f(0, p[0, n)) from `steps`, the XOR of every lane's crc32_lane_words: the tail continues it,
/// and the head is shifted past everything after it.
CUZARR_HOST_DEVICE inline uint32_t crc32_span_finish(uint32_t steps, const unsigned char* p,
                                                     uint64_t n, const ChecksumSpan& s,
                                                     const Crc32LaneTables& t) {
  uint32_t r = crc32_update(steps, p + s.tail_begin, n - s.tail_begin, t.slice.table);
  if (s.head != 0) {
    r ^= crc32_shift_by_powers(crc32_update(0, p, s.head, t.slice.table), n - s.head, t);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Adler-32

/// Sum of the four bytes of w weighted by the bytes of `weights` (__dp4a on the GPU).
CUZARR_HOST_DEVICE inline uint32_t weighted_byte_sum(uint32_t w, uint32_t weights) {
#if defined(__CUDA_ARCH__)
  return __dp4a(w, weights, 0u);
#else
  uint32_t sum = 0;
  for (int b = 0; b < 4; ++b) sum += (w >> (8 * b) & 0xFFu) * (weights >> (8 * b) & 0xFFu);
  return sum;
#endif
}

/// The contribution of bytes p[begin, end) of n to (s, t), reduced.
CUZARR_HOST_DEVICE inline AdlerPiece adler32_bytes_part(const unsigned char* p, uint64_t begin,
                                                        uint64_t end, uint64_t n) {
  if (end <= begin) return {};
  const AdlerPiece piece = adler32_piece(p + begin, end - begin);
  return {piece.s, adler32_b_contribution(piece, n - end)};
}

/// Lane `lane`'s part of (s, t) of n bytes: its words of the full steps and of the tail, and
/// for lane 0 the head. The lanes' parts add up to adler32_piece(p, n) (mod 65521).
CUZARR_HOST_DEVICE inline AdlerPiece adler32_lane_part(const unsigned char* p, uint64_t n,
                                                       const ChecksumSpan& s, unsigned lane) {
  uint64_t a = 0, b = 0;
  if (s.steps != 0) {
    const uint64_t first = s.head + kChecksumWordBytes * lane;
    // (bytes after the lane's word) mod 65521, one step less each time
    uint32_t after = static_cast<uint32_t>((n - first - kChecksumWordBytes) % kAdlerModulus);
    constexpr uint32_t kStep = kChecksumStepBytes % kAdlerModulus;
    const unsigned char* word = p + first;
    for (uint64_t k = 0; k < s.steps; ++k, word += kChecksumStepBytes) {
      const uint64_t w = load_aligned_le64(word);
      const auto lo = static_cast<uint32_t>(w), hi = static_cast<uint32_t>(w >> 32);
      const uint32_t sum = weighted_byte_sum(lo, 0x01010101u) + weighted_byte_sum(hi, 0x01010101u);
      // bytes 0..7 of the word weigh 8..1
      const uint32_t weighted =
          weighted_byte_sum(lo, 0x05060708u) + weighted_byte_sum(hi, 0x01020304u);
      a += sum;
      b += uint64_t{after} * sum + weighted;  // < 2^28 a word: no overflow below 2^36 steps
      after = after >= kStep ? after - kStep : after + kAdlerModulus - kStep;
    }
  }
  const uint64_t tail = s.tail_begin + kChecksumWordBytes * lane;
  const uint64_t tail_end = tail + kChecksumWordBytes < n ? tail + kChecksumWordBytes : n;
  const AdlerPiece t = adler32_bytes_part(p, tail, tail_end, n);
  a += t.s;
  b += t.t;
  if (lane == 0) {
    const AdlerPiece h = adler32_bytes_part(p, 0, s.head, n);
    a += h.s;
    b += h.t;
  }
  return {static_cast<uint32_t>(a % kAdlerModulus), static_cast<uint32_t>(b % kAdlerModulus)};
}

}  // namespace cuzarr::gpu
