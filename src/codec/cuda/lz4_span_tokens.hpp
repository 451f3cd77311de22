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
/// True tokens a segment holds at most (a token takes at least 3 bytes).
inline constexpr unsigned kLz4SpanSegmentTokens = (kLz4SpanSegmentBytes + 2) / 3;

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

}  // namespace cuzarr::gpu::detail
