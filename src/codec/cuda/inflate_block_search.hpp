// Finding deflate block boundaries without decoding what comes before them, for block-parallel
// inflate (inflate_block_parallel.hpp; docs/gpu_deflate.md, "Block-parallel inflate"). A bit
// offset is a candidate when a non-final dynamic-Huffman block header starts there that the
// decoder itself would accept. On the benchmark fields this finds every true boundary of a
// dynamic block and nothing else (bench/deflate_block_search.cpp); a false candidate is caught
// later anyway, when the decoding of the stream before it does not arrive there.
#pragma once

#include <cstdint>

#include "codec/cuda/deflate_bit_reader.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

namespace detail {

/// Kraft's inequality for a code given as counts[1..max] of codes per length: the code space
/// left over (negative: over-subscribed).
CUZARR_HOST_DEVICE inline int32_t kraft_left(const uint16_t* counts, uint32_t max_length) {
  int32_t left = 1;
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= max_length; ++len) {
    left = 2 * left - counts[len];
    if (left < 0) return left;
  }
  return left;
}

/// Whether build_huffman(.., allow_single_code = true) accepts a code with these counts: not
/// over-subscribed, and complete unless it is empty or a single 1-bit code.
CUZARR_HOST_DEVICE inline bool deflate_code_accepted(const uint16_t* counts) {
  const int32_t left = kraft_left(counts, kHuffmanMaxBits);
  if (left < 0) return false;
  uint32_t used = 0;
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= kHuffmanMaxBits; ++len) used += counts[len];
  return left == 0 || used == 0 || (used == 1 && counts[1] == 1);
}

}  // namespace detail

/// The stream's bits from `bit` on, in bits 0..56 of the result at least (zero bits past the
/// input).
CUZARR_HOST_DEVICE inline uint64_t deflate_bits_at(const unsigned char* in, uint64_t size,
                                                   uint64_t bit) {
  const uint64_t byte = bit / 8;
  uint64_t v = 0;
  for (uint32_t i = 0; i < 8; ++i) v |= uint64_t{byte + i < size ? in[byte + i] : 0u} << (8 * i);
  return v >> (bit % 8);
}

/// inflate_dynamic_header_may_start with the stream's bits from `bit` already in `head` (at least
/// 57 of them, zero bits past the input).
CUZARR_HOST_DEVICE inline bool inflate_dynamic_header_may_start_at(const unsigned char* in,
                                                                   uint64_t size, uint64_t bit,
                                                                   uint64_t head) {
  if (bit >= size * 8 || (head & 7u) != 4) return false;  // BFINAL 0, BTYPE 2: bits 0, 1, 0
  const uint32_t hlit = static_cast<uint32_t>(head >> 3 & 31u) + 257;
  const uint32_t hdist = static_cast<uint32_t>(head >> 8 & 31u) + 1;
  const uint32_t hclen = static_cast<uint32_t>(head >> 13 & 15u) + 4;
  if (hlit > kDeflateMaxLitLenCodes || hdist > kDeflateMaxDistanceCodes) return false;
  // Code length code lengths 0..12 are head's bits 17..55; the rest start at bit 56.
  const uint64_t tail = hclen > 13 ? deflate_bits_at(in, size, bit + 56) : 0;
  uint32_t sum = 0;  // in units of 2^-7 (lengths are at most 7 bits)
  for (uint32_t k = 0; k < hclen; ++k) {
    const uint32_t length =
        static_cast<uint32_t>(k < 13 ? head >> (17 + 3 * k) : tail >> (3 * (k - 13))) & 7u;
    sum += length != 0 ? 128u >> length : 0u;
  }
  return sum == 128;
}

/// A necessary condition of inflate_dynamic_header_at from the header's first 17 + 3 x 19 bits,
/// in registers: BFINAL 0 and BTYPE 2, HLIT and HDIST within 286 and 30, and a complete code
/// length code (RFC 1951, 3.2.7: its lengths' 2^-length sum to exactly 1). Few offsets of a
/// compressed stream pass it (about 1 in 2300 in InflateBlockSearch's streams), so a warp tests
/// many offsets with it and the full test runs only on those that pass.
CUZARR_HOST_DEVICE inline bool inflate_dynamic_header_may_start(const unsigned char* in,
                                                                uint64_t size, uint64_t bit) {
  return inflate_dynamic_header_may_start_at(in, size, bit, deflate_bits_at(in, size, bit));
}

