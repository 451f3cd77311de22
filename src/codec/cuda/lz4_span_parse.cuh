// A span of an LZ4 block (lz4's doc/lz4_Block_format.md) parsed by the 32 lanes of a warp at once
// (.cu files only; the team's parser, lz4_warp_team_decode.cuh). The window parser
// (lz4_warp_decode.cuh) finds the true tokens of 32 input positions by warp-wide steps that depend
// on each other; this one lets each lane parse on its own:
//
// 1. The span's input (kLz4SpanBytes from ip, and the bytes its tokens may read past it) is staged
//    in shared memory.
// 2. Every span offset is parsed as if a token started there (lz4_span_successor_short: where
//    the next one would start, and the output size), the lanes taking neighbouring offsets; the
//    parses do not depend on each other, so a lane's loads overlap. The chains below follow these
//    words. Lane j then walks from the start of its own segment of kLz4SpanSegmentBytes and marks
//    the tokens that start in the segment (its own chain).
// 3. Each lane follows its chain on past its segment ("overrun") until it reaches a token of a
//    later lane's own chain: from there the two chains are one, since each token's successor
//    depends only on the bytes. A wrong start usually falls onto the true chain within a few
//    tokens (Lz4SpanParse.PlansTakeTheSerialParsersTokensInOrder: spans take nearly every token).
// 4. Lane 0 starts at ip, a true token: the true chain runs through lane 0's own chain, its overrun
//    up to its meeting point, the chain of the lane it met from there, and so on (the lanes on this
//    path are found by pointer doubling over the lanes). It ends where a lane on the path ends: its
//    chain leaves the span, stops (a token the lane parse does not take) or overruns too far.
// 5. The true tokens' lengths, a prefix sum of their output sizes, and every check of the window
//    parser with the exact output position: the first token that fails one ends the span there.
//
// A token the lane parse does not take (the last sequence, an offset of 0, input that ends inside
// the token, or bytes past the staged ones) ends the chain: when the true chain reaches it, the
// span ends before it and the caller's window parser takes it (its scalar parser reports exactly
// what the serial decoder reports). The lanes queue the true tokens (lz4_span_queue) in as many
// portions as the caller's ring has room for; the stage stays valid until the next plan.
// lz4_span_plan runs steps 1 to 5; steps 1 to 3 (lz4_span_prepare) do not depend on the output
// and may run in another warp (a team's stager), steps 4 (lz4_span_path) and 5 (lz4_span_finish)
// in the parser.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_span_tokens.hpp"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// Bytes staged: the span, the bytes its tokens read past it, and the alignment of the first word.
inline constexpr uint32_t kLz4SpanStageBytes = 1536;
static_assert(kLz4SpanBytes == kWarpSize * kLz4SpanSegmentBytes);
static_assert(kLz4SpanBytes + kLz4WindowReach + 8 <= kLz4SpanStageBytes);
static_assert(kLz4SpanStageBytes % (8 * kWarpSize) == 0 && kLz4SpanSegmentBytes <= 64);
static_assert(kLz4SpanBytes + kLz4WindowReach < 0x10000);  // overrun positions fit 16 bits

static_assert(kLz4SpanBytes + kLz4SpanSuccessorReach + 8 <= kLz4SpanStageBytes);
static_assert(kLz4SpanStageBytes <= kLz4SpanNextMask);
/// Offsets a lane parses at once for the successors.
inline constexpr unsigned kLz4SpanBatch = 8;
static_assert(kLz4SpanSegmentBytes % kLz4SpanBatch == 0);

/// What the lanes of one parsing warp share (9 KiB).
struct Lz4SpanShared {
  alignas(8) unsigned char stage[kLz4SpanStageBytes];
  uint32_t successor[kLz4SpanBytes];    // lz4_span_packed token at every span offset
  unsigned long long own[kWarpSize];    // lane j's own chain: bit t for span offset 32j + t
  unsigned long long truth[kWarpSize];  // the true chain, likewise
  uint32_t entry[kWarpSize];            // where the true chain enters lane j's own chain
  uint32_t reach[kWarpSize];    // where lane j's chain ends or meets a later lane's (phase 3)
  uint8_t meets[kWarpSize];     // the lane it meets (kWarpSize: none)
  uint8_t overruns[kWarpSize];  // its overrun tokens
  uint32_t start;               // the block offset the stage starts at (span offset 0)
  uint32_t limit;               // staged bytes from start that lie in the block
  uint32_t skew;                // stage[skew] is the block's byte `start`
  union {
    uint16_t overrun[kLz4SpanOverrunTokens][kWarpSize];  // lane j's overrun tokens (span offsets)
    struct {  // the k-th true token: its span offset, its output bytes after the span's start
      uint16_t at[kLz4SpanMaxTokens];
      uint32_t out[kLz4SpanMaxTokens];
    } tokens;
  };
};

