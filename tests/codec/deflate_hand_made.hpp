// Deflate streams written bit by bit for the decoder tests (CPU and GPU): a bit writer in the
// order of RFC 1951, 3.1.1, canonical codes from code lengths (3.2.2), and a stream of dynamic
// blocks whose distance code has codes of every length from 1 to 15 bits, each one used.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/cuda/deflate_huffman.hpp"

namespace cuzarr::test {

/// Writes a deflate bit stream: fields least significant bit first, Huffman codes most
/// significant bit first (RFC 1951, 3.1.1).
class DeflateBitWriter {
 public:
  /// Writes n bits of value; bits past the 32nd are zero padding.
  DeflateBitWriter& bits(uint32_t value, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) put(k < 32 ? (value >> k) & 1u : 0u);
    return *this;
  }
  /// Writes an n-bit Huffman code.
  DeflateBitWriter& code(uint32_t value, uint32_t n) {
    for (uint32_t k = n; k-- > 0;) put((value >> k) & 1u);
    return *this;
  }
  /// A fixed-code literal/length symbol (RFC 1951, 3.2.6).
  DeflateBitWriter& fixed(uint32_t symbol) {
    if (symbol < 144) return code(0x30 + symbol, 8);
    if (symbol < 256) return code(0x190 + symbol - 144, 9);
    if (symbol < 280) return code(symbol - 256, 7);
    return code(0xC0 + symbol - 280, 8);
  }
  std::vector<unsigned char> bytes() const { return out_; }

 private:
  void put(uint32_t bit) {
    if (n_ % 8 == 0) out_.push_back(0);
    out_.back() |= static_cast<unsigned char>(bit << (n_ % 8));
    ++n_;
  }
  std::vector<unsigned char> out_;
  uint64_t n_ = 0;
};

/// The canonical code of every symbol (RFC 1951, 3.2.2, steps 1 to 3); 0 for unused symbols.
inline std::vector<uint32_t> canonical_codes(const std::vector<uint32_t>& lengths) {
  uint32_t count[16] = {}, next[16] = {};
  for (const uint32_t l : lengths) ++count[l];
  count[0] = 0;
  uint32_t code = 0;
  for (uint32_t bits = 1; bits <= 15; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  std::vector<uint32_t> codes(lengths.size(), 0);
  for (size_t s = 0; s < lengths.size(); ++s) {
    if (lengths[s] != 0) codes[s] = next[lengths[s]]++;
  }
  return codes;
}

/// A raw deflate stream and what it decodes to.
struct HandMadeDeflate {
  std::vector<unsigned char> stream;
  std::vector<unsigned char> decoded;
};

/// `blocks` dynamic blocks whose distance code gives symbol k a code of k + 1 bits (k < 15) and
/// symbol 15 one of 15 bits, so that codes longer than any primary table occur. The first block
/// opens with 300 literals; then every block repeats, `groups` times, 16 matches (distance symbol
/// k for k = 0..15, with varying extra bits; lengths 3, and 11 or 12 through a length symbol with
/// an extra bit, overlapping their own output where the distance is shorter) and a literal.
inline HandMadeDeflate long_distance_code_stream(uint32_t blocks, uint32_t groups) {
  // Literal/length code: literals 9 bits, end of block 2, length symbol 257 (3) 3 bits, 258..273
  // 7 bits (265: lengths 11 and 12), none above: 256 / 512 + 1 / 4 + 1 / 8 + 16 / 128 = 1.
  std::vector<uint32_t> litlen(286, 0);
  for (uint32_t s = 0; s < 256; ++s) litlen[s] = 9;
  litlen[256] = 2;
  litlen[257] = 3;
  for (uint32_t s = 258; s <= 273; ++s) litlen[s] = 7;
  // Distance code: 1, 2, ..., 15, 15 bits (complete).
  std::vector<uint32_t> distance(16);
  for (uint32_t k = 0; k < 16; ++k) distance[k] = k < 15 ? k + 1 : 15;
  const std::vector<uint32_t> litlen_codes = canonical_codes(litlen);
  const std::vector<uint32_t> distance_codes = canonical_codes(distance);

  HandMadeDeflate made;
  auto& out = made.decoded;
  DeflateBitWriter w;
  const auto literal = [&](unsigned char byte) {
    w.code(litlen_codes[byte], litlen[byte]);
    out.push_back(byte);
  };
  for (uint32_t b = 0; b < blocks; ++b) {
    // RFC 1951, 3.2.7: BFINAL, BTYPE 2, HLIT 286, HDIST 16, HCLEN 19; the code length code gives
    // the lengths 0..15 a 4-bit code each (complete; its code for length l is l) and 16..18 none.
    w.bits(b + 1 == blocks ? 1 : 0, 1)
        .bits(2, 2)
        .bits(286 - 257, 5)
        .bits(16 - 1, 5)
        .bits(19 - 4, 4);
    constexpr uint32_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
    for (const uint32_t symbol : kOrder) w.bits(symbol < 16 ? 4 : 0, 3);
    for (const uint32_t l : litlen) w.code(l, 4);
    for (const uint32_t l : distance) w.code(l, 4);
    if (b == 0) {
      for (uint32_t i = 0; i < 300; ++i) literal(static_cast<unsigned char>(i * 7 + 3));
    }
    for (uint32_t g = 0; g < groups; ++g) {
      for (uint32_t k = 0; k < 16; ++k) {
        uint32_t length = 3;
        if (k % 2 == 0) {
          w.code(litlen_codes[257], litlen[257]);
        } else {
          w.code(litlen_codes[265], litlen[265]).bits(g % 2, 1);
          length = 11 + g % 2;
        }
        w.code(distance_codes[k], distance[k]);
        const uint32_t extra_bits = gpu::deflate_distance_extra(k);
        const uint32_t extra = extra_bits == 0 ? 0 : (g * 5 + k) % (1u << extra_bits);
        w.bits(extra, extra_bits);
        const uint32_t d = gpu::deflate_distance_base(k) + extra;  // at most 256: after 300 bytes
        for (uint32_t i = 0; i < length; ++i) out.push_back(out[out.size() - d]);
      }
      literal(static_cast<unsigned char>(g * 13 + b));
    }
    w.code(litlen_codes[256], litlen[256]);
  }
  made.stream = w.bytes();
  return made;
}

}  // namespace cuzarr::test
