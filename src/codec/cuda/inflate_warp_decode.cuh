// Warp-cooperative deflate decoding of one chunk (.cu files and the emulated-warp tests): lane 0
// reads each block header, the warp fills the block's primary tables and decodes its tokens in
// rounds of 32 resynchronising segments (inflate_warp_tokens.cuh), and copies stored blocks
// together. A round that fails a check is redone serially: from there lane 0 decodes batches with
// every check (inflate_fill_batch) and the warp writes them 32 steps at a time with the group
// execution of warp_copy_steps.cuh. Checksums are computed by the warp in coalesced words
// (warp_checksums.cuh).
#pragma once

#include <cstdint>

#include "codec/cuda/adler32.hpp"
#include "codec/cuda/crc32_table.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "codec/cuda/inflate_sequences.hpp"
#include "codec/cuda/inflate_warp_tokens.cuh"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/warp_checksums.cuh"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// Shared memory of one warp: its decoding tables and the batch it writes.
struct InflateWarpShared {
  InflateWorkspace workspace;
  InflateBatch batch;
};

/// The warp writes batch `b` (every lane calls it; ends with the output visible to the warp).
__device__ inline void warp_write_inflate_batch(const InflateBatch& b, const unsigned char* in,
                                                unsigned char* out, unsigned lane) {
  uint64_t op = b.start;
  uint64_t literals_before = 0;  // literals of the batch used by earlier groups
  for (uint32_t first = 0; first < b.step_count; first += kWarpSize) {
    WarpStepGroup g;
    g.count = umin(kWarpSize, b.step_count - first);
    InflateBatchStep step{0};
    if (lane < g.count) step = b.steps[first + lane];
    const uint64_t literal_end =
        literals_before + warp_inclusive_sum64(step.literal_length(), lane);
    g.mine.literals = b.literals + (literal_end - step.literal_length());
    g.mine.literal_length = step.literal_length();
    g.mine.match_length = step.match_length();
    g.mine.match_distance = step.match_distance();
    literals_before = shfl64(literal_end, kWarpSize - 1);
    op = warp_execute_group(g, out, op, lane);
  }
  if (b.stored_length > 0) {
    cooperative_copy(out + op, in + b.stored_in, b.stored_length, lane, kWarpSize);
    __syncwarp();
  }
}

/// Decodes nothing: inflate_next_to with it reads the next block header (and returns at the first
/// token of a Huffman block, a stored block's bytes, or the stream's end).
struct InflateHeaderSink {
  CUZARR_HOST_DEVICE static constexpr bool full() { return true; }
  CUZARR_HOST_DEVICE static constexpr void decode_fast(InflateStream&, const InflateWorkspace&,
                                                       uint64_t) {}
  CUZARR_HOST_DEVICE static constexpr void put(uint64_t, unsigned char) {}
  CUZARR_HOST_DEVICE static constexpr bool take_match(uint64_t, uint32_t, uint32_t) {
    return false;
  }
};

/// After lane 0 read a Huffman block's header: the warp fills the primary tables it left
/// (InflateWorkspace::fast_tables_pending). Every lane calls it; ends with the tables visible.
__device__ inline void warp_fill_pending_tables(InflateWorkspace& ws, unsigned lane) {
  __syncwarp();  // the block's codes are visible to the warp
  if (ws.fast_tables_pending) {
    huffman_fill_fast(ws.litlen, HuffmanAlphabet::literal_length, lane, kWarpSize);
    huffman_fill_fast(ws.distance, HuffmanAlphabet::distance, lane, kWarpSize);
    __syncwarp();  // every lane has read the flag and filled its entries
    if (lane == 0) ws.fast_tables_pending = false;
    __syncwarp();
  }
}

/// The engine of inflate_wrapped for a warp: every lane calls every member with the same
/// arguments and gets the same result. `matches`: kInflateRoundMatches entries of scratch.
struct WarpInflateEngine {
  InflateWarpShared* shared;
  const Crc32LaneTables* crc;  ///< built when CRC-32s are checked
  uint64_t* matches;
  unsigned lane;

