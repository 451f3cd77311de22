// The warp passes of block-parallel inflate (inflate_block_parallel.hpp): search, decode, count,
// write and finish (.cu files and the emulated-warp tests). Every lane of the warp calls each pass
// with the same arguments; the passes of different segments are independent.
#pragma once

#include <cstdint>

#include "codec/cuda/inflate_block_parallel.hpp"
#include "codec/cuda/inflate_block_search.hpp"
#include "codec/cuda/inflate_warp_decode.cuh"
#include "codec/cuda/inflate_warp_tokens.cuh"
#include "codec/cuda/kernel_support.cuh"

namespace cuzarr::gpu::detail {

/// Candidates the block search queues (on lanes 0 .. kInflateBpSearchQueue - 1) before it gives
/// them the full header test. A queue is tested once full, so a segment's search reads on past its
/// first block header to the end of that queue's candidates: with 8 instead of 32 it reads 15 % to
/// 38 % less (bench/deflate_block_search.cpp) for more, smaller rounds of full tests.
inline constexpr unsigned kInflateBpSearchQueue = 8;

/// Bits each lane of a segment's warp decodes per round, fewer than a warp per chunk takes
/// (kInflateLaneBits). On an H200, 768 decoded 1 and 4 MiB chunks 1.01x to 1.02x faster than
/// 1024, and 512 and 640 about as fast as 768; a warp per chunk lost with 768 (0.99x at 64 KiB).
/// Not profiled: a block's last round (whose lanes after the block's end decode for nothing) and
/// a round's slowest lane both get shorter (docs/gpu_deflate.md, "Shorter lane stretches in the
/// segment passes").
inline constexpr uint32_t kInflateBpLaneBits = 768;

/// Symbols of a match that warp_copy_symbol_matches loads before it stores them. Loading and
/// storing one symbol at a time waited on memory once per symbol: a profile of the decode pass
/// (float32 field, level 1, 4 MiB chunks) found a fifth of its warp stalls on those loads. On an
/// H200, batches of 4 decoded 1.05x to 1.08x faster at level 1 and 1.04x to 1.06x at level 6
/// (1 and 4 MiB chunks); 3 was as fast, 2 and 8 slower (docs/gpu_deflate.md, "Match copies that
/// wait on memory once").
inline constexpr uint32_t kInflateBpCopyBatch = 4;

/// Step 2 for segment k >= 1: each lane takes 8 consecutive bit offsets of a byte (256 per warp
/// at a time) and finds in one word those where BFINAL 0, BTYPE 2 may start (about 1 in 8). The
/// warp then numbers those candidates in stream order and tests them 32 at a time, candidate t on
/// lane t, with inflate_dynamic_header_may_start_at: every lane does one test a round, where a
/// lane testing its own candidates kept the warp for as many rounds as its busiest lane had. The
/// few that pass are queued in stream order, one per lane; a full queue (and the last one) gets
/// the full test, a lane each (kInflateBpSearchQueue lanes). The first offset that passes it
/// becomes the segment's start: the queues hold increasing offsets, and every earlier queue failed.
__device__ inline void warp_inflate_bp_search(const unsigned char* in, uint64_t size,
                                              const InflateBpSlot& slot, uint32_t k,
                                              unsigned lane) {
  uint64_t first = 0, end = 0;  // whole bytes: `first` is a multiple of 8
  inflate_bp_search_range(*slot.chunk, size, k, first, end);
  uint64_t queued = kInflateBpNone;  // this lane's candidate
  unsigned pending = 0;              // lanes 0 .. pending - 1 hold one
  const auto test_queue = [&] {
    const unsigned hits = __ballot_sync(
        kFullMask, queued != kInflateBpNone && inflate_dynamic_header_at(in, size, queued));
    const uint64_t found = shfl64(queued, hits != 0 ? __ffs(hits) - 1 : 0);
    if (hits != 0 && lane == 0) slot.segments[k].start_bit = found;
    queued = kInflateBpNone;
    pending = 0;
    return hits != 0;
  };
  for (uint64_t base = first; base < end; base += 8 * kWarpSize) {
    const uint64_t from = base + 8 * uint64_t{lane};
    const uint64_t word = from < end ? deflate_bits_at(in, size, from) : 0;  // 64 bits
    // Offset from + j may start a header when bits j, j + 1, j + 2 are 0, 0, 1 (RFC 1951, 3.2.3).
    unsigned maybe = static_cast<unsigned>(~word & ~(word >> 1) & (word >> 2)) & 0xFFu;
    if (from >= end) {
      maybe = 0;
    } else if (end - from < 8) {
      maybe &= (1u << (end - from)) - 1;
    }
    // Candidates before this lane's, and in all (an inclusive prefix sum over the lanes).
    const unsigned count = __popc(maybe);
    unsigned through = count;
    for (unsigned d = 1; d < kWarpSize; d *= 2) {
      const unsigned before = __shfl_up_sync(kFullMask, through, d);
      if (lane >= d) through += before;
    }
    const unsigned total = __shfl_sync(kFullMask, through, kWarpSize - 1);
    for (unsigned round = 0; round < total; round += kWarpSize) {
      const unsigned t = round + lane;  // this lane tests candidate t
      unsigned source = 0;              // the first lane whose prefix sum passes t
      for (unsigned step = kWarpSize / 2; step > 0; step /= 2) {
        if (__shfl_sync(kFullMask, through, source + step - 1) <= t) source += step;
      }
      const unsigned source_maybe = __shfl_sync(kFullMask, maybe, source);
      const unsigned source_before = __shfl_sync(kFullMask, through - count, source);
      const uint64_t source_word = shfl64(word, source);
      uint64_t candidate = kInflateBpNone;
      bool passed = false;
      if (t < total) {
        const unsigned j = __fns(source_maybe, 0, static_cast<int>(t - source_before) + 1);
        candidate = base + 8 * uint64_t{source} + j;
        passed = inflate_dynamic_header_may_start_at(in, size, candidate, source_word >> j);
      }
      // Queue them in stream order: candidate t before t + 1.
      for (unsigned lanes = __ballot_sync(kFullMask, passed); lanes != 0; lanes &= lanes - 1) {
        const uint64_t c = shfl64(candidate, __ffs(lanes) - 1);
        if (pending == kInflateBpSearchQueue && test_queue()) return;
        if (lane == pending) queued = c;
        ++pending;
      }
    }
  }
  if (pending > 0) test_queue();
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

/// Copies a round's listed matches (positions from the segment's first symbol `sym`) in waves.
/// A source before the segment gives markers (inflate_block_parallel.hpp, step 3). Positions
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
      // Byte t repeats source byte t % distance (an overlapping match repeats its period), so
      // every source lies before `at` and no load reads what this match stores: the loads of
      // kInflateBpCopyBatch symbols are issued together and wait on memory once.
      const int64_t source = static_cast<int64_t>(at) - static_cast<int64_t>(distance);
      uint64_t r = 0;
      for (uint64_t t = 0; t < length; t += kInflateBpCopyBatch) {
        uint16_t v[kInflateBpCopyBatch];
        CUZARR_UNROLL
        for (uint32_t j = 0; j < kInflateBpCopyBatch; ++j) {
          const int64_t from = source + static_cast<int64_t>(r);
          if (t + j < length) {
            v[j] = from >= 0 ? sym[from] : static_cast<uint16_t>(256 + kInflateBpWindow + from);
          }
          r = r + 1 == distance ? 0 : r + 1;
        }
        CUZARR_UNROLL
        for (uint32_t j = 0; j < kInflateBpCopyBatch; ++j) {
          if (t + j < length) sym[at + t + j] = v[j];
        }
      }
    });
  }
}

