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
  bool huffman;  ///< else a stored block
  bool final_block;
  uint64_t first_bit;  ///< a Huffman block's first token; after a stored block's bytes
  uint64_t stored_in;  ///< a stored block's bytes in the input
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
/// bytes and recording every round (rounds list at most kInflateRoundMatches matches).
__device__ inline void warp_inflate_bp_count(const unsigned char* in, uint64_t size,
                                             const InflateBpLayout& l, const InflateBpSlot& slot,
                                             uint32_t k, InflateWorkspace& ws, unsigned lane) {
  InflateBpSegment& seg = slot.segments[k];
  if (!slot.chunk->parallel || seg.start_bit == kInflateBpNone) return;
  const InflateBpSpan span = inflate_bp_span(l, slot, k);
  warp_inflate_bp_begin(ws, lane);
  const InflateLaneStream lanes{in, size, &ws};
  uint64_t bit = seg.start_bit, bytes = 0, stream_end = kInflateBpNone;
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
      const InflateRoundLane r =
          warp_plan_inflate_round(lanes, bit, kInflateRoundMatches, round, lane);
      if (round.redo_serially || bytes + round.bytes > l.max_output) {
        failed = true;
        break;
      }
      InflateBpRound& rec = span.records[rounds];
      rec.start[lane] = r.in_round ? static_cast<uint32_t>(r.d.from - bit) : 0;
      rec.out[lane] = static_cast<uint32_t>(bytes + r.bytes_before);
      rec.match[lane] = static_cast<uint32_t>(r.matches_before);
      const unsigned in_round = __ballot_sync(kFullMask, r.in_round);
      if (lane == 0) {
        rec.from = bit;
        rec.end_bit = round.end_bit;
        rec.out_end = static_cast<uint32_t>(bytes + round.bytes);
        rec.match_count = static_cast<uint32_t>(round.match_count);
        rec.last = kWarpSize - 1 - __clz(in_round);
        rec.end_of_block = round.end_of_block ? 1 : 0;
      }
      ++rounds;
      bytes += round.bytes;
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
    seg.rounds = rounds;
    seg.stream_end = stream_end;
    seg.failed = failed ? 1 : 0;
  }
}

/// Copies a round's listed matches (positions from the segment's first symbol `sym`) in waves.
/// A source before the segment gives markers (inflate_block_parallel.hpp, step 5). Positions
/// passed to the waves start kInflateBpWindow earlier, so that every source is at or after 0.
__device__ inline void warp_copy_symbol_matches(const uint64_t* list, uint64_t count, uint16_t* sym,
                                                unsigned lane) {
  for (uint64_t g = 0; g < count; g += kWarpSize) {
    const bool has = g + lane < count;
    const uint64_t m = has ? list[g + lane] : 0;
    const uint64_t at = has ? m & 0xFFFFFFFFu : UINT64_MAX - kInflateBpWindow;
    const uint64_t length = (m >> 32) & 0xFFFFu, distance = m >> 48;
    warp_match_waves(has, at + kInflateBpWindow, length, distance, lane, [&](bool ready) {
      if (!ready) return;
      // Byte t repeats source byte t % distance (an overlapping match repeats its period).
      const int64_t source = static_cast<int64_t>(at) - static_cast<int64_t>(distance);
      uint64_t r = 0;
      for (uint64_t t = 0; t < length; ++t) {
        const int64_t from = source + static_cast<int64_t>(r);
        sym[at + t] = from >= 0 ? sym[from] : static_cast<uint16_t>(256 + kInflateBpWindow + from);
        r = r + 1 == distance ? 0 : r + 1;
      }
    });
  }
}

