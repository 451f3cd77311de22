// Block-parallel decoding of ONE large LZ4 block (lz4's doc/lz4_Block_format.md) in passes, so
// that a chunk stored as a single block of megabytes keeps many threads busy:
//   1. parse (independent per segment): the compressed block is cut into segments of
//      kLz4BpSegmentBytes input bytes; each segment is parsed from its first byte as if a token
//      started there, recording every token (input position, decoded bytes) that starts inside
//      it ("own" records) and then kLz4BpMarginBytes further ("overflow" records), until the
//      chain ends (last sequence, or bytes that cannot be a sequence). A wrong start usually
//      joins the true token chain within a few tokens: both are walks over the same bytes, and
//      once they share a position they coincide;
//   2. link (independent per segment): the first overflow record of segment k that is also an
//      own record of segment k + 1 (the join: from there on both chains are one);
//   3. stitch (serial per chunk, one step per segment): the true chain's first token in segment
//      k is known from segment k - 1 (its join); segment k's true records run from there to its
//      own join with k + 1 (the overflow records before the join belong to k). When segment
//      k - 1's chain never joins k's, segment k is parsed again from the true position (the
//      fallback: correctness never depends on convergence);
//   4. bytes (per segment): decoded bytes of its true records;
//   5. scan (serial per chunk): output offsets of the segments, and where the pieces of the
//      execute pass start (lz4_bp_starts_piece: about every kLz4BpPieceBytes of output);
//   6. check (per segment): every bounds check of lz4_parse_sequence on the true chain, with the
//      absolute output position (offset within the output, lengths within the capacity);
//   7. finish (serial per chunk): the first failure in stream order, as the serial decoder
//      reports it;
//   8. execute (per piece, only for chunks that passed; pieces in any order): a piece's literals,
//      then its matches in order. A byte is *local* when its value is known in the piece (a
//      literal, or a match byte whose source is local), else *external*: its source lies before
//      the piece, directly or through the piece's earlier matches. External bytes get a mark and
//      that source position (`origins`) instead of a value;
//   9. resolve (per byte, any order): an external byte follows its origin, and the origin's
//      origin while that is external, to a local byte, and takes its value. Origins always lie
//      in earlier pieces, so the walk ends; on liblz4's output of a field of ratio 2.2, 64 KiB
//      pieces leave a third of the bytes external, 1.3 pieces deep on average
//      (cuzarr_segment_dependence). No piece waits for another.
// Everything is CUZARR_HOST_DEVICE, allocation-free and exception-free; the state lives in a slot
// of caller memory (lz4_bp_slot_layout). Hostile blocks give the verdict of the serial decoder
// (lz4_decode_block_serial) and never an access outside in[0, in_size) or out[0, capacity); the
// speculative parses of garbage are bounded by the same input checks.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Input bytes per segment.
inline constexpr uint64_t kLz4BpSegmentBytes = 1024;
/// Output bytes a piece of the execute pass covers, about (at most one piece starts in each window
/// of this many bytes): larger pieces leave fewer bytes external, smaller ones run more warps at
/// once.
inline constexpr uint64_t kLz4BpPieceBytes = 65536;
/// Input bytes past its end over which a segment's chain goes on (to join the next one's).
inline constexpr uint64_t kLz4BpMarginBytes = 1024;
/// Every sequence but the last takes at least 3 input bytes (token, 2-byte offset), so at most
/// this many tokens start in a segment and its margin (the last one included).
inline constexpr uint64_t kLz4BpMaxRecords = (kLz4BpSegmentBytes + kLz4BpMarginBytes) / 3 + 2;
/// The smallest blocks the block-parallel path was built for (callers pass it, or another size, as
/// `block_parallel_from`).
inline constexpr uint64_t kLz4BpMinCapacity = uint64_t{4} << 20;
/// `block_parallel_from` of the batch decoders by default: no block takes the block-parallel path.
/// Measured on an H200 (1 GiB batches, bench/RESULTS.md), the warp per block is faster at every
/// size: 116 against 39 GB/s at 4 MiB, 25 against 13 at 32 MiB on data of ratio 1.0, and on data
/// of ratio 2 the block-parallel path fell below 0.03 GB/s (each segment waited for the end of the
/// one before, segment after segment) where the warps reach 2 to 16 GB/s. Those numbers are of the
/// earlier execute pass. The pieces (passes 8 and 9) wait for nothing: 12 GB/s at 1 and 4 MiB on
/// data of ratio 2.2 (the warps: 86 and 25), 11.8 at 16 MiB (the warps: 6.4), 22 to 34 on data of
/// ratio 1.0 (the warps: 144 to 448).
inline constexpr uint64_t kLz4BpOff = UINT64_MAX;
/// Output capacities and input sizes of the path stay below this (32-bit record fields).
inline constexpr uint64_t kLz4BpMaxSize = uint64_t{1} << 31;
inline constexpr uint32_t kLz4BpNone = 0xFFFFFFFFu;

