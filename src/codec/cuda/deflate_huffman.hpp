// Canonical Huffman codes of deflate (RFC 1951, section 3.2.2), for the CPU and the GPU: a
// decoding table built from a list of code lengths, and symbol decoding from a
// DeflateBitReader.
//
// Decoding is table-driven: the next kFastBits bits of the stream (10 for literal/length codes,
// 9 for distance codes, 7 for the code length code) index a primary table that gives the symbol
// and the code length of every code of at most that many bits. Longer codes (rare: they belong
// to rare symbols) fall back to a canonical search over the lengths kFastBits + 1 .. 15, using the
// first code and the symbol count of each length.
#pragma once

#include <cstdint>

#include "codec/cuda/deflate_bit_reader.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kHuffmanMaxBits = 15;   ///< RFC 1951, 3.2.2: codes of 1..15 bits
inline constexpr uint32_t kHuffmanFastBits = 10;  ///< literal/length bits of the primary table
inline constexpr uint32_t kHuffmanMaxSymbols = 288;
/// Distance bits of the primary table. A distance code has 30 symbols, so codes of more than 9
/// bits are rare; a 9-bit table (2 KiB) instead of 10 (4 KiB) leaves GPU shared memory for more
/// decoding warps an SM (docs/gpu_deflate.md, "Smaller distance tables").
inline constexpr uint32_t kDistanceFastBits = 9;
inline constexpr uint32_t kDistanceMaxSymbols = 32;  ///< 30 valid; the fixed code has 32
/// Primary table bits of the code length code (its codes have at most 7 bits, RFC 1951 3.2.7).
inline constexpr uint32_t kCodeLengthFastBits = 7;
inline constexpr uint32_t kCodeLengthSymbols = 19;

// RFC 1951, 3.2.5: the base lengths and extra bits of the length symbols 257..285 (index
// i = symbol - 257) and of the distance symbols 0..29. Both tables follow a pattern (after the
// first 8 lengths / 4 distances, groups of 4 / 2 codes whose extra bits grow by one), computed
// here rather than looked up so that GPU threads need no table in local memory.
CUZARR_HOST_DEVICE inline uint32_t deflate_length_extra(uint32_t i) {
  return i < 8 || i == 28 ? 0 : i / 4 - 1;
}
CUZARR_HOST_DEVICE inline uint32_t deflate_length_base(uint32_t i) {
  if (i < 8) return 3 + i;
  if (i == 28) return 258;
  return ((4 + i % 4) << deflate_length_extra(i)) + 3;
}
CUZARR_HOST_DEVICE inline uint32_t deflate_distance_extra(uint32_t i) {
  return i < 4 ? 0 : i / 2 - 1;
}
CUZARR_HOST_DEVICE inline uint32_t deflate_distance_base(uint32_t i) {
  if (i < 4) return 1 + i;
  return ((2 + i % 2) << deflate_distance_extra(i)) + 1;
}

/// The alphabet a code is built for: the primary table of a literal/length or distance code also
/// holds each length or distance symbol's base value and extra bit count (RFC 1951, 3.2.5).
enum class HuffmanAlphabet : uint8_t { plain, literal_length, distance };

/// What building a code from code lengths found.
enum class HuffmanBuild : uint8_t {
  ok,
  over_subscribed,  ///< more codes of some lengths than the code space holds
  incomplete,       ///< the code leaves bit patterns unused (and that is not allowed here)
};

/// A decoding table of a code of up to kSymbols symbols whose primary table resolves kFastBits
/// bits: no heap, fixed size, built in place by build_huffman.
template <uint32_t kFastBitsOfTable, uint32_t kSymbolsOfTable>
struct HuffmanCode {
  static constexpr uint32_t kFastBits = kFastBitsOfTable;
  static constexpr uint32_t kSymbols = kSymbolsOfTable;
  static_assert(kFastBits >= 1 && kFastBits <= kHuffmanMaxBits);
  /// fast[b]: the entry of the code that the next kFastBits stream bits b start with; 0 when the
  /// code is longer (or no code starts that way). Entry bits: 0..3 the code length, 4..12 the
  /// symbol, 13..16 the extra bit count and 17..31 the base value of a length or distance symbol
  /// (0 for other symbols and plain codes).
  uint32_t fast[1u << kFastBits];
  uint16_t count[kHuffmanMaxBits + 1];        ///< codes of each length
  uint16_t first_code[kHuffmanMaxBits + 1];   ///< the canonical first code of each length
  uint16_t first_index[kHuffmanMaxBits + 1];  ///< index in `symbols` of that length's first
  uint16_t symbols[kSymbols];                 ///< used symbols ordered by (length, value)
};

