// Warp-parallel decoding of a deflate Huffman block (.cu files and the emulated-warp tests). The
// block's tokens (inflate_tokens.hpp) are decoded in rounds: each round the 32 lanes take
// consecutive stretches ("segments") of the stream's bits, kInflateLaneBits each (fewer in the
// block-parallel passes, kInflateBpLaneBits), starting where the last round ended.
//
// A lane cannot know where the first token of its segment starts: it depends on every token
// before it. Like Huffman codes, deflate's token stream resynchronises: decoding from a wrong bit
// position soon lands on a true token boundary and from there follows the true decoding (the
// state between tokens is only the bit position). So, as for Zstandard's literals
// (zstd_warp_huffman.cuh):
//   1. every lane decodes its segment from the segment's first bit, counting output bytes and
//      matches, until its exit: the first token boundary at or past the segment's end, or just
//      after an end-of-block token, or an invalid token. On the way it records checkpoints: where
//      it stood, with its counts, every kInflateCheckpointBits bits;
//   2. lane j compares that with its true start, lane j - 1's exit, and when they differ decodes
//      from the true start until it arrives at one of its checkpoints at a token boundary (then
//      the rest is the first decoding's) or the true decoding exits. Lanes after the first one
//      whose true decoding ends the block are outside the block. This repeats until no start
//      changes;
//   3. a prefix sum places every segment's output (the round ends early, after a whole segment,
//      when the list of step 4 would overflow); every lane decodes its segment again, writes its
//      literals and lists its matches (position, length, distance) in list order;
//   4. the warp copies the matches in list order, 32 at a time, in waves (warp_copy_matches).
// Every check of the serial decoder is made on the true decoding: valid codes (step 2), a round
// that ends inside the input and the output capacity (before step 3), distances within the
// stream's output (step 3, before any match is copied). A round that fails one is redone by the
// serial decoder, which reports the same status as it would have from the start; valid streams
// never take that path.
#pragma once

#include <cstdint>
#include <type_traits>

#include "codec/cuda/inflate_tokens.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// Bits of the stream each lane takes per round. Decoding from a wrong position meets the true
/// token boundaries after 128 to 256 bits in the median and within 1024 bits for about 97 % of
/// positions (zlib levels 1 and 6 on the benchmark field, docs/gpu_deflate.md): segments of 1024
/// bits let most lanes resynchronise inside their own segment. (The most a lane takes: its
/// checkpoints are sized for it.)
inline constexpr uint32_t kInflateLaneBits = 1024;
/// Matches one round may list. A lane lists at most kInflateLaneBits / 2 + 1 (a match takes at
/// least 2 bits); a round whose lanes list more ends after the last lane that fits.
inline constexpr uint32_t kInflateRoundMatches = 2048;
static_assert(kInflateLaneBits / 2 + 1 <= kInflateRoundMatches, "the first lane always fits");

/// How a decoding of a lane's bits ended.
enum class InflateExit : uint8_t { segment_end, end_of_block, invalid };

/// One decoding of a lane's segment: from bit `from` to `exit`, `bytes` output bytes and
/// `matches` matches.
struct InflateSegmentDecode {
  uint64_t from;
  uint64_t exit;
  uint32_t bytes;
  uint32_t matches;
  InflateExit how;
};

/// The bits of the stream a lane decodes: in[0, size) and the block's codes.
struct InflateLaneStream {
  const unsigned char* in;
  uint64_t size;
  const InflateWorkspace* ws;
};

/// Decodes one code at `c` and adds it to `d`; false when it ends the decoding (end of block or
/// invalid: d.how says which).
__device__ inline bool inflate_count_code(const InflateLaneStream& s, InflateTokenCursor& c,
                                          InflateSegmentDecode& d) {
  uint32_t value = 0;
  const InflateCode code = c.next(*s.ws, value);
  d.bytes += code == InflateCode::literal ? 1 : code == InflateCode::match ? c.match_length : 0;
  d.matches += code == InflateCode::match ? 1 : 0;
  if (code == InflateCode::end_of_block || code == InflateCode::invalid) {
    d.how = code == InflateCode::end_of_block ? InflateExit::end_of_block : InflateExit::invalid;
    return false;
  }
  return true;
}

