// Deflate tokens (RFC 1951, 3.2.5), for the CPU and the GPU: inside a Huffman block the stream
// is a sequence of tokens, each a literal byte, a <length, backward distance> pair or the end of
// the block. Between two tokens the decoder's whole state is the bit position (the block's codes
// are fixed), which is what lets several GPU lanes decode one block from different positions
// (inflate_warp_tokens.cuh).
//
// The cursor decodes one *code* per step: a literal/length code with its extra bits, or a
// distance code with its extra bits. Both are a primary table lookup, the code's bits and extra
// bits consumed, and base + extra as the value, so lanes that decode different kinds of code at
// the same time run the same instructions. The checks that need the output (distances within
// it, lengths within its capacity) and the input's end are the caller's.
#pragma once

#include <cstdint>

#include "codec/cuda/deflate_bit_reader.hpp"
#include "codec/cuda/deflate_huffman.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// What one step of the cursor decoded.
enum class InflateCode : uint8_t {
  literal,       ///< value: the byte
  length,        ///< value: a match length (3..258); its distance code comes next
  match,         ///< value: the distance (1..32768) of the length before
  end_of_block,  ///< the block's end-of-block code
  invalid,       ///< a code no table holds, literal/length 286 or 287, or distance 30 or 31
};

/// A position in a Huffman block's token stream.
struct InflateTokenCursor {
  DeflateBitReader bits;
  uint32_t length = 0;        ///< the length of a match whose distance code comes next (0: none)
  uint32_t match_length = 0;  ///< the length of the match the last InflateCode::match ended

  /// Starts at stream bit `bit` of in[0, size), at a token boundary.
  CUZARR_HOST_DEVICE void seek(const unsigned char* in, uint64_t size, uint64_t bit) {
    bits.seek_bit(in, size, bit);
    length = 0;
  }
  CUZARR_HOST_DEVICE uint64_t position() const { return bits.bit_position(); }
  /// Whether the cursor is between two tokens (not between a length and its distance).
  CUZARR_HOST_DEVICE bool at_token() const { return length == 0; }

  /// Decodes the next code with the codes of `ws`. Bits past the input read as zero: the caller
  /// checks the position against the input.
  CUZARR_HOST_DEVICE InflateCode next(const InflateWorkspace& ws, uint32_t& value) {
    // A code and its extra bits take at most 15 + 13 bits.
    if (bits.count < kHuffmanMaxBits + 13) bits.refill();
    const bool distance = length != 0;
    // The two primary tables differ in size: a select of pointer and width, not of code.
    const uint32_t* fast = distance ? ws.distance.fast : ws.litlen.fast;
    uint32_t entry = fast[bits.peek(distance ? kDistanceFastBits : kHuffmanFastBits)];
    if (entry != 0) {
      bits.consume(huffman_entry_bits(entry));
    } else {  // a code longer than the primary table resolves (rare)
      const int32_t symbol =
          distance ? huffman_decode(ws.distance, bits) : huffman_decode(ws.litlen, bits);
      if (symbol < 0) return InflateCode::invalid;
      entry = huffman_entry(static_cast<uint32_t>(symbol), 0,
                            distance ? HuffmanAlphabet::distance : HuffmanAlphabet::literal_length);
    }
    // RFC 1951, 3.2.5: base values and extra bits (0 for literals and end of block).
    const uint32_t extra = huffman_entry_extra(entry);
    value = huffman_entry_base(entry) + bits.peek(extra);
    bits.consume(extra);
    const uint32_t symbol = huffman_entry_symbol(entry);
    if (distance) {
      if (symbol >= 30) return InflateCode::invalid;
      match_length = length;
      length = 0;
      return InflateCode::match;
    }
    if (symbol < 256) {
      value = symbol;
      return InflateCode::literal;
    }
    if (symbol == kDeflateEndOfBlock) return InflateCode::end_of_block;
    if (symbol > 285) return InflateCode::invalid;
    length = value;
    return InflateCode::length;
  }
};

}  // namespace cuzarr::gpu
