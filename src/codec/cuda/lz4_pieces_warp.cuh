// The warp code of the block-parallel LZ4 decoder's pieces (lz4_block_parallel.hpp): pass 5 (the
// scan that places the pieces) for a chunk, passes 8 (execute) and 9 (resolve) for one piece
// (.cu files; the CPU tests run them with emulated warps). A piece is the segments [first, end)
// of a block that passed the checks; every lane passes the same arguments.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_parallel.hpp"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// Pass 5 for a chunk by a warp (lz4_bp_scan, 32 segments at a time): output offsets by a prefix
/// sum, the total size, and the piece starts, each lane finding the latest segment with true
/// records before its own by a max-scan over the lanes.
__device__ inline void warp_lz4_scan_segments(const Lz4BpSlot& slot, unsigned lane) {
  const uint32_t n = slot.plan->segments;
  // running: output before the group; last: output start of the latest segment with true
  // records in the groups before.
  uint64_t running = 0, last = 0;
  for (uint32_t base = 0; base < n; base += kWarpSize) {
    const uint32_t k = base + lane;
    Lz4BpSegment* seg = k < n ? &slot.segments[k] : nullptr;
    const uint64_t bytes = seg != nullptr ? seg->bytes : 0;
    const bool has_records = seg != nullptr && seg->first < seg->end;
    const uint64_t incl = warp_inclusive_sum64(bytes, lane);
    const uint64_t offset = running + incl - bytes;
    // latest + 1: the highest lane up to this one with true records, plus one (0: none).
    unsigned latest = has_records ? lane + 1 : 0;
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      const unsigned other = __shfl_up_sync(kFullMask, latest, d);
      if (lane >= d && other > latest) latest = other;
    }
    unsigned before = __shfl_up_sync(kFullMask, latest, 1);  // lanes before this one
    if (lane == 0) before = 0;
    const uint64_t before_offset = shfl64(offset, before > 0 ? before - 1 : 0);
    if (seg != nullptr) {
      seg->out_offset = offset;
      seg->piece_start =
          lz4_bp_starts_piece(k, before > 0 ? before_offset : last, offset, has_records) ? 1 : 0;
    }
    const unsigned group_latest = __shfl_sync(kFullMask, latest, kWarpSize - 1);
    const uint64_t group_last = shfl64(offset, group_latest > 0 ? group_latest - 1 : 0);
    if (group_latest > 0) last = group_last;
    running += shfl64(incl, kWarpSize - 1);
  }
  if (lane == 0) slot.plan->output_size = running;
  __syncwarp();
}

/// The literals of a piece, 32 tokens at a time (local bytes: mark 0): short runs copied by their
/// lane, longer ones by the warp one after the other. Ends with __syncwarp.
__device__ inline void warp_lz4_piece_literals(const unsigned char* in, uint64_t in_size,
                                               unsigned char* out, const Lz4BpSlot& slot,
                                               uint32_t first, uint32_t end, unsigned lane) {
  for (uint32_t k = first; k < end; ++k) {
    const Lz4BpSegment& seg = slot.segments[k];
    const Lz4BpRecord* records = lz4_bp_records(slot, k);
    for (uint32_t base = seg.first; base < seg.end; base += kWarpSize) {
      const uint32_t i = base + lane;
      uint64_t from = 0, len = 0, to = 0;
      if (i < seg.end) {
        const Lz4Token tok = lz4_bp_parse_token(in, in_size, records[i].position);
        from = tok.literal_start;
        len = tok.literal_length;
        to = records[i].value;
      }
      if (__all_sync(kFullMask, len <= 16)) {  // short runs: each lane copies its own
        for (uint64_t b = 0; b < len; ++b) {
          out[to + b] = in[from + b];
          slot.marks[to + b] = 0;
        }
        continue;
      }
      const uint32_t count = umin(kWarpSize, seg.end - base);
      for (uint32_t j = 0; j < count; ++j) {
        const uint64_t n = shfl64(len, j), at = shfl64(to, j), src = shfl64(from, j);
        if (n == 0) continue;
        cooperative_copy(out + at, in + src, n, lane, kWarpSize);
        for (uint64_t b = lane; b < n; b += kWarpSize) slot.marks[at + b] = 0;
      }
    }
  }
  __syncwarp();  // every literal of the piece is visible to the warp
}