/// Whether a cursor has left the segment that ends at `end`: at a token boundary at or past it.
__device__ inline bool inflate_segment_left(const InflateTokenCursor& c, uint64_t end) {
  return c.at_token() && c.position() >= end;
}

/// Bits between the checkpoints of a lane's first decoding, and their number: the first token
/// boundaries at or past 128, 256, ..., 896 bits into the segment.
inline constexpr uint32_t kInflateCheckpointBits = 128;
inline constexpr uint32_t kInflateCheckpoints = kInflateLaneBits / kInflateCheckpointBits - 1;

/// Where a lane's first decoding stood at its checkpoints: a true decoding that arrives at one of
/// these positions at a token boundary follows the first decoding from there on (the state
/// between tokens is only the bit position).
struct InflateCheckpoints {
  uint32_t count = 0;                     ///< checkpoints the first decoding reached
  uint32_t at[kInflateCheckpoints];       ///< bits after the segment's first bit
  uint32_t bytes[kInflateCheckpoints];    ///< output bytes before it
  uint32_t matches[kInflateCheckpoints];  ///< matches before it
};

/// Step 1: decodes from `from` until the segment is left, recording the checkpoints.
__device__ inline InflateSegmentDecode inflate_decode_segment(const InflateLaneStream& s,
                                                              uint64_t from, uint64_t end,
                                                              InflateCheckpoints& checkpoints) {
  InflateSegmentDecode d{from, from, 0, 0, InflateExit::segment_end};
  InflateTokenCursor c;
  c.seek(s.in, s.size, from);
  uint32_t k = 0;
  for (;;) {
    const uint64_t mark =
        k < kInflateCheckpoints ? umin(end, from + uint64_t{k + 1} * kInflateCheckpointBits) : end;
    bool going = true;
    while (!inflate_segment_left(c, mark) && (going = inflate_count_code(s, c, d))) {
    }
    if (!going || mark == end) break;
    checkpoints.at[k] = static_cast<uint32_t>(c.position() - from);
    checkpoints.bytes[k] = d.bytes;
    checkpoints.matches[k] = d.matches;
    ++k;
  }
  checkpoints.count = k;
  d.exit = c.position();
  return d;
}

/// Step 2 for one lane: the decoding of its segment (.., end) from its true start `from`, given
/// `first`, the decoding from the segment's own start, and its checkpoints. Decodes from `from`
/// until it meets a checkpoint at a token boundary (then the rest is the first decoding's) or
/// leaves the segment.
__device__ inline InflateSegmentDecode inflate_resync_segment(const InflateLaneStream& s,
                                                              const InflateSegmentDecode& first,
                                                              const InflateCheckpoints& checkpoints,
                                                              uint64_t from, uint64_t end) {
  InflateTokenCursor a;
  a.seek(s.in, s.size, from);
  InflateSegmentDecode da{from, from, 0, 0, InflateExit::segment_end};
  uint32_t k = 0;
  uint64_t next = checkpoints.count > 0 ? first.from + checkpoints.at[0] : UINT64_MAX;
  for (;;) {
    if (a.at_token()) {
      const uint64_t p = a.position();
      while (p > next) {  // passed it between two tokens: try the next one
        ++k;
        next = k < checkpoints.count ? first.from + checkpoints.at[k] : UINT64_MAX;
      }
      if (p == next) {
        return {from, first.exit, da.bytes + (first.bytes - checkpoints.bytes[k]),
                da.matches + (first.matches - checkpoints.matches[k]), first.how};
      }
      if (p >= end) break;  // the segment is left
    }
    if (!inflate_count_code(s, a, da)) break;
  }
  da.exit = a.position();
  return da;
}