/// Symbols addressed kInflateBpWindow after their place, so that the position of a source in
/// the window before the segment is never negative.
struct InflateBpShiftedSymbols {
  uint16_t* first;  ///< the segment's first symbol
  __device__ uint16_t& operator[](uint64_t i) const { return first[i - kInflateBpWindow]; }
};

/// What a pass over a segment found.
struct InflateBpDecoding {
  uint64_t bytes = 0;                    ///< output bytes
  uint64_t stream_end = kInflateBpNone;  ///< after the final block: the next input byte
  bool failed = false;                   ///< a false start or a failed input check
  bool overflow = false;                 ///< the output did not fit `room`
};

/// Steps 3 and 5 for segment k: decodes from its first block to the next segment's first block
/// (or the stream's end), at most `limit` output bytes; with kWrite, writes the symbols to
/// sym[0, room) and copies the segment's own matches round by round (a source before the
/// segment gives a marker). `list`: kInflateRoundMatches entries of scratch.
template <bool kWrite>
__device__ inline InflateBpDecoding warp_inflate_bp_decode(
    const unsigned char* in, uint64_t size, uint64_t limit, const InflateBpSlot& slot, uint32_t k,
    uint16_t* sym, uint64_t room, InflateWorkspace& ws, uint64_t* list, unsigned lane) {
  const uint32_t next = inflate_bp_next_segment(*slot.chunk, slot, k);
  const uint64_t end_bit =
      next < slot.chunk->segments ? slot.segments[next].start_bit : kInflateBpNone;
  warp_inflate_bp_begin(ws, lane);
  const InflateLaneStream lanes{in, size, &ws};
  InflateBpDecoding d;
  uint64_t bit = slot.segments[k].start_bit;
  while (bit != end_bit) {
    if (bit > end_bit) {  // passed the next segment's start: it was no block boundary
      d.failed = true;
      break;
    }
    const InflateBpBlock b = warp_read_block_header(in, size, bit, ws, lane);
    if (b.status != DeviceChunkStatus::ok || b.stored_length > limit - d.bytes) {
      d.failed = true;
      break;
    }
    bit = b.first_bit;
    if (!b.huffman && kWrite) {
      if (b.stored_length > room - d.bytes) {
        d.overflow = true;
        break;
      }
      for (uint64_t i = lane; i < b.stored_length; i += kWarpSize)
        sym[d.bytes + i] = in[b.stored_in + i];
      __syncwarp();
    }
    if (!b.huffman) d.bytes += b.stored_length;
    bool end_of_block = !b.huffman;
    while (!end_of_block) {
      InflateRound round{};
      const InflateRoundLane r = warp_plan_inflate_round<kInflateBpLaneBits>(
          lanes, bit, kInflateRoundMatches, round, lane);
      if (round.redo_serially || round.bytes > limit - d.bytes) {
        d.failed = true;
        break;
      }
      if (kWrite) {
        if (round.bytes > room - d.bytes) {
          d.overflow = true;
          break;
        }
        // Positions kInflateBpWindow after the symbols' place: every distance reaches at most
        // into the window; finish checks it against the bytes before the segment.
        bool good = true;
        if (r.in_round) {
          good = inflate_write_segment(lanes, r.d.from, r.end, InflateBpShiftedSymbols{sym},
                                       kInflateBpWindow + room,
                                       kInflateBpWindow + d.bytes + r.bytes_before, 0,
                                       kInflateBpWindow, list + r.matches_before);
        }
        if (__any_sync(kFullMask, !good)) {
          d.failed = true;
          break;
        }
        __syncwarp();  // the symbols and the list are visible to the warp
        warp_copy_symbol_matches(list, round.match_count, sym, lane);
      }
      d.bytes += round.bytes;
      bit = round.end_bit;
      end_of_block = round.end_of_block;
    }
    if (d.failed || d.overflow) break;
    if (b.final_block) {
      // RFC 1951, 3.2.3: the final block ends the stream; a trailer starts at the next byte.
      d.failed = end_bit != kInflateBpNone;  // the stream ended before segment `next`
      d.stream_end = (bit + 7) / 8;
      break;
    }
  }
  __syncwarp();  // every lane is done with the tables and the symbols are visible
  return d;
}

