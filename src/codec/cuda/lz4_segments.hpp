// A parallel LZ4 block encoder, written once for the CPU tests and the GPU kernels: the input is
// cut into segments of kLz4SegmentBytes that are encoded independently (matches never cross a
// segment start), then the segments' sequences are stitched into ONE LZ4 block
// (lz4_Block_format.md):
//
//  - a segment's encoding is summarised as: `lead` literals before its first match, that match,
//    `body` (the complete sequences after the first match, in block format) and `trail` literals
//    after its last match. A segment without any match is only literals.
//  - literals are contiguous in the input, so the trail of one segment, any match-free segments
//    after it and the lead of the next segment with a match form one literal run: the stitched
//    block writes that run in front of the next segment's first match (lz4_plan_segments); the
//    run left after the last match is the block's final, literals-only sequence.
//  - the end-of-block rules hold for the whole block, not per segment: every match ends at or
//    before size - kLz4LastLiterals and starts at or before size - kLz4MatchStartLimit
//    (lz4_Block_format.md, "End of block conditions"), whatever segment it is in.
//
// Every match is paid for by at least 4 input bytes, so the block stays within lz4_encode_bound.
#pragma once

#include <cstdint>

#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Input bytes per segment (positions inside a segment fit 16 bits, distances stay <= 65535).
inline constexpr uint64_t kLz4SegmentBytes = 65536;
/// Entries of a segment encoder's hash table (16-bit positions relative to the segment start).
inline constexpr uint32_t kLz4SegmentHashLog = 12;
inline constexpr uint32_t kLz4SegmentHashEntries = 1u << kLz4SegmentHashLog;
/// Bytes reserved for one segment's body (its sequences after the first match).
inline constexpr uint64_t kLz4SegmentBodyCapacity =
    (lz4_encode_bound(kLz4SegmentBytes) + 15) / 16 * 16;

/// Segments of a `size`-byte input (an empty input has one, empty).
CUZARR_HOST_DEVICE inline uint64_t lz4_segment_count(uint64_t size) {
  return size == 0 ? 1 : (size + kLz4SegmentBytes - 1) / kLz4SegmentBytes;
}

/// What a segment's encoder found; see the file comment.
struct Lz4SegmentSummary {
  uint32_t lead = 0;            // literals before the first match (all bytes when no match)
  uint32_t first_distance = 0;  // 0: the segment has no match
  uint32_t first_length = 0;    // length of the first match
  uint32_t trail = 0;           // literals after the last match
  uint64_t body_bytes = 0;      // bytes of the sequences after the first match
};

CUZARR_HOST_DEVICE inline uint32_t lz4_segment_hash(uint32_t sequence) {
  return (sequence * 2654435761u) >> (32 - kLz4SegmentHashLog);
}

/// Greedy encoder of segment [begin, end) of the `size`-byte input `src` (end - begin <=
/// kLz4SegmentBytes): matches start and end inside the segment and obey the block's end rules;
/// the sequences after the first match go to `body` (kLz4SegmentBodyCapacity bytes).
/// `hash_table`: kLz4SegmentHashEntries entries of scratch.
CUZARR_HOST_DEVICE inline Lz4SegmentSummary lz4_encode_segment(const unsigned char* src,
                                                               uint64_t size, uint64_t begin,
                                                               uint64_t end, unsigned char* body,
                                                               uint16_t* hash_table) {
  Lz4SegmentSummary s;
  s.lead = static_cast<uint32_t>(end - begin);
  if (size <= kLz4MatchStartLimit) return s;
  // Matches start at or before last_start and end at or before match_end_limit.
  const uint64_t last_start =
      end - begin >= kLz4MinMatch
          ? (end - kLz4MinMatch < size - kLz4MatchStartLimit ? end - kLz4MinMatch
                                                             : size - kLz4MatchStartLimit)
          : 0;
  if (end - begin < kLz4MinMatch || last_start < begin) return s;
  const uint64_t match_end_limit = end < size - kLz4LastLiterals ? end : size - kLz4LastLiterals;
  // Zero entries point at the segment start: a real position, verified like any candidate.
  for (uint32_t h = 0; h < kLz4SegmentHashEntries; ++h) hash_table[h] = 0;
  uint64_t anchor = begin, ip = begin, op = 0;
  uint32_t misses = 0;
  bool first = true;
  while (ip <= last_start) {
    const uint32_t sequence = load_le32(src + ip);
    const uint32_t h = lz4_segment_hash(sequence);
    const uint64_t candidate = begin + hash_table[h];
    hash_table[h] = static_cast<uint16_t>(ip - begin);
    if (candidate >= ip || load_le32(src + candidate) != sequence) {
      ip += 1 + (misses++ >> 6);  // skip faster through incompressible data, as lz4 does
      continue;
    }
    uint64_t start = ip, from = candidate;
    while (start > anchor && from > begin && src[start - 1] == src[from - 1]) {
      --start;
      --from;
    }
    uint64_t length = kLz4MinMatch + (ip - start);
    // 4 bytes per comparison while they fit (independent loads), then bytes.
    while (start + length + 4 <= match_end_limit &&
           load_le32(src + from + length) == load_le32(src + start + length)) {
      length += 4;
    }
    while (start + length < match_end_limit && src[from + length] == src[start + length]) {
      ++length;
    }
    if (first) {
      s.lead = static_cast<uint32_t>(start - begin);
      s.first_distance = static_cast<uint32_t>(start - from);
      s.first_length = static_cast<uint32_t>(length);
      first = false;
    } else if (!lz4_emit_sequence(src + anchor, start - anchor, start - from, length, body, op,
                                  kLz4SegmentBodyCapacity)) {
      // Cannot happen (a match pays for its sequence); stop matching, the rest is literals.
      break;
    }
    ip = start + length;
    anchor = ip;
    misses = 0;
    if (ip - 2 <= last_start) {
      hash_table[lz4_segment_hash(load_le32(src + ip - 2))] = static_cast<uint16_t>(ip - 2 - begin);
    }
  }
  if (!first) s.trail = static_cast<uint32_t>(end - anchor);
  s.body_bytes = op;
  return s;
}

