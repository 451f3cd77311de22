// The fast GPU bit shuffle of one buffer for element sizes 1, 2, 4 and 8 (bitshuffle_lanes.hpp):
// each warp step moves 1024 elements, the element side as coalesced 32-bit words through a padded
// shared-memory staging area, the row side as one coalesced 128-byte segment per bit-row (.cu files
// only).
#pragma once

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec/cuda/bitshuffle_lanes.hpp"
#include "codec/cuda/kernel_support.cuh"

namespace cuzarr::gpu::detail {

/// True when warps_bitshuffle_staged handles a buffer: the element side 4-byte aligned.
__device__ inline bool bitshuffle_staged_applies(const unsigned char* elements) {
  return reinterpret_cast<uintptr_t>(elements) % 4 == 0;
}

/// Bit shuffle (forward) or unshuffle of `size` bytes of TS-byte elements by the warps
/// [warp, warp + warps) (warp steps warp, warp + warps, ...), copying the size % TS leftover bytes;
/// the block must be transposed (bitshuffle_transposes) and the element side (src forward, dst
/// backward) 4-byte aligned. `stage`: this warp's bitshuffle_stage_words<TS>() words of shared
/// memory.
template <uint32_t TS, bool kForward>
__device__ void warps_bitshuffle_staged(const unsigned char* src, unsigned char* dst, uint64_t size,
                                        uint64_t warp, uint64_t warps, unsigned lane,
                                        uint32_t* stage) {
  const uint64_t n = size / TS;
  const uint64_t row_bytes = n / 8;
  const uint64_t steps = (n + kBitshuffleStepElements - 1) / kBitshuffleStepElements;
  const unsigned char* rows = kForward ? dst : src;
  const bool rows_aligned = row_bytes % 4 == 0 && reinterpret_cast<uintptr_t>(rows) % 4 == 0;
  for (uint64_t s = warp; s < steps; s += warps) {
    const BitshuffleLaneSpan span = bitshuffle_lane_span(row_bytes, s, lane);
    const bool wide = rows_aligned && span.columns == kBitshuffleLaneColumns;
    const uint64_t first = s * kBitshuffleStepElements;
    // n is a multiple of 8, so the step's bytes are a multiple of 8 as well.
    const auto step_words =
        static_cast<uint32_t>(umin(kBitshuffleStepElements, n - first) * TS / 4);
    uint32_t words[8 * TS];
    if (kForward) {
      const auto* in = reinterpret_cast<const uint32_t*>(src + first * TS);
      for (uint32_t w = lane; w < step_words; w += kWarpSize) {
        stage[bitshuffle_stage_index<TS>(w)] = in[w];
      }
      __syncwarp();
#pragma unroll
      for (uint32_t i = 0; i < 8 * TS; ++i) {
        words[i] = stage[bitshuffle_stage_index<TS>(lane * 8 * TS + i)];
      }
      bitshuffle_lane<TS>(words, dst, row_bytes, span, wide);
      __syncwarp();  // the stage is refilled by the next step
    } else {
      bitunshuffle_lane<TS>(src, row_bytes, span, wide, words);
#pragma unroll
      for (uint32_t i = 0; i < 8 * TS; ++i) {
        stage[bitshuffle_stage_index<TS>(lane * 8 * TS + i)] = words[i];
      }
      __syncwarp();
      auto* out = reinterpret_cast<uint32_t*>(dst + first * TS);
      for (uint32_t w = lane; w < step_words; w += kWarpSize) {
        out[w] = stage[bitshuffle_stage_index<TS>(w)];
      }
      __syncwarp();
    }
  }
  const uint64_t rank = warp * kWarpSize + lane;
  for (uint64_t x = n * TS + rank; x < size; x += warps * kWarpSize) dst[x] = src[x];
}

}  // namespace cuzarr::gpu::detail