/// The segment passes of inflate_block_parallel.hpp.
enum class InflateBpPass : uint8_t {
  decode,  ///< step 3: into the segment's region, for chunks still one-pass
  count,   ///< step 5, two-pass chunks: output sizes only
  write,   ///< step 5, two-pass chunks: the symbols at their final offsets
};

/// Runs `pass` on segment k of a chunk of `capacity` output bytes and records what it found.
__device__ inline void warp_inflate_bp_pass(InflateBpPass pass, const unsigned char* in,
                                            uint64_t size, uint64_t capacity,
                                            const InflateBpSlot& slot, uint32_t k,
                                            InflateWorkspace& ws, uint64_t* list, unsigned lane) {
  const InflateBpChunk& c = *slot.chunk;
  InflateBpSegment& seg = slot.segments[k];
  const bool two_pass = pass != InflateBpPass::decode;
  if (!c.parallel || (c.two_pass != 0) != two_pass || seg.start_bit == kInflateBpNone) return;
  if (pass == InflateBpPass::count) {
    const InflateBpDecoding d =
        warp_inflate_bp_decode<false>(in, size, capacity, slot, k, nullptr, 0, ws, list, lane);
    if (lane == 0) {
      seg.out_bytes = d.bytes;
      seg.stream_end = d.stream_end;
      seg.failed = d.failed ? 1 : 0;
      seg.overflow = 0;
    }
    return;
  }
  const uint64_t at = inflate_bp_symbols_at(c, seg, k);
  const uint64_t room =
      two_pass ? seg.out_bytes : (inflate_bp_next_segment(c, slot, k) - k) * c.region;
  const InflateBpDecoding d = warp_inflate_bp_decode<true>(in, size, capacity, slot, k,
                                                           slot.symbols + at, room, ws, list, lane);
  if (lane != 0) return;
  if (two_pass) {  // the count's decoding again: anything else fails the chunk
    seg.failed = d.failed || d.overflow || d.bytes != seg.out_bytes ? 1 : 0;
    return;
  }
  seg.out_bytes = d.bytes;
  seg.stream_end = d.stream_end;
  seg.failed = d.failed ? 1 : 0;
  seg.overflow = d.overflow ? 1 : 0;
}

/// Step 6's checksums for out[from, to) of a resolved chunk, by a warp in coalesced words
/// (warp_checksums.cuh; `crc`: the lane tables, for gzip); every lane gets the warp's part.
__device__ inline InflateBpChecksumPart warp_inflate_bp_checksum_part(const unsigned char* out,
                                                                      const InflateBpChunk& c,
                                                                      uint64_t from, uint64_t to,
                                                                      const Crc32LaneTables& crc,
                                                                      unsigned lane) {
  const uint64_t n = c.output_size;
  InflateBpChecksumPart part;
  if (c.gzip) {
    part.crc = crc32_shift_by_powers(warp_crc32_raw(out + from, to - from, crc, lane), n - to, crc);
    return part;
  }
  const AdlerPiece piece = warp_adler32_piece(out + from, to - from, lane);
  part.adler_a = piece.s;
  part.adler_b = adler32_b_contribution(piece, n - to);
  return part;
}

}  // namespace cuzarr::gpu::detail