  /// Lane 0 reads block headers; the warp decodes each Huffman block in rounds
  /// (inflate_warp_tokens.cuh) and copies stored blocks.
  __device__ InflateResult deflate(const unsigned char* in, uint64_t size, uint64_t start,
                                   unsigned char* out, uint64_t capacity, uint64_t op) {
    InflateStream s;
    InflateWorkspace& ws = shared->workspace;
    if (lane == 0) {
      inflate_begin(s, ws, in, size, start, op);
      ws.defer_fast_tables = true;  // the warp fills the primary tables of each block
    }
    const uint64_t window_start = op;
    for (;;) {
      InflateStep step;
      DeviceChunkStatus status = DeviceChunkStatus::ok;
      bool huffman = false;
      if (lane == 0) {
        InflateHeaderSink header;
        status = inflate_next_to(s, ws, header, capacity, step);
        huffman = s.phase == InflatePhase::huffman;
      }
      status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
      if (status != DeviceChunkStatus::ok) {
        return {status, shfl64(s.op, 0), shfl64(s.bits.consumed_bytes(), 0)};
      }
      if (__shfl_sync(kFullMask, static_cast<int>(step.end), 0) != 0) {
        return {DeviceChunkStatus::ok, shfl64(s.op, 0), shfl64(s.bits.pos, 0)};
      }
      if (__shfl_sync(kFullMask, static_cast<int>(huffman), 0) == 0) {  // a stored block
        cooperative_copy(out + shfl64(step.out_pos, 0), in + shfl64(step.in_pos, 0),
                         shfl64(step.length, 0), lane, kWarpSize);
        __syncwarp();
        continue;
      }
      warp_fill_pending_tables(ws, lane);
      const InflateLaneStream lanes{in, size, &ws};
      InflateRoundOutput o{out, capacity, shfl64(s.op, 0), window_start, matches};
      uint64_t bit = shfl64(s.bits.bit_position(), 0);
      InflateRound round;
      do {
        round = warp_inflate_round(lanes, bit, o, lane);
        if (round.redo_serially) break;
        bit = round.end_bit;
        o.op += round.bytes;
      } while (!round.end_of_block);
      __syncwarp();  // every lane is done with the codes before lane 0 reads the next header
      if (lane == 0) {
        s.bits.seek_bit(in, size, bit);
        s.op = o.op;
        if (!round.redo_serially) {
          if (s.final_block) {
            detail::finish_stream(s, step);  // the block ended inside the input: always ok
          } else {
            s.phase = InflatePhase::block_header;
          }
        }
      }
      if (round.redo_serially) return serial_batches(s, in, out, capacity);
    }
  }

  /// The rest of the stream decoded by lane 0 with every check, batch by batch, and written by
  /// the warp.
  __device__ InflateResult serial_batches(InflateStream& s, const unsigned char* in,
                                          unsigned char* out, uint64_t capacity) {
    if (lane == 0) shared->workspace.defer_fast_tables = false;  // lane 0 decodes alone
    for (;;) {
      DeviceChunkStatus status = DeviceChunkStatus::ok;
      if (lane == 0) status = inflate_fill_batch(s, shared->workspace, capacity, shared->batch);
      status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
      if (status != DeviceChunkStatus::ok) {
        return {status, shfl64(s.op, 0), shfl64(s.bits.consumed_bytes(), 0)};
      }
      __syncwarp();  // the batch is visible to the warp
      warp_write_inflate_batch(shared->batch, in, out, lane);
      const bool end = shared->batch.end_of_stream;
      __syncwarp();  // every lane has read the batch: lane 0 may refill it
      if (end) return {DeviceChunkStatus::ok, shfl64(s.op, 0), shfl64(s.bits.pos, 0)};
    }
  }

  /// CRC-32 of n bytes, by the warp in coalesced words (warp_checksums.cuh).
  __device__ uint32_t crc32(const unsigned char* p, uint64_t n) const {
    return crc32_finish(warp_crc32_raw(p, n, *crc, lane), n);
  }

  /// Adler-32 of n bytes, by the warp in coalesced words (warp_checksums.cuh).
  __device__ uint32_t adler32(const unsigned char* p, uint64_t n) const {
    const AdlerPiece piece = warp_adler32_piece(p, n, lane);
    return adler32_finish(piece.s, piece.t, n);
  }
};

}  // namespace cuzarr::gpu::detail
