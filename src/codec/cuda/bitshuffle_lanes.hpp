// The per-lane work of the fast GPU bit shuffle (the layout of bitshuffle_format.hpp), written
// once for the CPU tests and the kernels.
//
// A warp step covers 1024 elements: lane l owns elements 32 l .. 32 l + 31 of the step, that is
// bytes 4 l .. 4 l + 3 of every bit-row segment of the step (row r holds bit r % 8 of byte r / 8
// of each element, one bit per element, LSB first). A lane therefore touches one 32-bit word per
// row, and the 32 lanes of a warp read / write 128 contiguous bytes of a row at once. Inside the
// lane, each group of 8 elements and byte j of the type is an 8x8 bit matrix (the 8 rows 8 j + k,
// one byte of each) that transpose_bits_8x8 turns into byte j of the 8 elements. The lane's 32
// elements (32 * TS bytes) are kept as 8 * TS little-endian words; the kernels move them through
// shared memory (bitshuffle_stage_index) so that the element side is read / written contiguously.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuzarr/core/host_device.hpp"

// Loops over compile-time bounds whose arrays must stay in registers are unrolled on the device.
#ifdef __CUDA_ARCH__
#define CUZARR_UNROLL_ON_DEVICE _Pragma("unroll")
#else
#define CUZARR_UNROLL_ON_DEVICE
#endif