/// What a token at a given position turns out to be (input checks only).
enum class Lz4TokenKind : uint32_t {
  sequence = 0,             ///< literals and a match
  last = 1,                 ///< literals that end exactly at the end of the input
  bad_before_literals = 2,  ///< truncated length bytes, or literals past the input
  bad_after_literals = 3,   ///< truncated offset or match length bytes, or offset 0
};

/// One token decoded at a position, with the input checks of lz4_parse_sequence (the checks
/// that need the output position are left to the check pass).
struct Lz4Token {
  uint64_t literal_start = 0;
  uint64_t literal_length = 0;
  uint64_t distance = 0;
  uint64_t match_length = 0;
  uint64_t next = 0;  ///< where the next token starts (sequence only)
  Lz4TokenKind kind = Lz4TokenKind::sequence;
};

/// Decodes the token at in[ip]; reads nothing outside in[0, in_size).
CUZARR_HOST_DEVICE inline Lz4Token lz4_bp_parse_token(const unsigned char* in, uint64_t in_size,
                                                      uint64_t ip) {
  Lz4Token t;
  if (ip >= in_size) {
    t.kind = Lz4TokenKind::bad_before_literals;
    return t;
  }
  const unsigned token = in[ip++];
  uint64_t literals = token >> 4;
  if (literals == 15) {
    unsigned extra;
    do {
      if (ip >= in_size) {
        t.kind = Lz4TokenKind::bad_before_literals;
        return t;
      }
      extra = in[ip++];
      literals += extra;
    } while (extra == 255);
  }
  if (literals > in_size - ip) {
    t.kind = Lz4TokenKind::bad_before_literals;
    return t;
  }
  t.literal_start = ip;
  t.literal_length = literals;
  ip += literals;
  if (ip == in_size) {  // the last sequence: literals only
    t.kind = Lz4TokenKind::last;
    t.next = ip;
    return t;
  }
  if (in_size - ip < 2) {
    t.kind = Lz4TokenKind::bad_after_literals;
    return t;
  }
  t.distance = load_le16(in + ip);
  ip += 2;
  if (t.distance == 0) {
    t.kind = Lz4TokenKind::bad_after_literals;
    return t;
  }
  uint64_t length = (token & 15u) + kLz4MinMatch;
  if ((token & 15u) == 15) {
    unsigned extra;
    do {
      if (ip >= in_size) {
        t.kind = Lz4TokenKind::bad_after_literals;
        return t;
      }
      extra = in[ip++];
      length += extra;
    } while (extra == 255);
  }
  t.match_length = length;
  t.next = ip;
  return t;
}

/// Decoded bytes of a token for the byte count (saturated: a count this large fails the checks).
CUZARR_HOST_DEVICE inline uint32_t lz4_bp_token_bytes(const Lz4Token& t) {
  if (t.kind == Lz4TokenKind::bad_before_literals || t.kind == Lz4TokenKind::bad_after_literals)
    return 0;
  const uint64_t n = t.literal_length + t.match_length;
  return n >= kLz4BpNone ? kLz4BpNone : static_cast<uint32_t>(n);
}

/// Whether a token ends its chain.
CUZARR_HOST_DEVICE inline bool lz4_bp_token_ends(const Lz4Token& t) {
  return t.kind != Lz4TokenKind::sequence;
}

/// A token of a segment's chain: its input position; `value` holds its decoded bytes after the
/// parse and its absolute output position after the check pass.
struct Lz4BpRecord {
  uint32_t position;
  uint32_t value;
};