/// A span's true tokens (every lane holds the same values; their places are in Lz4SpanShared).
struct Lz4SpanPlan {
  const unsigned char* input;  ///< the staged input (input[r]: the block's byte start + r)
  uint32_t start;              ///< the block offset of the span, where its first token is
  uint32_t limit;              ///< staged bytes from start that lie in the block
  uint32_t taken;              ///< true tokens that passed every check, in order
  uint32_t taken_bytes;        ///< their output bytes
  uint32_t next;               ///< where the parse goes on (span offset): after the taken tokens
};

/// Phases 1 to 3 for the span at ip (every lane calls it): its stage, every offset's successor,
/// the lanes' own chains and their overruns, kept in `s`. They do not depend on the output; a
/// warp other than the parser may run them (lz4_warp_team_decode.cuh).
__device__ inline void lz4_span_prepare(const unsigned char* in, uint32_t in_size, uint32_t ip,
                                        unsigned lane, Lz4SpanShared& s) {
  // 1. Stage, every load issued before the first store (the caller's lanes are done with the
  // previous plan's stage).
  const auto shift = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(in) & 7u);
  const uint32_t at = ip + shift, skew = at & 7u;
  constexpr unsigned kWords = kLz4SpanStageBytes / (8 * kWarpSize);
  uint64_t words[kWords];
  CUZARR_UNROLL
  for (unsigned k = 0; k < kWords; ++k) {
    words[k] =
        lz4_load_input_word(in, in_size, shift, uint64_t{at - skew} + 8 * (kWarpSize * k + lane));
  }
  // The next span most often starts just past this one: its lines asked for in L1 meanwhile.
  constexpr unsigned kLines = kLz4SpanStageBytes / 128;
  static_assert(kLines <= kWarpSize);
  if (lane < kLines && uint64_t{ip} + kLz4SpanBytes + 128 * lane < in_size) {
    prefetch_l1(in + ip + kLz4SpanBytes + 128 * lane);
  }
  __syncwarp();
  CUZARR_UNROLL
  for (unsigned k = 0; k < kWords; ++k) {
    store_aligned_u64(s.stage + 8 * (kWarpSize * k + lane), words[k]);
  }
  __syncwarp();
  const unsigned char* const input = s.stage + skew;
  const auto limit = static_cast<uint32_t>(umin(kLz4SpanStageBytes - skew, in_size - ip));
  if (lane == 0) {
    s.start = ip;
    s.limit = limit;
    s.skew = skew;
  }

  // 2. Every offset's successor: lane t takes offsets t, t + 32, ... (the stage's reads of a step
  // fall in few banks), kLz4SpanBatch at a time so that their reads overlap (a store between them
  // would order them), tokens with a length byte of 255 afterwards (rare in data, a parse each).
  unsigned long_lengths = 0;
  for (unsigned k = 0; k < kLz4SpanSegmentBytes; k += kLz4SpanBatch) {
    uint32_t words[kLz4SpanBatch];
    CUZARR_UNROLL
    for (unsigned b = 0; b < kLz4SpanBatch; ++b) {
      bool long_token = false;
      words[b] = lz4_span_successor_short(input, kWarpSize * (k + b) + lane, limit, long_token);
      long_lengths |= static_cast<unsigned>(long_token) << (k + b);
    }
    CUZARR_UNROLL
    for (unsigned b = 0; b < kLz4SpanBatch; ++b) s.successor[kWarpSize * (k + b) + lane] = words[b];
  }
  for (; long_lengths != 0; long_lengths &= long_lengths - 1) {
    const uint32_t r = kWarpSize * (__ffs(long_lengths) - 1) + lane;
    s.successor[r] = lz4_span_packed(lz4_span_token(input, r, limit));
  }
  __syncwarp();

  // The lane's own chain.
  const uint32_t low = lane * kLz4SpanSegmentBytes, high = low + kLz4SpanSegmentBytes;
  unsigned long long own = 0;
  uint32_t x = low;
  bool going = true;  // the chain goes on past the segment, at x
  while (x < high) {
    const uint32_t next = s.successor[x];
    if (next == kLz4SpanStop) {
      going = false;
      break;
    }
    own |= 1ull << (x - low);
    x = next & kLz4SpanNextMask;
  }
  s.own[lane] = own;
  __syncwarp();

  // 3. Its overrun, until it meets a later lane's own chain (x then on both chains), leaves the
  // span, stops, or runs too far; x is then where this lane's chain ends or meets.
  unsigned overrun = 0, meets = kWarpSize;
  if (going) {
    while (x < kLz4SpanBytes) {
      // One test of both words, so that both are read at once (one wait a step).
      const unsigned segment = x / kLz4SpanSegmentBytes;
      const bool met = (s.own[segment] >> (x % kLz4SpanSegmentBytes)) & 1u;
      const uint32_t next = s.successor[x];
      if (met || overrun == kLz4SpanOverrunTokens || next == kLz4SpanStop) {
        meets = met ? segment : meets;
        break;
      }
      s.overrun[overrun++][lane] = static_cast<uint16_t>(x);
      x = next & kLz4SpanNextMask;
    }
  }
  s.reach[lane] = x;
  s.meets[lane] = static_cast<uint8_t>(meets);
  s.overruns[lane] = static_cast<uint8_t>(overrun);
  __syncwarp();
}