/// What a round did.
struct InflateRound {
  bool redo_serially;    ///< a check failed: nothing of the round counts
  bool end_of_block;     ///< the round ended the block
  uint64_t end_bit;      ///< where the next token (or block header) starts
  uint64_t bytes;        ///< output bytes of the round
  uint64_t match_count;  ///< matches of the round
};

/// The output of a round's decoding: out[0, capacity), the round's first byte at `op`, distances
/// reaching back to `window_start` at most; `matches`: kInflateRoundMatches entries of scratch.
struct InflateRoundOutput {
  unsigned char* out;
  uint64_t capacity;
  uint64_t op;
  uint64_t window_start;
  uint64_t* matches;
};

/// A listed match: position after the list's base (32 bits), length, distance.
__device__ inline uint64_t inflate_pack_match(uint64_t at, uint32_t length, uint32_t distance) {
  return at | uint64_t{length} << 32 | uint64_t{distance} << 48;
}

/// Steps 1 and 2 of a round, for one lane: its true decoding and where it stands in the round.
struct InflateRoundLane {
  InflateSegmentDecode d;   ///< the lane's true decoding (meaningful when in_round)
  uint64_t end;             ///< the end of the lane's segment
  uint64_t bytes_before;    ///< output bytes of the round's earlier lanes
  uint64_t matches_before;  ///< matches of the round's earlier lanes
  bool in_round;
};

/// Steps 1 and 2 from bit `from`: every lane's true decoding; lanes whose matches would take the
/// round past `max_matches` are left out (lane 0 never is). Fills the round's summary; sets
/// redo_serially for an invalid code, a round past the input (or at its end, the block not
/// ended) and a round without progress, never for a valid stream. Every lane calls it with the
/// same arguments and gets the same summary. kLaneBits: the bits each lane takes (at most
/// kInflateLaneBits, for which the checkpoints are sized).
template <uint32_t kLaneBits = kInflateLaneBits>
__device__ inline InflateRoundLane warp_plan_inflate_round(const InflateLaneStream& s,
                                                           uint64_t from, uint64_t max_matches,
                                                           InflateRound& round, unsigned lane) {
  static_assert(kLaneBits > 0 && kLaneBits <= kInflateLaneBits);
  const uint64_t stream_bits = s.size * 8;
  const uint64_t start = umin(stream_bits, from + uint64_t{lane} * kLaneBits);
  InflateRoundLane r{};
  r.end = umin(stream_bits, from + uint64_t{lane + 1} * kLaneBits);

  // 1. From the segment's own start.
  InflateCheckpoints checkpoints;
  const InflateSegmentDecode first = inflate_decode_segment(s, start, r.end, checkpoints);
  // 2. Until every segment in the block starts where the one before it left.
  InflateSegmentDecode d = first;
  unsigned last = kWarpSize - 1;  // the last lane in the round
  for (;;) {
    const unsigned stops = __ballot_sync(kFullMask, d.how != InflateExit::segment_end);
    last = stops != 0 ? __ffs(stops) - 1 : kWarpSize - 1;
    const uint64_t previous_exit = shfl64(d.exit, lane == 0 ? 0 : lane - 1);
    const bool redo = lane > 0 && lane <= last && previous_exit != d.from;
    if (!__any_sync(kFullMask, redo)) break;
    if (redo) {
      d = previous_exit == first.from
              ? first
              : inflate_resync_segment(s, first, checkpoints, previous_exit, r.end);
    }
  }
  // The lanes whose matches fit end the round early (lane 0's always fit).
  const uint64_t listed = warp_inclusive_sum64(lane <= last ? d.matches : 0, lane);
  const unsigned overflow = __ballot_sync(kFullMask, listed > max_matches);
  if (overflow != 0) last = __ffs(overflow) - 2;
  r.d = d;
  r.in_round = lane <= last;
  const uint64_t bytes_to = warp_inclusive_sum64(r.in_round ? d.bytes : 0, lane);
  r.bytes_before = r.in_round ? bytes_to - d.bytes : 0;
  r.matches_before = r.in_round ? listed - d.matches : 0;
  round.bytes = shfl64(bytes_to, kWarpSize - 1);
  round.match_count = shfl64(listed, last);
  round.end_bit = shfl64(d.exit, last);
  const InflateExit how =
      static_cast<InflateExit>(__shfl_sync(kFullMask, static_cast<int>(d.how), last));
  round.end_of_block = how == InflateExit::end_of_block;
  round.redo_serially = how == InflateExit::invalid || round.end_bit > stream_bits ||
                        (!round.end_of_block && round.end_bit == stream_bits) ||
                        round.end_bit <= from;  // no progress (never for a valid stream)
  return r;
}