namespace cuzarr::gpu {

/// Elements per lane and per warp step, and the row bytes a lane owns.
inline constexpr uint32_t kBitshuffleLaneElements = 32;
inline constexpr uint32_t kBitshuffleStepElements = 32 * kBitshuffleLaneElements;
inline constexpr uint32_t kBitshuffleLaneColumns = kBitshuffleLaneElements / 8;

/// Transposes the 8x8 bit matrix in x (bit 8 r + c is row r, column c): bit 8 r + c of the result
/// is bit 8 c + r of x. Three rounds of swaps of 1x1, 2x2 and 4x4 blocks; its own inverse.
CUZARR_HOST_DEVICE inline uint64_t transpose_bits_8x8(uint64_t x) {
  uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x ^= t ^ (t << 28);
  return x;
}

/// The row bytes of lane `lane` in warp step `step` of a block whose rows are `row_bytes` long:
/// [column, column + columns), columns in 0..4 (0 when the lane is past the end).
struct BitshuffleLaneSpan {
  uint64_t column = 0;
  uint32_t columns = 0;
};

CUZARR_HOST_DEVICE inline BitshuffleLaneSpan bitshuffle_lane_span(uint64_t row_bytes, uint64_t step,
                                                                  unsigned lane) {
  BitshuffleLaneSpan s;
  s.column = step * (kBitshuffleStepElements / 8) + uint64_t{lane} * kBitshuffleLaneColumns;
  if (s.column < row_bytes) {
    const uint64_t left = row_bytes - s.column;
    s.columns =
        static_cast<uint32_t>(left < kBitshuffleLaneColumns ? left : kBitshuffleLaneColumns);
  }
  return s;
}

/// Where word w of a warp step's elements (8 * TS words per lane, lanes one after the other) lives
/// in the warp's staging area of bitshuffle_stage_words<TS>() words: each lane's words are padded
/// by one so that the lanes' accesses to their own word i fall in 32 different shared-memory banks.
template <uint32_t TS>
CUZARR_HOST_DEVICE constexpr uint32_t bitshuffle_stage_index(uint32_t w) {
  return w / (8 * TS) * (8 * TS + 1) + w % (8 * TS);
}
template <uint32_t TS>
CUZARR_HOST_DEVICE constexpr uint32_t bitshuffle_stage_words() {
  return 32 * (8 * TS + 1);
}

/// Bytes [0, count) of a row as a little-endian word; `wide`: p is 4-byte aligned and count is 4.
CUZARR_HOST_DEVICE inline uint32_t bitshuffle_load_row(const unsigned char* p, uint32_t count,
                                                       bool wide) {
#ifdef __CUDA_ARCH__
  if (wide) return *reinterpret_cast<const uint32_t*>(p);
#else
  (void)wide;
#endif
  uint32_t v = 0;
  for (uint32_t b = 0; b < count; ++b) v |= uint32_t{p[b]} << (8 * b);
  return v;
}
CUZARR_HOST_DEVICE inline void bitshuffle_store_row(unsigned char* p, uint32_t v, uint32_t count,
                                                    bool wide) {
#ifdef __CUDA_ARCH__
  if (wide) {
    *reinterpret_cast<uint32_t*>(p) = v;
    return;
  }
#else
  (void)wide;
#endif
  for (uint32_t b = 0; b < count; ++b) p[b] = static_cast<unsigned char>(v >> (8 * b));
}

/// Byte `index` of the lane's element words / sets it (index and TS known after unrolling, so the
/// words stay in registers).
CUZARR_HOST_DEVICE inline unsigned bitshuffle_word_byte(const uint32_t* words, uint32_t index) {
  return (words[index / 4] >> (8 * (index % 4))) & 0xFFu;
}

/// Un-shuffle: from the 8 * TS rows (`rows`: byte 0 of row 0; rows `row_bytes` apart) computes the
/// lane's elements 8 * column .. 8 * (column + columns) - 1 into words[0, 2 * TS * columns) (the
/// other words are zero). `wide`: every row word of the lane is 4-byte aligned and columns is 4.
template <uint32_t TS>
CUZARR_HOST_DEVICE inline void bitunshuffle_lane(const unsigned char* rows, uint64_t row_bytes,
                                                 BitshuffleLaneSpan span, bool wide,
                                                 uint32_t (&words)[8 * TS]) {
  CUZARR_UNROLL_ON_DEVICE
  for (uint32_t i = 0; i < 8 * TS; ++i) words[i] = 0;
  if (span.columns == 0) return;
  CUZARR_UNROLL_ON_DEVICE
  for (uint32_t j = 0; j < TS; ++j) {
    uint32_t w[8];
    CUZARR_UNROLL_ON_DEVICE
    for (uint32_t k = 0; k < 8; ++k) {
      w[k] = bitshuffle_load_row(rows + (uint64_t{j} * 8 + k) * row_bytes + span.column,
                                 span.columns, wide);
    }
    CUZARR_UNROLL_ON_DEVICE
    for (uint32_t q = 0; q < kBitshuffleLaneColumns; ++q) {
      // Row k of the matrix: byte q of row word k (bit c: element 8 q + c's bit k of byte j).
      uint64_t x = 0;
      CUZARR_UNROLL_ON_DEVICE
      for (uint32_t k = 0; k < 8; ++k) x |= uint64_t{(w[k] >> (8 * q)) & 0xFFu} << (8 * k);
      const uint64_t y = transpose_bits_8x8(x);  // byte c: byte j of element 8 q + c
      CUZARR_UNROLL_ON_DEVICE
      for (uint32_t c = 0; c < 8; ++c) {
        const uint32_t index = (8 * q + c) * TS + j;
        words[index / 4] |= static_cast<uint32_t>((y >> (8 * c)) & 0xFFu) << (8 * (index % 4));
      }
    }
  }
  // Columns past the end hold zeros in every row word loaded, so their words stay zero.
}

/// Shuffle: writes the lane's row bytes [column, column + columns) of the 8 * TS rows from its
/// elements 8 * column .. (words as bitunshuffle_lane produces them).
template <uint32_t TS>
CUZARR_HOST_DEVICE inline void bitshuffle_lane(const uint32_t (&words)[8 * TS], unsigned char* rows,
                                               uint64_t row_bytes, BitshuffleLaneSpan span,
                                               bool wide) {
  if (span.columns == 0) return;
  CUZARR_UNROLL_ON_DEVICE
  for (uint32_t j = 0; j < TS; ++j) {
    uint32_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    CUZARR_UNROLL_ON_DEVICE
    for (uint32_t q = 0; q < kBitshuffleLaneColumns; ++q) {
      // Row c of the matrix: byte j of element 8 q + c.
      uint64_t x = 0;
      CUZARR_UNROLL_ON_DEVICE
      for (uint32_t c = 0; c < 8; ++c) {
        x |= uint64_t{bitshuffle_word_byte(words, (8 * q + c) * TS + j)} << (8 * c);
      }
      const uint64_t y = transpose_bits_8x8(x);  // byte k: bit k of the 8 elements' byte j
      CUZARR_UNROLL_ON_DEVICE
      for (uint32_t k = 0; k < 8; ++k) {
        w[k] |= static_cast<uint32_t>((y >> (8 * k)) & 0xFFu) << (8 * q);
      }
    }
    CUZARR_UNROLL_ON_DEVICE
    for (uint32_t k = 0; k < 8; ++k) {
      bitshuffle_store_row(rows + (uint64_t{j} * 8 + k) * row_bytes + span.column, w[k],
                           span.columns, wide);
    }
  }
}

}  // namespace cuzarr::gpu