/// Phase 4 of a prepared span (every lane calls it): the true chain from the span's start, in
/// s.truth. Returns the span offset where it ends.
__device__ inline uint32_t lz4_span_path(Lz4SpanShared& s, unsigned lane) {
  const uint32_t low = lane * kLz4SpanSegmentBytes;
  const uint32_t x = s.reach[lane];
  const unsigned meets = s.meets[lane], overrun = s.overruns[lane];
  const unsigned long long own = s.own[lane];
  // 4. The lanes on the true chain's path (lane 0 first), where it enters each, where it ends.
  const unsigned path = warp_reachable_lanes<5>(meets, lane);
  const bool on_path = (path >> lane) & 1u;
  const uint32_t path_end = __shfl_sync(kFullMask, x, kWarpSize - 1 - __clz(path));
  if (on_path && meets < kWarpSize) s.entry[meets] = x;
  __syncwarp();
  const uint32_t entry = lane == 0 ? 0 : s.entry[lane];
  s.truth[lane] = on_path ? own & (~0ull << (entry - low)) : 0;
  __syncwarp();
  // A path lane's overrun lies between its segment and the next path lane's entry: no other lane
  // writes those words now. Its bits are gathered a segment at a time.
  if (on_path && overrun > 0) {
    unsigned segment = s.overrun[0][lane] / kLz4SpanSegmentBytes;
    unsigned long long bits = 0;
    for (unsigned i = 0; i < overrun; ++i) {
      const uint32_t r = s.overrun[i][lane];
      if (r / kLz4SpanSegmentBytes != segment) {
        s.truth[segment] |= bits;
        segment = r / kLz4SpanSegmentBytes;
        bits = 0;
      }
      bits |= 1ull << (r % kLz4SpanSegmentBytes);
    }
    s.truth[segment] |= bits;
  }
  __syncwarp();
  return path_end;
}