/// The matches of a piece, 32 tokens at a time, in order (after warp_lz4_piece_literals), in
/// waves (warp_match_waves): each wave copies the matches whose sources are final, short ones
/// (up to 64 bytes) by their own lane, longer ones by the warp one after the other
/// (lz4_bp_copy_match_byte: values of local bytes, marks and origins of external ones). Ends with
/// __syncwarp.
__device__ inline void warp_lz4_piece_matches(const unsigned char* in, uint64_t in_size,
                                              unsigned char* out, const Lz4BpSlot& slot,
                                              uint32_t first, uint32_t end, unsigned lane) {
  const uint64_t start = slot.segments[first].out_offset;
  for (uint32_t k = first; k < end; ++k) {
    const Lz4BpSegment& seg = slot.segments[k];
    const Lz4BpRecord* records = lz4_bp_records(slot, k);
    for (uint32_t base = seg.first; base < seg.end; base += kWarpSize) {
      const uint32_t i = base + lane;
      const uint32_t count = umin(kWarpSize, seg.end - base);
      uint64_t ml = 0, at = 0, dist = 1;
      if (i < seg.end) {
        const Lz4Token tok = lz4_bp_parse_token(in, in_size, records[i].position);
        at = uint64_t{records[i].value} + tok.literal_length;
        if (tok.kind == Lz4TokenKind::sequence) {
          ml = tok.match_length;
          dist = tok.distance;
        }
      }
      // Lanes without a token sit at the group's end, so match_at never decreases with the lane.
      const uint64_t group_end = shfl64(at + ml, count - 1);
      if (i >= seg.end) at = group_end;
      warp_match_waves(ml > 0, at, ml, dist, lane, [&](bool ready) {
        if (ready && ml <= 64) {
          for (uint64_t b = 0; b < ml; ++b)
            lz4_bp_copy_match_byte(slot, out, start, at + b, match_source(at, dist, b));
        }
        for (unsigned longs = __ballot_sync(kFullMask, ready && ml > 64); longs != 0;
             longs &= longs - 1) {
          const unsigned j = __ffs(longs) - 1;
          const uint64_t len = shfl64(ml, j), to = shfl64(at, j), d = shfl64(dist, j);
          for (uint64_t b = lane; b < len; b += kWarpSize)
            lz4_bp_copy_match_byte(slot, out, start, to + b, match_source(to, d, b));
        }
      });
    }
  }
}

/// Pass 8 for the piece: its literals, then its matches.
__device__ inline void warp_lz4_execute_piece(const unsigned char* in, uint64_t in_size,
                                              unsigned char* out, const Lz4BpSlot& slot,
                                              uint32_t first, uint32_t end, unsigned lane) {
  warp_lz4_piece_literals(in, in_size, out, slot, first, end, lane);
  warp_lz4_piece_matches(in, in_size, out, slot, first, end, lane);
}

/// Pass 9 for the piece, after pass 8 of every piece of the block: the lanes load its marks 16 at
/// a time (the marks array is 256-byte aligned and padded to 256 bytes), then take the words with
/// an external byte two at a time, a lane per byte (lanes 0-15 the first word, 16-31 the second),
/// and resolve those bytes (lz4_bp_resolve_byte): neighbouring lanes on neighbouring bytes, whose
/// origins are usually neighbours too.
__device__ inline void warp_lz4_resolve_piece(unsigned char* out, const Lz4BpSlot& slot,
                                              uint32_t first, uint32_t end, unsigned lane) {
  const uint64_t begin = slot.segments[first].out_offset;
  const uint64_t stop =
      end < slot.plan->segments ? slot.segments[end].out_offset : slot.plan->output_size;
  for (uint64_t w = begin / 16 * 16; w < stop; w += kWarpSize * 16) {
    const uint64_t mine = w + uint64_t{lane} * 16;
    bool external = false;
    if (mine < stop) {
      const uint4 word = *reinterpret_cast<const uint4*>(slot.marks + mine);
      external = (word.x | word.y | word.z | word.w) != 0;
    }
    unsigned words = __ballot_sync(kFullMask, external);
    while (words != 0) {
      const unsigned a = __ffs(words) - 1;
      words &= words - 1;
      unsigned b = a;
      if (words != 0) {
        b = __ffs(words) - 1;
        words &= words - 1;
      }
      const bool second = lane >= 16;
      const uint64_t q = w + uint64_t{second ? b : a} * 16 + (lane & 15u);
      if ((!second || b != a) && q >= begin && q < stop) lz4_bp_resolve_byte(slot, out, q);
    }
  }
}

}  // namespace cuzarr::gpu::detail