struct Lz4BpSegment {
  // Parse.
  uint32_t count;       ///< own records (starting inside the segment)
  uint32_t total;       ///< own and overflow records
  uint32_t terminated;  ///< the chain ended (last sequence or a bad token) at record total - 1
  uint32_t reparsed;    ///< 1 when the stitch parsed it again from the true position
  uint64_t next;        ///< where the chain's next token starts (not terminated)
  // Link.
  uint32_t join;         ///< the overflow record (index from `count`) that is an own record of
                         ///< the next segment, or kLz4BpNone
  uint32_t join_record;  ///< that own record's index in the next segment
  // Stitch.
  uint32_t first;  ///< records [first, end) belong to the true chain
  uint32_t end;
  // Bytes, scan.
  uint64_t bytes;
  uint64_t out_offset;
  uint32_t piece_start;  ///< 1 when a piece of the execute pass starts at its first true record
  // Check.
  DeviceChunkStatus status;  ///< the first failure among its true records (ok: none)
  uint32_t fail_record;
};

struct Lz4BpChunkPlan {
  uint32_t parallel;  ///< 0: decode this chunk with the serial (warp) decoder
  uint32_t segments;
  uint32_t terminated;        ///< the true chain ended (stitch)
  uint32_t reparsed;          ///< segments the stitch parsed again
  uint64_t reparsed_records;  ///< tokens those parses visited
  uint64_t output_size;
  DeviceChunkStatus status;  ///< the finish pass's verdict
};

/// Byte offsets of a slot's parts for blocks of at most `max_input` bytes decoding to at most
/// `max_output`.
struct Lz4BpSlotLayout {
  uint64_t segments_at, records_at, marks_at, origins_at, max_segments, bytes;
};

CUZARR_HOST_DEVICE inline uint64_t lz4_bp_align(uint64_t n) { return (n + 255) / 256 * 256; }

CUZARR_HOST_DEVICE inline uint64_t lz4_bp_segment_count(uint64_t in_size) {
  return (in_size + kLz4BpSegmentBytes - 1) / kLz4BpSegmentBytes;
}

/// The largest LZ4 block a chunk of `capacity` bytes takes on the path (LZ4_COMPRESSBOUND):
/// larger ones (hostile, or padded) decode serially.
CUZARR_HOST_DEVICE inline uint64_t lz4_bp_max_input(uint64_t capacity) {
  return lz4_encode_bound(capacity);
}

CUZARR_HOST_DEVICE inline Lz4BpSlotLayout lz4_bp_slot_layout(uint64_t max_input,
                                                             uint64_t max_output) {
  Lz4BpSlotLayout l{};
  l.max_segments = lz4_bp_segment_count(max_input);
  l.segments_at = lz4_bp_align(sizeof(Lz4BpChunkPlan));
  l.records_at = l.segments_at + lz4_bp_align(l.max_segments * sizeof(Lz4BpSegment));
  l.marks_at = l.records_at + lz4_bp_align(l.max_segments * kLz4BpMaxRecords * sizeof(Lz4BpRecord));
  l.origins_at = l.marks_at + lz4_bp_align(max_output);
  l.bytes = l.origins_at + lz4_bp_align(max_output * sizeof(uint32_t));
  return l;
}

struct Lz4BpSlot {
  Lz4BpChunkPlan* plan;
  Lz4BpSegment* segments;
  Lz4BpRecord* records;  ///< segment k's at records + k * kLz4BpMaxRecords
  unsigned char* marks;  ///< per output byte after the execute pass: 1 when external
  uint32_t* origins;     ///< per external output byte: where its value comes from
};

CUZARR_HOST_DEVICE inline Lz4BpSlot lz4_bp_slot(void* base, const Lz4BpSlotLayout& l) {
  auto* b = static_cast<unsigned char*>(base);
  return Lz4BpSlot{reinterpret_cast<Lz4BpChunkPlan*>(b),
                   reinterpret_cast<Lz4BpSegment*>(b + l.segments_at),
                   reinterpret_cast<Lz4BpRecord*>(b + l.records_at), b + l.marks_at,
                   reinterpret_cast<uint32_t*>(b + l.origins_at)};
}

CUZARR_HOST_DEVICE inline Lz4BpRecord* lz4_bp_records(const Lz4BpSlot& slot, uint64_t k) {
  return slot.records + k * kLz4BpMaxRecords;
}

