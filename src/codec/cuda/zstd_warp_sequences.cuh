// A block's sequences decoded by a warp (the block-parallel sequences pass of small rounds, where
// one block's chain is the whole pass's time; .cu files only). The FSE
// states form one serial chain per block (each state depends on the bits the last one read), so
// lane 0 follows only that chain for up to 32 sequences, leaving their codes and the position of
// their extra bits in shared memory (ZstdSequenceDecoder::chain); then lane k reads sequence k's
// extra bits and values, the literal and match totals come from prefix sums over the lanes, every
// lane resolves the repeat offsets alike (a short serial step per sequence), and lane k writes
// record k. Same checks, records and block results as zstd_bp_decode_sequences.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "codec/cuda/zstd_block_parallel.hpp"

namespace cuzarr::gpu::detail {

/// zstd_bp_decode_sequences by the warp: every lane calls it and gets the status. `codes`: 32
/// entries of shared memory for the warp.
__device__ inline DeviceChunkStatus warp_zstd_bp_decode_sequences(
    const unsigned char* in, ZstdBlockRecord& rec, ZstdSequenceTables& t, ZstdSeqRecord* sequences,
    ZstdSequenceCodes* codes, unsigned lane) {
  ZstdSequenceDecoder dec;
  uint32_t count = 0;
  int started = 0;
  DeviceChunkStatus s = DeviceChunkStatus::ok;
  if (lane == 0) {
    s = zstd_bp_start_sequences(in, rec, t, dec, count);
    started = dec.has_stream ? 1 : 0;
  }
  __syncwarp();  // the record's fields and the tables are visible to the warp
  s = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(s), 0));
  count = __shfl_sync(kFullMask, count, 0);
  started = __shfl_sync(kFullMask, started, 0);
  if (s != DeviceChunkStatus::ok || !started) return s;
  const uint32_t literal_size = rec.literal_size, block_max = rec.block_max;
  const unsigned char* stream = in + rec.bitstream;
  const uint32_t stream_size = rec.bitstream_size;
  ZstdSeqRecord* out = sequences + rec.sequence_offset;
  ZstdRepHistory reps;
  uint32_t literals_used = 0, matched = 0;
  for (uint32_t g = 0; g < count; g += kWarpSize) {
    const uint32_t n = count - g < kWarpSize ? count - g : kWarpSize;
    if (lane == 0) {
      s = dec.chain(t, n, [&](uint32_t j, const ZstdSequenceCodes& c) { codes[j] = c; });
    }
    __syncwarp();  // the codes are visible
    s = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(s), 0));
    if (s != DeviceChunkStatus::ok) return s;
    uint32_t ll = 0, ml = 0, ov = 0;
    if (lane < n) zstd_sequence_values(stream, stream_size, codes[lane], ll, ml, ov);
    __syncwarp();  // every lane has read its codes: the next run may overwrite them
    // A literal length past the literals left, or a block past Block_Maximum_Size, at any
    // sequence of the run: the running totals are prefix sums.
    const uint32_t ll_total = static_cast<uint32_t>(warp_inclusive_sum64(ll, lane));
    const uint32_t ml_total = static_cast<uint32_t>(warp_inclusive_sum64(ml, lane));
    const bool bad =
        lane < n && (ll_total > literal_size - literals_used || ml_total > block_max - matched);
    if (__any_sync(kFullMask, bad)) return DeviceChunkStatus::corrupt_input;
    // The repeat offsets, sequence after sequence, by every lane alike.
    ZstdRepSlot mine{0, -1};
    bool zero = false;
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t ov_j = __shfl_sync(kFullMask, ov, j), ll_j = __shfl_sync(kFullMask, ll, j);
      ZstdRepSlot offset;
      zero = zero || !reps.resolve(ov_j, ll_j, offset);
      if (lane == j) mine = offset;
    }
    if (zero) return DeviceChunkStatus::corrupt_input;
    if (lane < n) {
      out[g + lane] =
          zstd_bp_sequence_record(ll, ml, mine, literals_used + ll_total + matched + ml_total - ml);
    }
    literals_used += __shfl_sync(kFullMask, ll_total, n - 1);
    matched += __shfl_sync(kFullMask, ml_total, n - 1);
  }
  if (lane == 0) s = zstd_bp_finish_sequences(rec, dec, matched, reps);
  return static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(s), 0));
}

}  // namespace cuzarr::gpu::detail