/// Step 5 for segment k: replays its recorded rounds, writing its output as symbols at their
/// final positions in slot.symbols[0, capacity). `list`: kInflateRoundMatches entries of scratch.
__device__ inline void warp_inflate_bp_write(const unsigned char* in, uint64_t size,
                                             uint64_t capacity, const InflateBpLayout& l,
                                             const InflateBpSlot& slot, uint32_t k,
                                             InflateWorkspace& ws, uint64_t* list, unsigned lane) {
  InflateBpSegment& seg = slot.segments[k];
  if (!slot.chunk->parallel || seg.start_bit == kInflateBpNone) return;
  const InflateBpSpan span = inflate_bp_span(l, slot, k);
  warp_inflate_bp_begin(ws, lane);
  const InflateLaneStream lanes{in, size, &ws};
  const uint64_t stream_bits = size * 8;
  uint16_t* sym = slot.symbols + seg.out_start;  // the segment's first symbol
  uint64_t bit = seg.start_bit, op = 0;          // op: from the segment's first symbol
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
      if (b.stored_length > capacity - seg.out_start - op) {
        good = false;
        break;
      }
      for (uint64_t i = lane; i < b.stored_length; i += kWarpSize)
        sym[op + i] = in[b.stored_in + i];
      op += b.stored_length;
      __syncwarp();
    }
    bool end_of_block = !b.huffman;
    while (good && !end_of_block) {
      if (rounds == seg.rounds) {
        good = false;
        break;
      }
      const InflateBpRound& rec = span.records[rounds++];
      if (lane <= rec.last) {
        const uint64_t end = umin(stream_bits, rec.from + uint64_t{lane + 1} * kInflateLaneBits);
        // RFC 1951, 3.2.5: distances reach back into the stream's output (from byte 0).
        good = inflate_write_segment(lanes, rec.from + rec.start[lane], end, slot.symbols, capacity,
                                     seg.out_start + rec.out[lane], 0, seg.out_start,
                                     list + rec.match[lane]);
      }
      good = !__any_sync(kFullMask, !good);
      if (!good) break;
      __syncwarp();  // the symbols and the list are visible to the warp
      warp_copy_symbol_matches(list, rec.match_count, sym, lane);
      op = rec.out_end;
      bit = rec.end_bit;
      end_of_block = rec.end_of_block != 0;
    }
    if (b.final_block) break;
  }
  __syncwarp();  // every lane is done with the tables and the records
  if (lane == 0 && !good) seg.failed = 1;
}

/// Step 6, by `ranks` threads (this one `rank`) that `sync()` synchronises: the segments'
/// symbols resolved to out[0, output_size) in order, markers from the bytes already resolved.
/// Returns false on this thread when the path failed for the chunk (a segment failed, or a
/// marker reaches before the output: never after the write pass's distance checks).
template <class Sync>
__device__ inline bool inflate_bp_resolve(unsigned char* out, const InflateBpSlot& slot,
                                          unsigned rank, unsigned ranks, Sync&& sync) {
  const InflateBpChunk& c = *slot.chunk;
  if (!c.parallel) return false;
  for (uint32_t k = 0; k < c.segments; ++k) {
    if (slot.segments[k].start_bit != kInflateBpNone && slot.segments[k].failed) return false;
  }
  bool good = true;
  for (uint32_t k = 0; k < c.segments; ++k) {
    const InflateBpSegment& s = slot.segments[k];
    if (s.start_bit == kInflateBpNone) continue;
    for (uint64_t p = s.out_start + rank; p < s.out_start + s.out_bytes; p += ranks) {
      const uint16_t v = slot.symbols[p];
      if (v < 256) {
        out[p] = static_cast<unsigned char>(v);
      } else if (s.out_start + (v - 256) >= kInflateBpWindow) {
        out[p] = out[s.out_start + (v - 256) - kInflateBpWindow];
      } else {
        good = false;
      }
    }
    sync();  // segment k is final before the next one reads its window
  }
  return good;
}

/// Step 6's checks after the resolve, by a warp: the trailer's checksums when `verify`
/// (`crc_table`: the CRC-32 tables, for gzip). Returns whether they hold.
__device__ inline bool warp_inflate_bp_checksums(const unsigned char* in, const unsigned char* out,
                                                 bool verify, const uint32_t (*crc_table)[256],
                                                 const InflateBpSlot& slot, unsigned lane) {
  const InflateBpChunk& c = *slot.chunk;
  if (!verify || !c.wrapped) return true;
  const unsigned char* t = in + c.stream_end;
  const WarpInflateEngine engine{nullptr, crc_table, nullptr, lane};
  if (c.gzip) {
    // RFC 1952, 2.3.1: CRC32, then ISIZE = the decoded size mod 2^32, both little-endian.
    const uint32_t crc =
        uint32_t{t[0]} | uint32_t{t[1]} << 8 | uint32_t{t[2]} << 16 | uint32_t{t[3]} << 24;
    const uint32_t isize =
        uint32_t{t[4]} | uint32_t{t[5]} << 8 | uint32_t{t[6]} << 16 | uint32_t{t[7]} << 24;
    return isize == static_cast<uint32_t>(c.output_size) && engine.crc32(out, c.output_size) == crc;
  }
  // RFC 1950, 2.2: ADLER32, most significant byte first.
  const uint32_t adler =
      uint32_t{t[0]} << 24 | uint32_t{t[1]} << 16 | uint32_t{t[2]} << 8 | uint32_t{t[3]};
  return engine.adler32(out, c.output_size) == adler;
}

}  // namespace cuzarr::gpu::detail