/// Step 3 for one lane: decodes its segment from `from` (a true token boundary) to `end`, writes
/// its literals at out[at, ...) (`out`: bytes, wider symbols, or anything indexed like them) and
/// lists its matches at `match`,
/// positions relative to `list_base`. Returns false when a distance reaches before
/// `window_start` (RFC 1951, 3.2.5: a distance reaches back into the output decoded so far) or
/// a byte would pass `capacity`; nothing is written past it.
template <class Out>
__device__ inline bool inflate_write_segment(const InflateLaneStream& s, uint64_t from,
                                             uint64_t end, Out out, uint64_t capacity, uint64_t at,
                                             uint64_t window_start, uint64_t list_base,
                                             uint64_t* match) {
  bool good = true;
  InflateTokenCursor c;
  c.seek(s.in, s.size, from);
  while (!inflate_segment_left(c, end)) {
    uint32_t value = 0;
    const InflateCode code = c.next(*s.ws, value);
    if (code == InflateCode::literal) {
      if (at >= capacity) return false;
      out[at++] = static_cast<std::remove_reference_t<decltype(out[at])>>(value);
    } else if (code == InflateCode::match) {
      good = good && value <= at - window_start && c.match_length <= capacity - at;
      *match++ = inflate_pack_match(at - list_base, c.match_length, value);
      at += c.match_length;
    } else if (code != InflateCode::length) {
      break;  // the block's end (the segment's decoding stopped there too)
    }
  }
  return good;
}

/// Step 4: copies `count` listed matches (positions relative to `list_base`) in list order, 32 at
/// a time.
__device__ inline void warp_copy_listed_matches(const uint64_t* list, uint64_t count,
                                                uint64_t list_base, unsigned char* out,
                                                unsigned lane) {
  for (uint64_t g = 0; g < count; g += kWarpSize) {
    const bool has = g + lane < count;
    const uint64_t m = has ? list[g + lane] : 0;
    const uint64_t at = has ? list_base + (m & 0xFFFFFFFFu) : UINT64_MAX;
    warp_copy_matches(has, at, (m >> 32) & 0xFFFFu, m >> 48, out, lane);
  }
}

/// Decodes one round of the block from bit `from` (every lane calls it with the same arguments
/// and gets the same result).
__device__ inline InflateRound warp_inflate_round(const InflateLaneStream& s, uint64_t from,
                                                  const InflateRoundOutput& o, unsigned lane) {
  InflateRound round{};
  const InflateRoundLane r = warp_plan_inflate_round(s, from, kInflateRoundMatches, round, lane);
  // Also past the output's capacity: the serial decoder finds the first failure and its status.
  round.redo_serially = round.redo_serially || round.bytes > o.capacity - o.op;
  if (round.redo_serially) return round;

  // 3. Literals to the output, matches to the list; every distance within the output.
  bool good = true;
  if (r.in_round) {
    good = inflate_write_segment(s, r.d.from, r.end, o.out, o.capacity, o.op + r.bytes_before,
                                 o.window_start, o.op, o.matches + r.matches_before);
  }
  round.redo_serially = __any_sync(kFullMask, !good);
  if (round.redo_serially) return round;
  __syncwarp();  // the literals and the list are visible to the warp

  // 4. The matches, 32 at a time in list order.
  warp_copy_listed_matches(o.matches, round.match_count, o.op, o.out, lane);
  return round;
}

}  // namespace cuzarr::gpu::detail