/// A literal/length code (about 4.7 KiB).
using HuffmanTable = HuffmanCode<kHuffmanFastBits, kHuffmanMaxSymbols>;
/// A distance code (about 2.2 KiB).
using DistanceTable = HuffmanCode<kDistanceFastBits, kDistanceMaxSymbols>;
/// The code length code of a dynamic block header (about 0.6 KiB).
using CodeLengthTable = HuffmanCode<kCodeLengthFastBits, kCodeLengthSymbols>;

/// The parts of a primary table entry.
CUZARR_HOST_DEVICE inline uint32_t huffman_entry_bits(uint32_t e) { return e & 15u; }
CUZARR_HOST_DEVICE inline uint32_t huffman_entry_symbol(uint32_t e) { return (e >> 4) & 0x1FFu; }
CUZARR_HOST_DEVICE inline uint32_t huffman_entry_extra(uint32_t e) { return (e >> 13) & 15u; }
CUZARR_HOST_DEVICE inline uint32_t huffman_entry_base(uint32_t e) { return e >> 17; }

/// The primary table entry of `symbol` with a code of `length` bits.
CUZARR_HOST_DEVICE inline uint32_t huffman_entry(uint32_t symbol, uint32_t length,
                                                 HuffmanAlphabet alphabet) {
  uint32_t base = 0, extra = 0;
  if (alphabet == HuffmanAlphabet::literal_length && symbol >= 257 && symbol <= 285) {
    base = deflate_length_base(symbol - 257);
    extra = deflate_length_extra(symbol - 257);
  } else if (alphabet == HuffmanAlphabet::distance && symbol < 30) {
    base = deflate_distance_base(symbol);
    extra = deflate_distance_extra(symbol);
  }
  return base << 17 | extra << 13 | symbol << 4 | length;
}

/// The low `n` (1..32) bits of `code` in reverse order: Huffman codes are stored most
/// significant bit first in a stream read least significant bit first (RFC 1951, 3.1.1).
CUZARR_HOST_DEVICE inline uint32_t reverse_bits(uint32_t code, uint32_t n) {
#if defined(__CUDA_ARCH__)
  return __brev(code) >> (32 - n);
#else
  uint32_t r = 0;
  for (uint32_t k = 0; k < n; ++k) {
    r = (r << 1) | (code & 1u);
    code >>= 1;
  }
  return r;
#endif
}

/// Builds the canonical code of RFC 1951, 3.2.2 from lengths[0..n) (0 = symbol unused; every
/// length must be <= 15, n <= Table::kSymbols). An over-subscribed set is always rejected. An
/// incomplete set is accepted only when `allow_single_code` is set and the code is a single 1-bit
/// code (a block with one distance code, RFC 1951 3.2.7), or when it is empty (then every decode
/// fails); zlib accepts the same sets. `alphabet` fills the length / distance fields of the primary
/// table, whose first 2^fast_bits entries are built (fast_bits <= Table::kFastBits; 0: none, for a
/// caller that fills them itself with huffman_fill_fast).
template <class Table>
CUZARR_HOST_DEVICE inline HuffmanBuild build_huffman(
    Table& t, const uint8_t* lengths, uint32_t n, bool allow_single_code,
    HuffmanAlphabet alphabet = HuffmanAlphabet::plain, uint32_t fast_bits = Table::kFastBits) {
  // Tables are built once per block: the loops stay rolled (CUZARR_NO_UNROLL), out of the way
  // of the decoding loops in the instruction cache.
  CUZARR_NO_UNROLL
  for (uint32_t len = 0; len <= kHuffmanMaxBits; ++len) t.count[len] = 0;
  CUZARR_NO_UNROLL
  for (uint32_t s = 0; s < n; ++s) ++t.count[lengths[s]];
  t.count[0] = 0;
  // Kraft: each length doubles the code space; the codes of that length take some of it.
  int32_t left = 1;
  uint32_t used = 0;
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= kHuffmanMaxBits; ++len) {
    left = 2 * left - t.count[len];
    if (left < 0) return HuffmanBuild::over_subscribed;
    used += t.count[len];
  }
  if (left > 0 && used > 0 && !(allow_single_code && used == 1 && t.count[1] == 1)) {
    return HuffmanBuild::incomplete;
  }
  // Step 2 of 3.2.2: the first code of each length; and where each length's symbols start.
  uint32_t code = 0, index = 0;
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= kHuffmanMaxBits; ++len) {
    code = (code + (len > 1 ? t.count[len - 1] : 0)) << 1;
    t.first_code[len] = static_cast<uint16_t>(code);
    t.first_index[len] = static_cast<uint16_t>(index);
    index += t.count[len];
  }
  t.first_code[0] = 0;
  t.first_index[0] = 0;
  // Step 3: consecutive codes within a length, in symbol order.
  uint16_t next[kHuffmanMaxBits + 1];
  CUZARR_NO_UNROLL
  for (uint32_t len = 0; len <= kHuffmanMaxBits; ++len) next[len] = t.first_index[len];
  CUZARR_NO_UNROLL
  for (uint32_t s = 0; s < n; ++s) {
    if (lengths[s] != 0) t.symbols[next[lengths[s]]++] = static_cast<uint16_t>(s);
  }
  if (fast_bits == 0) return HuffmanBuild::ok;
  CUZARR_NO_UNROLL
  for (uint32_t b = 0; b < (1u << fast_bits); ++b) t.fast[b] = 0;
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= fast_bits; ++len) {
    for (uint32_t k = 0; k < t.count[len]; ++k) {
      const uint32_t symbol = t.symbols[t.first_index[len] + k];
      const uint32_t entry = huffman_entry(symbol, len, alphabet);
      for (uint32_t b = reverse_bits(t.first_code[len] + k, len); b < (1u << fast_bits);
           b += 1u << len) {
        t.fast[b] = entry;
      }
    }
  }
  return HuffmanBuild::ok;
}