/// Whether a block of in_size bytes for `capacity` output bytes takes the path (capacity at
/// least `min_capacity`, both within the path's limits and the slot's).
CUZARR_HOST_DEVICE inline bool lz4_bp_qualifies(uint64_t in_size, uint64_t capacity,
                                                uint64_t min_capacity, uint64_t slot_max_input) {
  return capacity >= min_capacity && capacity < kLz4BpMaxSize && in_size > 0 &&
         in_size <= lz4_bp_max_input(capacity) && in_size <= slot_max_input &&
         in_size < kLz4BpMaxSize;
}

/// Plans a chunk (pass 0): parallel or not, the segment count.
CUZARR_HOST_DEVICE inline void lz4_bp_plan(uint64_t in_size, uint64_t capacity,
                                           uint64_t min_capacity, uint64_t slot_max_input,
                                           const Lz4BpSlot& slot) {
  Lz4BpChunkPlan& plan = *slot.plan;
  plan = Lz4BpChunkPlan{};
  plan.status = DeviceChunkStatus::ok;
  plan.parallel = lz4_bp_qualifies(in_size, capacity, min_capacity, slot_max_input) ? 1 : 0;
  plan.segments = plan.parallel ? static_cast<uint32_t>(lz4_bp_segment_count(in_size)) : 0;
}

CUZARR_HOST_DEVICE inline uint64_t lz4_bp_segment_end(uint64_t in_size, uint64_t k) {
  const uint64_t end = (k + 1) * kLz4BpSegmentBytes;
  return end < in_size ? end : in_size;
}

// ---------------------------------------------------------------------------------------------
// 1. Parse.

/// Parses segment k's chain from input position `from` (inside the segment) into its records:
/// tokens starting before the segment's end, then those starting in the margin after it.
CUZARR_HOST_DEVICE inline void lz4_bp_parse_chain(const unsigned char* in, uint64_t in_size,
                                                  const Lz4BpSlot& slot, uint64_t k,
                                                  uint64_t from) {
  Lz4BpSegment& seg = slot.segments[k];
  Lz4BpRecord* records = lz4_bp_records(slot, k);
  const uint64_t end = lz4_bp_segment_end(in_size, k);
  const uint64_t margin_end = in_size - end < kLz4BpMarginBytes ? in_size : end + kLz4BpMarginBytes;
  uint64_t ip = from;
  uint32_t total = 0, count = 0;
  uint32_t terminated = 0;
  // Tokens start at least 3 bytes apart, so total stays below kLz4BpMaxRecords; the bound is
  // kept anyway (a full record array stops the chain like the margin's end).
  while (ip < margin_end && total < kLz4BpMaxRecords) {
    const Lz4Token t = lz4_bp_parse_token(in, in_size, ip);
    records[total++] = Lz4BpRecord{static_cast<uint32_t>(ip), lz4_bp_token_bytes(t)};
    if (ip < end) count = total;
    if (lz4_bp_token_ends(t)) {
      terminated = 1;
      break;
    }
    ip = t.next;
  }
  seg.count = count;
  seg.total = total;
  seg.terminated = terminated;
  seg.next = ip;
}

/// Pass 1 for segment k: its speculative chain from its first byte.
CUZARR_HOST_DEVICE inline void lz4_bp_parse_segment(const unsigned char* in, uint64_t in_size,
                                                    const Lz4BpSlot& slot, uint64_t k) {
  lz4_bp_parse_chain(in, in_size, slot, k, k * kLz4BpSegmentBytes);
  slot.segments[k].reparsed = 0;
  slot.segments[k].status = DeviceChunkStatus::ok;
}

// ---------------------------------------------------------------------------------------------
// 2. Link.

/// The index of segment k's own record at input position p, or kLz4BpNone (binary search:
/// records are in input order).
CUZARR_HOST_DEVICE inline uint32_t lz4_bp_find_record(const Lz4BpSlot& slot, uint64_t k,
                                                      uint64_t p) {
  const Lz4BpRecord* records = lz4_bp_records(slot, k);
  uint32_t lo = 0, hi = slot.segments[k].count;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (records[mid].position < p) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < slot.segments[k].count && records[lo].position == p ? lo : kLz4BpNone;
}

