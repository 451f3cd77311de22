// The warp passes of block-parallel inflate (inflate_block_parallel.hpp): search, count, write
// and finish (.cu files and the emulated-warp tests). Every lane of the warp calls each pass with
// the same arguments; the passes of different segments are independent.
#pragma once

#include <cstdint>

#include "codec/cuda/inflate_block_parallel.hpp"
#include "codec/cuda/inflate_block_search.hpp"
#include "codec/cuda/inflate_warp_decode.cuh"
#include "codec/cuda/inflate_warp_tokens.cuh"
#include "codec/cuda/kernel_support.cuh"

namespace cuzarr::gpu::detail {

/// Step 2 for segment k >= 1: the lanes test consecutive bit offsets of the segment; the first
/// candidate becomes the segment's start.
__device__ inline void warp_inflate_bp_search(const unsigned char* in, uint64_t size,
                                              const InflateBpSlot& slot, uint32_t k,
                                              unsigned lane) {
  uint64_t first = 0, end = 0;
  inflate_bp_search_range(*slot.chunk, size, k, first, end);
  for (uint64_t base = first; base < end; base += kWarpSize) {
    const uint64_t bit = base + lane;
    const unsigned hits =
        __ballot_sync(kFullMask, bit < end && inflate_dynamic_header_at(in, size, bit));
    if (hits != 0) {
      if (lane == 0) slot.segments[k].start_bit = base + __ffs(hits) - 1;
      return;
    }
  }
}

/// A block header as lane 0 read it, known to the whole warp.
struct InflateBpBlock {
  DeviceChunkStatus status;
  bool huffman;          ///< else a stored block
  bool final_block;
  uint64_t first_bit;    ///< a Huffman block's first token; after a stored block's bytes
  uint64_t stored_in;    ///< a stored block's bytes in the input
  uint64_t stored_length;
};

/// Lane 0 reads the block header at `bit` with every check of the serial decoder; for a Huffman
/// block the warp then fills the primary tables.
__device__ inline InflateBpBlock warp_read_block_header(const unsigned char* in, uint64_t size,
                                                        uint64_t bit, InflateWorkspace& ws,
                                                        unsigned lane) {
  InflateStream s;
  InflateStep step;
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  if (lane == 0) {
    s.bits.seek_bit(in, size, bit);
    InflateHeaderSink header;
    status = inflate_next_to(s, ws, header, UINT64_MAX, step);
  }
  InflateBpBlock b;
  b.status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
  b.huffman = __shfl_sync(kFullMask, static_cast<int>(s.phase == InflatePhase::huffman), 0) != 0;
  b.final_block = __shfl_sync(kFullMask, static_cast<int>(s.final_block), 0) != 0;
  b.first_bit = shfl64(s.bits.bit_position(), 0);
  b.stored_in = shfl64(step.in_pos, 0);
  b.stored_length = shfl64(step.length, 0);
  if (b.status == DeviceChunkStatus::ok && b.huffman) warp_fill_pending_tables(ws, lane);
  return b;
}

/// Lane 0 starts a segment's decoding tables afresh (the warp fills the primary tables).
__device__ inline void warp_inflate_bp_begin(InflateWorkspace& ws, unsigned lane) {
  if (lane == 0) {
    ws.fixed_loaded = false;
    ws.defer_fast_tables = true;
    ws.fast_tables_pending = false;
  }
  __syncwarp();
}

/// Where segment k's decoding must arrive: the next segment's first block (kInflateBpNone for the
/// last segment: the stream's end), and the records it may use.
struct InflateBpSpan {
  uint64_t end_bit;
  InflateBpRound* records;
  uint32_t budget;
};

__device__ inline InflateBpSpan inflate_bp_span(const InflateBpLayout& l, const InflateBpSlot& slot,
                                                uint32_t k) {
  const uint32_t next = inflate_bp_next_segment(*slot.chunk, slot, k);
  InflateBpSpan span;
  span.end_bit = next < slot.chunk->segments ? slot.segments[next].start_bit : kInflateBpNone;
  span.records = slot.rounds + uint64_t{k} * l.rounds_per_segment;
  span.budget = (next - k) * l.rounds_per_segment;
  return span;
}

/// Step 3 for segment k: decodes from its first block to the next segment's, counting output
/// bytes and matches and recording every round.
__device__ inline void warp_inflate_bp_count(const unsigned char* in, uint64_t size,
                                             const InflateBpLayout& l, const InflateBpSlot& slot,
                                             uint32_t k, InflateWorkspace& ws, unsigned lane) {
  InflateBpSegment& seg = slot.segments[k];
  if (!slot.chunk->parallel || seg.start_bit == kInflateBpNone) return;
  const InflateBpSpan span = inflate_bp_span(l, slot, k);
  warp_inflate_bp_begin(ws, lane);
  const InflateLaneStream lanes{in, size, &ws};
  uint64_t bit = seg.start_bit, bytes = 0, matches = 0, stream_end = kInflateBpNone;
  uint32_t rounds = 0;
  bool failed = false;
  while (!failed && bit != span.end_bit) {
    if (bit > span.end_bit) {  // passed the next segment's start: it was no block boundary
      failed = true;
      break;
    }
    const InflateBpBlock b = warp_read_block_header(in, size, bit, ws, lane);
    if (b.status != DeviceChunkStatus::ok) {
      failed = true;
      break;
    }
    bit = b.first_bit;
    if (!b.huffman) bytes += b.stored_length;
    bool end_of_block = !b.huffman;
    while (!end_of_block) {
      InflateRound round{};
      if (rounds == span.budget) {
        failed = true;
        break;
      }
      const InflateRoundLane r = warp_plan_inflate_round(lanes, bit, UINT64_MAX, round, lane);
      if (round.redo_serially || bytes + round.bytes > l.max_output) {
        failed = true;
        break;
      }
      InflateBpRound& rec = span.records[rounds];
      rec.start[lane] = r.in_round ? static_cast<uint32_t>(r.d.from - bit) : 0;
      rec.out[lane] = static_cast<uint32_t>(bytes + r.bytes_before);
      rec.match[lane] = static_cast<uint32_t>(matches + r.matches_before);
      const unsigned in_round = __ballot_sync(kFullMask, r.in_round);
      if (lane == 0) {
        rec.from = bit;
        rec.end_bit = round.end_bit;
        rec.out_end = static_cast<uint32_t>(bytes + round.bytes);
        rec.last = kWarpSize - 1 - __clz(in_round);
        rec.end_of_block = round.end_of_block ? 1 : 0;
      }
      ++rounds;
      bytes += round.bytes;
      matches += round.match_count;
      bit = round.end_bit;
      end_of_block = round.end_of_block;
    }
    if (!failed && b.final_block) {
      // RFC 1951, 3.2.3: the final block ends the stream; a trailer starts at the next byte.
      if (span.end_bit != kInflateBpNone) failed = true;  // the stream ended before segment k+1
      stream_end = (bit + 7) / 8;
      break;
    }
  }
  __syncwarp();  // every record is written before the segment reports
  if (lane == 0) {
    seg.out_bytes = bytes;
    seg.match_count = matches;
    seg.rounds = rounds;
    seg.stream_end = stream_end;
    seg.failed = failed ? 1 : 0;
  }
}

/// Step 5 for segment k: replays its recorded rounds, writing literals and stored blocks to
/// out[0, capacity) at their final positions and matches to the chunk's list.
__device__ inline void warp_inflate_bp_write(const unsigned char* in, uint64_t size,
                                             unsigned char* out, uint64_t capacity,
                                             const InflateBpLayout& l, const InflateBpSlot& slot,
                                             uint32_t k, InflateWorkspace& ws, unsigned lane) {
  InflateBpSegment& seg = slot.segments[k];
  if (!slot.chunk->parallel || seg.start_bit == kInflateBpNone) return;
  const InflateBpSpan span = inflate_bp_span(l, slot, k);
  warp_inflate_bp_begin(ws, lane);
  const InflateLaneStream lanes{in, size, &ws};
  const uint64_t stream_bits = size * 8;
  uint64_t bit = seg.start_bit, op = seg.out_start;
  uint32_t rounds = 0;
  bool good = true;
  while (good && bit != span.end_bit) {
    const InflateBpBlock b = warp_read_block_header(in, size, bit, ws, lane);
    if (b.status != DeviceChunkStatus::ok || bit > span.end_bit) {
      good = false;  // the count pass saw the same: never for a chunk still on the path
      break;
    }
    bit = b.first_bit;
    if (!b.huffman) {
      if (b.stored_length > capacity - op) {
        good = false;
        break;
      }
      cooperative_copy(out + op, in + b.stored_in, b.stored_length, lane, kWarpSize);
      op += b.stored_length;
    }
    bool end_of_block = !b.huffman;
    while (!end_of_block) {
      if (rounds == seg.rounds) {
        good = false;
        break;
      }
      const InflateBpRound& rec = span.records[rounds++];
      if (lane <= rec.last) {
        const uint64_t end = umin(stream_bits, rec.from + uint64_t{lane + 1} * kInflateLaneBits);
        // RFC 1951, 3.2.5: distances reach back into the stream's output (from byte 0).
        good = inflate_write_segment(lanes, rec.from + rec.start[lane], end, out, capacity,
                                     seg.out_start + rec.out[lane], 0, 0,
                                     slot.matches + seg.match_start + rec.match[lane]) &&
               good;
      }
      good = !__any_sync(kFullMask, !good);
      op = seg.out_start + rec.out_end;
      bit = rec.end_bit;
      end_of_block = rec.end_of_block != 0;
    }
    if (b.final_block) break;
  }
  __syncwarp();  // every lane is done with the tables and the records
  if (lane == 0 && !good) seg.failed = 1;
}

/// Step 6 for a chunk still on the path: every segment written, its matches copied in list
/// order, and the trailer's checksums checked when `verify` (`crc_table`: the CRC-32 tables for
/// gzip). Returns whether the chunk is done; out[0, output_size) is then the stream's output.
__device__ inline bool warp_inflate_bp_finish(const unsigned char* in, unsigned char* out,
                                              bool verify, const uint32_t (*crc_table)[256],
                                              const InflateBpSlot& slot, unsigned lane) {
  const InflateBpChunk& c = *slot.chunk;
  if (!c.parallel) return false;
  for (uint32_t k = 0; k < c.segments; ++k) {
    if (slot.segments[k].start_bit != kInflateBpNone && slot.segments[k].failed) return false;
  }
  warp_copy_listed_matches(slot.matches, c.match_count, 0, out, lane);
  if (!verify || !c.wrapped) return true;
  const unsigned char* t = in + c.stream_end;
  const WarpInflateEngine engine{nullptr, crc_table, nullptr, lane};
  if (c.gzip) {
    // RFC 1952, 2.3.1: CRC32, then ISIZE = the decoded size mod 2^32, both little-endian.
    const uint32_t crc = uint32_t{t[0]} | uint32_t{t[1]} << 8 | uint32_t{t[2]} << 16 |
                         uint32_t{t[3]} << 24;
    const uint32_t isize = uint32_t{t[4]} | uint32_t{t[5]} << 8 | uint32_t{t[6]} << 16 |
                           uint32_t{t[7]} << 24;
    return isize == static_cast<uint32_t>(c.output_size) &&
           engine.crc32(out, c.output_size) == crc;
  }
  // RFC 1950, 2.2: ADLER32, most significant byte first.
  const uint32_t adler =
      uint32_t{t[0]} << 24 | uint32_t{t[1]} << 16 | uint32_t{t[2]} << 8 | uint32_t{t[3]};
  return engine.adler32(out, c.output_size) == adler;
}

}  // namespace cuzarr::gpu::detail