/// Whether a non-final dynamic-Huffman block header that read_dynamic_codes accepts starts at
/// stream bit `bit` of in[0, size): BFINAL 0 and BTYPE 2 (RFC 1951, 3.2.3), HLIT and HDIST
/// within 286 and 30, a complete code length code, run-length coded lengths within HLIT + HDIST
/// (3.2.7), an end-of-block code, and literal/length and distance codes build_huffman accepts,
/// all inside the input. Builds no tables (a canonical decode of the code length code, Kraft
/// sums for the others), so that every lane of a GPU warp can test its own offset.
CUZARR_HOST_DEVICE inline bool inflate_dynamic_header_at(const unsigned char* in, uint64_t size,
                                                         uint64_t bit) {
  if (bit >= size * 8) return false;
  DeflateBitReader bits;
  bits.seek_bit(in, size, bit);
  if (bits.peek(3) != 4) return false;  // BFINAL 0, BTYPE 2: bits 0, 1, 0 least significant first
  bits.consume(3);
  const uint32_t hlit = bits.bits(5) + 257;
  const uint32_t hdist = bits.bits(5) + 1;
  const uint32_t hclen = bits.bits(4) + 4;
  if (hlit > kDeflateMaxLitLenCodes || hdist > kDeflateMaxDistanceCodes) return false;
  constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  uint8_t cl_lengths[19] = {};
  uint16_t cl_counts[kCodeLengthFastBits + 1] = {};
  CUZARR_NO_UNROLL
  for (uint32_t k = 0; k < hclen; ++k) {
    const uint32_t len = bits.bits(3);
    cl_lengths[kOrder[k]] = static_cast<uint8_t>(len);
    ++cl_counts[len];
  }
  cl_counts[0] = 0;
  // The code length code must be complete (read_dynamic_codes: no single-code exception).
  if (detail::kraft_left(cl_counts, kCodeLengthFastBits) != 0) return false;
  // Its symbols in canonical order (RFC 1951, 3.2.2): by length, then by value.
  uint8_t offsets[kCodeLengthFastBits + 2] = {};
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= kCodeLengthFastBits; ++len)
    offsets[len + 1] = static_cast<uint8_t>(offsets[len] + cl_counts[len]);
  uint8_t sorted[19];
  CUZARR_NO_UNROLL
  for (uint32_t s = 0; s < 19; ++s) {
    if (cl_lengths[s] != 0) sorted[offsets[cl_lengths[s]]++] = static_cast<uint8_t>(s);
  }
  uint16_t litlen_counts[kHuffmanMaxBits + 1] = {};
  uint16_t distance_counts[kHuffmanMaxBits + 1] = {};
  const uint32_t total = hlit + hdist;
  uint32_t i = 0, previous = 0;
  bool end_of_block = false;
  while (i < total) {
    // One code of the code length code, its bits read first-bit-first (3.1.1): the first length
    // whose canonical range holds the code read so far.
    bits.ensure(kCodeLengthFastBits + 7);
    const uint32_t peeked = bits.peek(kCodeLengthFastBits);
    uint32_t code = 0, first = 0, index = 0, symbol = 19;
    CUZARR_NO_UNROLL
    for (uint32_t len = 1; len <= kCodeLengthFastBits; ++len) {
      code |= (peeked >> (len - 1)) & 1u;
      if (code - first < cl_counts[len]) {
        symbol = sorted[index + code - first];
        bits.consume(len);
        break;
      }
      index += cl_counts[len];
      first = (first + cl_counts[len]) << 1;
      code <<= 1;
    }
    if (symbol >= 19) return false;  // unreachable: a complete code decodes every 7 bits
    uint32_t value = symbol, repeat = 1;
    if (symbol == 16) {  // the previous length 3..6 times; there must be one
      if (i == 0) return false;
      value = previous;
      repeat = 3 + bits.bits(2);
    } else if (symbol == 17) {
      value = 0;
      repeat = 3 + bits.bits(3);
    } else if (symbol == 18) {
      value = 0;
      repeat = 11 + bits.bits(7);
    }
    if (repeat > total - i) return false;  // repeats never pass HLIT + HDIST (3.2.7)
    if (value != 0) {
      // Symbols i .. i + repeat - 1 get the length: those below hlit are literal/length symbols.
      const uint32_t litlen = i < hlit ? (hlit - i < repeat ? hlit - i : repeat) : 0;
      litlen_counts[value] = static_cast<uint16_t>(litlen_counts[value] + litlen);
      distance_counts[value] = static_cast<uint16_t>(distance_counts[value] + repeat - litlen);
      end_of_block = end_of_block || (i <= kDeflateEndOfBlock && kDeflateEndOfBlock < i + repeat);
    }
    previous = value;
    i += repeat;
  }
  if (bits.overrun() || !end_of_block) return false;
  return detail::deflate_code_accepted(litlen_counts) &&
         detail::deflate_code_accepted(distance_counts);
}

}  // namespace cuzarr::gpu