/// Pass 2 for segment k (after pass 1 for k and k + 1): its join with k + 1.
CUZARR_HOST_DEVICE inline void lz4_bp_link_segment(const Lz4BpSlot& slot, uint64_t k) {
  Lz4BpSegment& seg = slot.segments[k];
  seg.join = kLz4BpNone;
  seg.join_record = kLz4BpNone;
  if (k + 1 >= slot.plan->segments) return;
  const Lz4BpRecord* records = lz4_bp_records(slot, k);
  for (uint32_t i = seg.count; i < seg.total; ++i) {
    const uint32_t j = lz4_bp_find_record(slot, k + 1, records[i].position);
    if (j != kLz4BpNone) {
      seg.join = i - seg.count;
      seg.join_record = j;
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Stitch.

/// The stitch's state between segments: the true chain's next token position (and its own
/// record index in segment `hint_segment` when a join found it), or the chain's end.
struct Lz4BpStitchState {
  uint64_t position = 0;
  uint64_t hint_segment = 0;
  uint32_t hint = 0;  ///< segment 0's chain starts at the true start
  bool ended = false;
};

/// One stitch step for segment k, given the true chain's state before it.
CUZARR_HOST_DEVICE inline void lz4_bp_stitch_step(const unsigned char* in, uint64_t in_size,
                                                  const Lz4BpSlot& slot, uint64_t k,
                                                  Lz4BpStitchState& state) {
  Lz4BpSegment& seg = slot.segments[k];
  if (state.ended || state.position >= lz4_bp_segment_end(in_size, k)) {
    seg.first = seg.end = 0;  // no true token starts here (a long literal run crosses it)
    return;
  }
  uint32_t j = state.hint_segment == k && state.hint != kLz4BpNone
                   ? state.hint
                   : lz4_bp_find_record(slot, k, state.position);
  if (j == kLz4BpNone) {  // the chain before never joined this one: parse again from it
    lz4_bp_parse_chain(in, in_size, slot, k, state.position);
    seg.reparsed = 1;
    ++slot.plan->reparsed;
    slot.plan->reparsed_records += seg.total;
    lz4_bp_link_segment(slot, k);
    j = 0;
  }
  seg.first = j;
  state.hint = kLz4BpNone;
  if (seg.join != kLz4BpNone) {
    seg.end = seg.count + seg.join;
    state.position = lz4_bp_records(slot, k)[seg.end].position;
    state.hint_segment = k + 1;
    state.hint = seg.join_record;
  } else {
    seg.end = seg.total;
    if (seg.terminated) {
      state.ended = true;
    } else {
      state.position = seg.next;
    }
  }
}

// The warp stitch (GPU): while the true chain enters segment k at a known own record
// (state.hint), segments k, k + 1, ... that each enter where the previous one joined them form a
// run, set in one step (a lane per segment) with the same result as lz4_bp_stitch_step.

/// Whether segment k + l belongs to the run starting at segment k.
CUZARR_HOST_DEVICE inline bool lz4_bp_run_member(const Lz4BpSlot& slot, uint32_t k, uint32_t l) {
  const uint32_t s = k + l;
  return s < slot.plan->segments && (l == 0 || slot.segments[s - 1].join != kLz4BpNone);
}

/// Sets segment k + l of a run (k entered at `hint`).
CUZARR_HOST_DEVICE inline void lz4_bp_run_segment(const Lz4BpSlot& slot, uint32_t k, uint32_t l,
                                                  uint32_t hint) {
  const uint32_t s = k + l;
  Lz4BpSegment& seg = slot.segments[s];
  seg.first = l == 0 ? hint : slot.segments[s - 1].join_record;
  seg.end = seg.join != kLz4BpNone ? seg.count + seg.join : seg.total;
}

/// The stitch's state after the run's last segment.
CUZARR_HOST_DEVICE inline void lz4_bp_run_leave(const Lz4BpSlot& slot, uint32_t last,
                                                Lz4BpStitchState& state) {
  const Lz4BpSegment& seg = slot.segments[last];
  if (seg.join != kLz4BpNone) {
    state.position = lz4_bp_records(slot, last)[seg.count + seg.join].position;
    state.hint_segment = last + 1;
    state.hint = seg.join_record;
  } else {
    state.hint = kLz4BpNone;
    if (seg.terminated) {
      state.ended = true;
    } else {
      state.position = seg.next;
    }
  }
}

/// Pass 3 for a chunk, serially.
CUZARR_HOST_DEVICE inline void lz4_bp_stitch(const unsigned char* in, uint64_t in_size,
                                             const Lz4BpSlot& slot) {
  Lz4BpStitchState state;
  for (uint32_t k = 0; k < slot.plan->segments; ++k)
    lz4_bp_stitch_step(in, in_size, slot, k, state);
  slot.plan->terminated = state.ended ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// 4. Bytes, 5. scan.

/// Pass 4 for segment k, serially.
CUZARR_HOST_DEVICE inline void lz4_bp_segment_bytes(const Lz4BpSlot& slot, uint64_t k) {
  const Lz4BpSegment& seg = slot.segments[k];
  const Lz4BpRecord* records = lz4_bp_records(slot, k);
  uint64_t bytes = 0;
  for (uint32_t i = seg.first; i < seg.end; ++i) bytes += records[i].value;
  slot.segments[k].bytes = bytes;
}

/// Whether a piece of the execute pass starts at segment k, whose output starts at `offset`: at
/// segment 0, and at a segment with true records whose output starts in another window of
/// kLz4BpPieceBytes than that of `last`, the latest segment before k with true records (segments
/// without, crossed by a long literal run, cannot start a piece). So at most one piece starts in
/// each window, and a piece covers about kLz4BpPieceBytes or more.
CUZARR_HOST_DEVICE inline bool lz4_bp_starts_piece(uint32_t k, uint64_t last, uint64_t offset,
                                                   bool has_records) {
  return k == 0 || (has_records && last / kLz4BpPieceBytes != offset / kLz4BpPieceBytes);
}

/// Pass 5 for a chunk: output offsets, total size, piece starts.
CUZARR_HOST_DEVICE inline void lz4_bp_scan(const Lz4BpSlot& slot) {
  uint64_t offset = 0, last = 0;
  for (uint32_t k = 0; k < slot.plan->segments; ++k) {
    Lz4BpSegment& seg = slot.segments[k];
    const bool has_records = seg.first < seg.end;
    seg.out_offset = offset;
    seg.piece_start = lz4_bp_starts_piece(k, last, offset, has_records) ? 1 : 0;
    if (has_records) last = offset;
    offset += seg.bytes;
  }
  slot.plan->output_size = offset;
}

// ---------------------------------------------------------------------------------------------
// 6. Check, 7. finish.

/// The checks of lz4_parse_sequence that need the output position, in its order, for a token
/// starting at output position op.
CUZARR_HOST_DEVICE inline DeviceChunkStatus lz4_bp_check_token(const Lz4Token& t, uint64_t op,
                                                               uint64_t capacity) {
  if (t.kind == Lz4TokenKind::bad_before_literals) return DeviceChunkStatus::corrupt_input;
  if (op > capacity || t.literal_length > capacity - op) return DeviceChunkStatus::output_too_small;
  if (t.kind == Lz4TokenKind::last) return DeviceChunkStatus::ok;
  if (t.kind == Lz4TokenKind::bad_after_literals) return DeviceChunkStatus::corrupt_input;
  op += t.literal_length;
  if (t.distance > op) return DeviceChunkStatus::corrupt_input;  // before the block's start
  if (t.match_length > capacity - op) return DeviceChunkStatus::output_too_small;
  return DeviceChunkStatus::ok;
}

/// Pass 6 for segment k, serially: checks its true records and stores their output positions.
CUZARR_HOST_DEVICE inline void lz4_bp_check_segment(const unsigned char* in, uint64_t in_size,
                                                    uint64_t capacity, const Lz4BpSlot& slot,
                                                    uint64_t k) {
  Lz4BpSegment& seg = slot.segments[k];
  Lz4BpRecord* records = lz4_bp_records(slot, k);
  uint64_t op = seg.out_offset;
  seg.status = DeviceChunkStatus::ok;
  for (uint32_t i = seg.first; i < seg.end; ++i) {
    const Lz4Token t = lz4_bp_parse_token(in, in_size, records[i].position);
    const DeviceChunkStatus s = lz4_bp_check_token(t, op, capacity);
    if (s != DeviceChunkStatus::ok) {
      seg.status = s;
      seg.fail_record = i;
      return;
    }
    records[i].value = static_cast<uint32_t>(op);  // op <= capacity < 2^31
    op += t.literal_length + t.match_length;
  }
}

/// Pass 7 for a chunk: the first failure in stream order (the serial decoder's verdict).
CUZARR_HOST_DEVICE inline DecodeResult lz4_bp_finish(const Lz4BpSlot& slot) {
  Lz4BpChunkPlan& plan = *slot.plan;
  for (uint32_t k = 0; k < plan.segments; ++k) {
    if (slot.segments[k].status != DeviceChunkStatus::ok) {
      plan.status = slot.segments[k].status;
      return {plan.status, 0};
    }
  }
  // A chain that never ends runs into the end of the input: the serial decoder then reads a
  // token past it.
  plan.status = plan.terminated ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
  return {plan.status, plan.status == DeviceChunkStatus::ok ? plan.output_size : 0};
}

// ---------------------------------------------------------------------------------------------
// 8. Execute (chunks that passed the finish only), 9. resolve.

/// The segment after the piece that starts at segment k (the next piece's first, or the count).
CUZARR_HOST_DEVICE inline uint32_t lz4_bp_piece_end(const Lz4BpSlot& slot, uint32_t k) {
  uint32_t e = k + 1;
  while (e < slot.plan->segments && !slot.segments[e].piece_start) ++e;
  return e;
}

/// Match byte p of a piece whose output starts at `start`, copied from q (< p): external when q
/// lies before the piece or is external itself (the origin carries over), else its value.
CUZARR_HOST_DEVICE inline void lz4_bp_copy_match_byte(const Lz4BpSlot& slot, unsigned char* out,
                                                      uint64_t start, uint64_t p, uint64_t q) {
  if (q < start) {
    slot.marks[p] = 1;
    slot.origins[p] = static_cast<uint32_t>(q);
    return;
  }
  const unsigned char external = slot.marks[q];
  slot.marks[p] = external;
  if (external) {
    slot.origins[p] = slot.origins[q];
  } else {
    out[p] = out[q];
  }
}

/// Pass 8 for the piece that starts at segment k, serially: its literals (local), then its
/// matches in order.
CUZARR_HOST_DEVICE inline void lz4_bp_execute_piece_serial(const unsigned char* in,
                                                           uint64_t in_size, const Lz4BpSlot& slot,
                                                           uint32_t k, unsigned char* out) {
  const uint32_t end = lz4_bp_piece_end(slot, k);
  const uint64_t start = slot.segments[k].out_offset;
  for (uint32_t s = k; s < end; ++s) {
    const Lz4BpSegment& seg = slot.segments[s];
    const Lz4BpRecord* records = lz4_bp_records(slot, s);
    for (uint32_t i = seg.first; i < seg.end; ++i) {
      const Lz4Token t = lz4_bp_parse_token(in, in_size, records[i].position);
      for (uint64_t b = 0; b < t.literal_length; ++b) {
        out[records[i].value + b] = in[t.literal_start + b];
        slot.marks[records[i].value + b] = 0;
      }
    }
  }
  for (uint32_t s = k; s < end; ++s) {
    const Lz4BpSegment& seg = slot.segments[s];
    const Lz4BpRecord* records = lz4_bp_records(slot, s);
    for (uint32_t i = seg.first; i < seg.end; ++i) {
      const Lz4Token t = lz4_bp_parse_token(in, in_size, records[i].position);
      if (t.kind != Lz4TokenKind::sequence) continue;
      const uint64_t at = uint64_t{records[i].value} + t.literal_length;
      for (uint64_t b = 0; b < t.match_length; ++b)
        lz4_bp_copy_match_byte(slot, out, start, at + b, match_source(at, t.distance, b));
    }
  }
}

/// Pass 9 for output byte p (after every piece's execute pass): an external byte follows its
/// origins to a local byte and takes its value. Reads only local bytes' values and writes only
/// external ones, so bytes may go in any order and at once.
CUZARR_HOST_DEVICE inline void lz4_bp_resolve_byte(const Lz4BpSlot& slot, unsigned char* out,
                                                   uint64_t p) {
  if (!slot.marks[p]) return;
  uint64_t q = slot.origins[p];
  while (slot.marks[q]) q = slot.origins[q];  // origins lie in earlier pieces: the walk ends
  out[p] = out[q];
}

}  // namespace cuzarr::gpu