/// Bytes of the token and literal-length bytes for `literals` literals.
CUZARR_HOST_DEVICE inline uint64_t lz4_literal_header_bytes(uint64_t literals) {
  return 1 + (literals >= 15 ? (literals - 15) / 255 + 1 : 0);
}
/// Bytes of the offset and match-length bytes of a match of `length`.
CUZARR_HOST_DEVICE inline uint64_t lz4_match_tail_bytes(uint64_t length) {
  const uint64_t code = length - kLz4MinMatch;
  return 2 + (code >= 15 ? (code - 15) / 255 + 1 : 0);
}

/// Writes the token (literal nibble, and the match nibble unless match_length is 0) and the
/// literal-length bytes; returns the bytes written.
CUZARR_HOST_DEVICE inline uint64_t lz4_write_literal_header(unsigned char* dst, uint64_t literals,
                                                            uint64_t match_length) {
  const uint64_t code = match_length == 0 ? 0 : match_length - kLz4MinMatch;
  dst[0] = static_cast<unsigned char>((literals >= 15 ? 15u : literals) << 4 |
                                      (code >= 15 ? 15u : code));
  uint64_t op = 1;
  if (literals >= 15) {
    uint64_t rest = literals - 15;
    for (; rest >= 255; rest -= 255) dst[op++] = 255;
    dst[op++] = static_cast<unsigned char>(rest);
  }
  return op;
}
/// Writes the 2-byte offset and the match-length bytes; returns the bytes written.
CUZARR_HOST_DEVICE inline uint64_t lz4_write_match_tail(unsigned char* dst, uint64_t distance,
                                                        uint64_t length) {
  store_le16(dst, static_cast<uint32_t>(distance));
  uint64_t op = 2;
  const uint64_t code = length - kLz4MinMatch;
  if (code >= 15) {
    uint64_t rest = code - 15;
    for (; rest >= 255; rest -= 255) dst[op++] = 255;
    dst[op++] = static_cast<unsigned char>(rest);
  }
  return op;
}

/// Where a segment's part of the stitched block goes: the literal run in front of its first match
/// (input [literal_begin, literal_begin + literal_length)) and its first output byte. Segments
/// without a match write nothing.
struct Lz4SegmentPlan {
  uint64_t literal_begin = 0;
  uint64_t literal_length = 0;
  uint64_t out_offset = 0;
};

/// The block's final, literals-only sequence and the block's size.
struct Lz4StitchEnd {
  uint64_t literal_begin = 0;
  uint64_t literal_length = 0;
  uint64_t out_offset = 0;
  uint64_t block_bytes = 0;
};

/// Plans the stitched block of a `size`-byte input from its segments' summaries (serial over the
/// segments; plans[i] for segment i).
CUZARR_HOST_DEVICE inline Lz4StitchEnd lz4_plan_segments(const Lz4SegmentSummary* summaries,
                                                         uint64_t segments, uint64_t size,
                                                         Lz4SegmentPlan* plans) {
  uint64_t pending = 0;  // where the literal run not yet written starts
  uint64_t out = 0;
  for (uint64_t i = 0; i < segments; ++i) {
    const Lz4SegmentSummary& s = summaries[i];
    const uint64_t begin = i * kLz4SegmentBytes;
    Lz4SegmentPlan p;
    p.out_offset = out;
    if (s.first_distance != 0) {
      p.literal_begin = pending;
      p.literal_length = begin + s.lead - pending;
      out += lz4_literal_header_bytes(p.literal_length) + p.literal_length +
             lz4_match_tail_bytes(s.first_length) + s.body_bytes;
      const uint64_t end = begin + kLz4SegmentBytes < size ? begin + kLz4SegmentBytes : size;
      pending = end - s.trail;
    }
    plans[i] = p;
  }
  Lz4StitchEnd e;
  e.literal_begin = pending;
  e.literal_length = size - pending;
  e.out_offset = out;
  e.block_bytes = out + lz4_literal_header_bytes(e.literal_length) + e.literal_length;
  return e;
}

/// Serial reference of the stitching: writes segment i's part of the block at dst + plan.out_offset
/// (the GPU copies the literals and the body with a warp instead).
CUZARR_HOST_DEVICE inline void lz4_write_segment(const unsigned char* src,
                                                 const Lz4SegmentSummary& s,
                                                 const Lz4SegmentPlan& p, const unsigned char* body,
                                                 unsigned char* dst) {
  if (s.first_distance == 0) return;
  uint64_t op = p.out_offset;
  op += lz4_write_literal_header(dst + op, p.literal_length, s.first_length);
  for (uint64_t t = 0; t < p.literal_length; ++t) dst[op + t] = src[p.literal_begin + t];
  op += p.literal_length;
  op += lz4_write_match_tail(dst + op, s.first_distance, s.first_length);
  for (uint64_t t = 0; t < s.body_bytes; ++t) dst[op + t] = body[t];
}

/// Writes the final literals-only sequence.
CUZARR_HOST_DEVICE inline void lz4_write_end(const unsigned char* src, const Lz4StitchEnd& e,
                                             unsigned char* dst) {
  const uint64_t op =
      e.out_offset + lz4_write_literal_header(dst + e.out_offset, e.literal_length, 0);
  for (uint64_t t = 0; t < e.literal_length; ++t) dst[op + t] = src[e.literal_begin + t];
}

}  // namespace cuzarr::gpu