/// Phase 5 of a span whose path ends at span offset `path_end` (every lane calls it): the plan.
/// `op`: the bytes the tokens before the span produce; `capacity`: the output's size.
__device__ inline Lz4SpanPlan lz4_span_finish(Lz4SpanShared& s, uint32_t path_end, uint64_t op,
                                              uint64_t capacity, unsigned lane) {
  const uint32_t low = lane * kLz4SpanSegmentBytes;
  const unsigned long long truth = s.truth[lane];
  Lz4SpanPlan plan;
  plan.start = s.start;
  plan.limit = s.limit;
  plan.input = s.stage + s.skew;
  const unsigned char* const input = plan.input;
  const uint32_t limit = plan.limit;

  // 5. Output sizes, their prefix sum, and the window parser's checks in 32 bits: the output's room
  // after op, and op itself up to 65535 (from there on no offset reaches before the output's
  // start). Each token's place is kept by its rank for lz4_span_queue (the overrun lists are no
  // longer needed).
  const unsigned count = __popcll(truth);
  uint32_t bytes = 0;
  for (unsigned long long bits = truth; bits != 0; bits &= bits - 1) {
    bytes += s.successor[low + __ffsll(bits) - 1] >> kLz4SpanNextBits;
  }
  const uint64_t sums = warp_inclusive_sum64((uint64_t{count} << 32) | bytes, lane);
  const uint32_t count_before = static_cast<uint32_t>(sums >> 32) - count;
  const uint32_t bytes_before = static_cast<uint32_t>(sums) - bytes;
  {
    uint32_t out = bytes_before;
    unsigned rank = count_before;
    for (unsigned long long bits = truth; bits != 0; bits &= bits - 1, ++rank) {
      const uint32_t r = low + __ffsll(bits) - 1;
      s.tokens.at[rank] = static_cast<uint16_t>(r);
      s.tokens.out[rank] = out;
      out += s.successor[r] >> kLz4SpanNextBits;
    }
  }
  const auto room = static_cast<uint32_t>(umin(capacity - umin(capacity, op), 0xFFFFFFFFu));
  const auto near = static_cast<uint32_t>(umin(op, kLz4MaxDistance));
  const uint64_t all = shfl64(sums, kWarpSize - 1);
  plan.taken = static_cast<uint32_t>(all >> 32);
  plan.taken_bytes = static_cast<uint32_t>(all);
  plan.next = path_end;
  // Past the first 64 KiB of output, with room for every token, no check can fail.
  if (op >= kLz4MaxDistance && plan.taken_bytes <= room) return plan;
  uint32_t out = bytes_before, failing_rank = 0, failing_at = 0;
  bool fails = false;
  unsigned rank = count_before;
  for (unsigned long long bits = truth; bits != 0; bits &= bits - 1, ++rank) {
    const uint32_t r = low + __ffsll(bits) - 1;
    const Lz4SpanToken t = lz4_span_token(input, r, limit);
    const uint32_t length = t.literal_length + t.match_length + kLz4MinMatch;
    if (out + length > room || t.distance > near + out + t.literal_length) {
      fails = true;
      failing_rank = rank;
      failing_at = r;
      break;
    }
    out += length;
  }
  const unsigned failing = __ballot_sync(kFullMask, fails);
  if (failing != 0) {
    const unsigned first = __ffs(failing) - 1;
    plan.taken = __shfl_sync(kFullMask, failing_rank, first);
    plan.taken_bytes = __shfl_sync(kFullMask, out, first);
    plan.next = __shfl_sync(kFullMask, failing_at, first);
  }
  return plan;
}

/// Stages the span at ip and finds its true tokens (every lane calls it; see the file comment):
/// phases 1 to 5. `op`: the bytes the tokens before ip produce; `capacity`: the output's size. A
/// plan with no token taken means the token at ip is one for the window parser's scalar parser.
__device__ inline Lz4SpanPlan lz4_span_plan(const unsigned char* in, uint32_t in_size, uint32_t ip,
                                            uint64_t op, uint64_t capacity, unsigned lane,
                                            Lz4SpanShared& s) {
  lz4_span_prepare(in, in_size, ip, lane, s);
  return lz4_span_finish(s, lz4_span_path(s, lane), op, capacity, lane);
}

/// Queues the plan's taken tokens of rank `from` to `to` - 1 at slots tail, tail + 1, ... of
/// `queue` (every lane calls it; op as given to the plan). Lane t takes ranks from + t, from + t +
/// 32, ...
template <unsigned kSlots>
__device__ inline void lz4_span_queue(const Lz4SpanPlan& plan, const Lz4SpanShared& s, uint64_t op,
                                      unsigned from, unsigned to, Lz4StepRing<kSlots>& queue,
                                      unsigned tail, unsigned lane) {
  const uint32_t ip = plan.start;
  for (unsigned rank = from + lane; rank < to; rank += kWarpSize) {
    const uint32_t r = s.tokens.at[rank], out = static_cast<uint32_t>(op) + s.tokens.out[rank];
    const unsigned literals = plan.input[r] >> 4;
    Lz4QueuedStep& slot = queue.slots[(tail + rank - from) % kSlots];
    if (literals < 15) {  // no length byte before the offset; the match's length from the size
      const unsigned char* offset = plan.input + r + 1 + literals;
      slot = {ip + r + 1, literals, offset[0] | uint32_t{offset[1]} << 8,
              (s.successor[r] >> kLz4SpanNextBits) - literals, out};
    } else {
      const Lz4SpanToken t = lz4_span_token(plan.input, r, plan.limit);
      slot = {ip + t.literal_at, t.literal_length, t.distance,
              t.match_length + uint32_t{kLz4MinMatch}, out};
    }
  }
}

}  // namespace cuzarr::gpu::detail