/// The primary table entry for the stream bits `b` (Table::kFastBits of them, the next one in bit
/// 0): the code they start with, found by a canonical search over the lengths, as build_huffman
/// would have filled it.
template <class Table>
CUZARR_HOST_DEVICE inline uint32_t huffman_fast_entry(const Table& t, uint32_t b,
                                                      HuffmanAlphabet alphabet) {
  // A code is stored most significant bit first: the first `len` stream bits reversed are the
  // top `len` of the kFastBits bits reversed.
  constexpr uint32_t kFastBits = Table::kFastBits;
  const uint32_t reversed = reverse_bits(b, kFastBits);
  CUZARR_NO_UNROLL
  for (uint32_t len = 1; len <= kFastBits; ++len) {
    const uint32_t code = reversed >> (kFastBits - len);
    const uint32_t offset = code - t.first_code[len];  // wraps above count when code < first
    if (offset < t.count[len]) {
      return huffman_entry(t.symbols[t.first_index[len] + offset], len, alphabet);
    }
  }
  return 0;
}

/// Fills the primary table entries first, first + step, ... of a table built with fast_bits 0
/// (by several threads, each with its own `first`).
template <class Table>
CUZARR_HOST_DEVICE inline void huffman_fill_fast(Table& t, HuffmanAlphabet alphabet, uint32_t first,
                                                 uint32_t step) {
  CUZARR_NO_UNROLL
  for (uint32_t b = first; b < (1u << Table::kFastBits); b += step) {
    t.fast[b] = huffman_fast_entry(t, b, alphabet);
  }
}

/// The symbol and length (symbol << 4 | length) of the code of more than Table::kFastBits bits
/// that the next 15 stream bits `next15` start with (canonical search over the lengths), or -1.
/// Not inlined on the GPU: long codes are rare, and the decoding loops stay small.
template <class Table>
CUZARR_HOST_DEVICE CUZARR_NOINLINE inline int32_t huffman_decode_long(const Table& t,
                                                                      uint32_t next15) {
  const uint32_t code15 = reverse_bits(next15, kHuffmanMaxBits);
  CUZARR_NO_UNROLL
  for (uint32_t len = Table::kFastBits + 1; len <= kHuffmanMaxBits; ++len) {
    const uint32_t code = code15 >> (kHuffmanMaxBits - len);
    const uint32_t offset = code - t.first_code[len];  // wraps above count when code < first
    if (offset < t.count[len]) {
      return static_cast<int32_t>(uint32_t{t.symbols[t.first_index[len] + offset]} << 4 | len);
    }
  }
  return -1;
}

/// Decodes one symbol. The reader must hold at least 15 bits (refill first). Returns -1 when no
/// code matches the stream (an incomplete or empty code), consuming nothing.
template <class Table>
CUZARR_HOST_DEVICE inline int32_t huffman_decode(const Table& t, DeflateBitReader& bits) {
  const uint32_t entry = t.fast[bits.peek(Table::kFastBits)];
  if (entry != 0) {
    bits.consume(huffman_entry_bits(entry));
    return static_cast<int32_t>(huffman_entry_symbol(entry));
  }
  const int32_t found = huffman_decode_long(t, bits.peek(kHuffmanMaxBits));
  if (found < 0) return -1;
  bits.consume(static_cast<uint32_t>(found) & 15u);
  return found >> 4;
}

}  // namespace cuzarr::gpu
