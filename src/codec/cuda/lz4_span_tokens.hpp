// The tokens of an LZ4 span as the lanes of lz4_span_parse.cuh read them, and the span's sizes,
// written once for the GPU parser and the CPU tools that model it (bench/segment_dependence.cpp).
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu::detail {

/// Input bytes each lane starts from: its own segment (one bit of a 64-bit word per position).
/// Segments of 32 bytes (1 KiB spans) decoded the quantized field 1.11x faster at 1 MiB than 64
/// (H200, bench/RESULTS.md), 0.94x at 4 MiB.
inline constexpr uint32_t kLz4SpanSegmentBytes = 32;
/// Input bytes a span covers from its ip: a segment for each of a warp's 32 lanes.
inline constexpr uint32_t kLz4SpanBytes = 32 * kLz4SpanSegmentBytes;
/// Tokens a lane follows past its segment before it gives up meeting another lane's chain (the
/// span then ends where it gave up, if its chain is the true one).
inline constexpr unsigned kLz4SpanOverrunTokens = 48;
/// Tokens a span takes at most (each one it takes starts in it and takes at least 3 bytes).
inline constexpr unsigned kLz4SpanMaxTokens = (kLz4SpanBytes + 2) / 3;

/// A lane parse's end: no next token.
inline constexpr uint32_t kLz4SpanStop = 0xFFFFFFFFu;

/// A token read from the stage, in span offsets (from ip).
struct Lz4SpanToken {
  uint32_t next;  ///< where the next token starts, or kLz4SpanStop: the lane parse stops here
  uint32_t literal_at, literal_length, match_length, distance;  ///< match_length: less kLz4MinMatch
};

/// The token at span offset `at` of `input` (input[r] is the block's byte ip + r, for r below
/// `limit`: staged and inside the block). It stops the lane parse when it is the last sequence
/// (its literals end the block), its offset is 0, or it needs a byte at or past `limit`.
CUZARR_HOST_DEVICE inline Lz4SpanToken lz4_span_token(const unsigned char* input, uint32_t at,
                                                      uint32_t limit) {
  Lz4SpanToken t{kLz4SpanStop, 0, 0, 0, 0};
  if (at >= limit) return t;
  const unsigned token = input[at];
  uint32_t literals = token >> 4, q = at + 1;
  if (literals == 15) {
    for (unsigned more = 255; more == 255; literals += more) {
      if (q >= limit) return t;
      more = input[q++];
    }
  }
  const uint32_t literal_at = q;
  q += literals;
  // The last sequence (its literals end the block) and offsets past the staged input stop here.
  if (q + 2 > limit) return t;
  const uint32_t distance = input[q] | input[q + 1] << 8;
  if (distance == 0) return t;
  q += 2;
  uint32_t match = token & 15u;
  if (match == 15) {
    for (unsigned more = 255; more == 255; match += more) {
      if (q >= limit) return t;
      more = input[q++];
    }
  }
  return {q, literal_at, literals, match, distance};
}

/// A token's successor and output size packed in one word (lz4_span_packed): the next token's
/// span offset in the low kLz4SpanNextBits bits, the output bytes above them; kLz4SpanStop when
/// the lane parse stops.
inline constexpr unsigned kLz4SpanNextBits = 11;
inline constexpr uint32_t kLz4SpanNextMask = (1u << kLz4SpanNextBits) - 1;
/// Bytes from `at` on that lz4_span_successor_short reads: the token, one literal length byte, up
/// to 15 + 255 literals, the offset and one match length byte.
inline constexpr uint32_t kLz4SpanSuccessorReach = 1 + 1 + 270 + 2 + 1;

/// A token packed: `next` (kLz4SpanStop stays kLz4SpanStop) and its output size.
CUZARR_HOST_DEVICE inline uint32_t lz4_span_packed(const Lz4SpanToken& t) {
  if (t.next == kLz4SpanStop) return kLz4SpanStop;
  return (t.literal_length + t.match_length + 4) << kLz4SpanNextBits | t.next;
}

/// lz4_span_packed(lz4_span_token(input, at, limit)) for a token with no length byte of 255;
/// `long_lengths` tells that it has one, and then the result is not the token's. Such a token
/// takes at most one length byte on each side, so its bytes are read with no loop and the reads
/// of many positions may overlap. Every byte below at + kLz4SpanSuccessorReach must be readable
/// (`limit`, below 2^kLz4SpanNextBits, still bounds what the token may use). Offsets fit
/// kLz4SpanNextBits bits (at most `limit`), and sizes the rest: at most `limit` literals, and
/// 15 + 255 a byte before `limit` of match.
CUZARR_HOST_DEVICE inline uint32_t lz4_span_successor_short(const unsigned char* input, uint32_t at,
                                                            uint32_t limit, bool& long_lengths) {
  const unsigned token = input[at];
  uint32_t literals = token >> 4, match = token & 15u, q = at + 1;
  long_lengths = false;  // a length byte of 255: more length bytes follow
  if (literals == 15) {
    const unsigned extra = input[q];
    long_lengths |= extra == 255;
    literals += extra;
    ++q;
  }
  q += literals;
  // Also where the token or its literal length byte lies at or past the limit.
  bool stops = q + 2 > limit;
  const unsigned distance = input[q] | input[q + 1] << 8;
  stops |= distance == 0;
  q += 2;
  if (match == 15) {
    const unsigned extra = input[q];
    stops |= q >= limit;
    long_lengths |= extra == 255;
    match += extra;
    ++q;
  }
  return stops ? kLz4SpanStop : (literals + match + 4) << kLz4SpanNextBits | q;
}

}  // namespace cuzarr::gpu::detail
