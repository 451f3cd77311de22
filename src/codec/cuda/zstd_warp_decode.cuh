// Warp-cooperative Zstandard decoding of one chunk (.cu files and the emulated-warp tests): lane 0
// runs the frame state machine (ZstdFrameDecoder, every check), the warp decodes each block's
// Huffman literals together (zstd_warp_huffman.cuh) and executes the sequences in groups of up
// to 32 (warp_copy_steps.cuh).
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "codec/cuda/zstd_frame_format.hpp"
#include "codec/cuda/zstd_warp_huffman.cuh"

namespace cuzarr::gpu::detail {

/// One chunk, one warp: lane 0 produces the steps (all checks in ZstdFrameDecoder) in groups of
/// up to 32 sequences of one block, which the warp executes together; the whole warp decodes a
/// block's Huffman literal streams. A group never reaches past its block: the next block's
/// literals overwrite the workspace, and a frame's checksum reads all of its output. All lanes
/// return the same result.
__device__ inline DecodeResult warp_zstd_decode(const unsigned char* in, uint64_t in_size,
                                         unsigned char* out, uint64_t capacity,
                                         ZstdWorkspace* workspace, bool verify, unsigned lane) {
  ZstdFrameDecoder decoder;
  if (lane == 0) decoder.init(in, in_size, out, capacity, workspace, verify);
  uint64_t op = 0;
  for (;;) {
    unsigned streams = 0;  // lane 0: Huffman literal streams to decode before going on
    bool done = false;     // lane 0: every frame decoded
    const WarpStepGroup g = warp_parse_group<WarpParse::lane0>(
        op, lane, [&](uint64_t, WarpStep& s) {
          ZstdStep step{nullptr, 0, 0, 0, 0, 0};
          const DeviceChunkStatus status = decoder.next(step, done);
          if (status != DeviceChunkStatus::ok) return static_cast<int>(status);
          if (done) return static_cast<int>(kStepNone);
          if (step.huffman_streams > 0) {
            streams = step.huffman_streams;
            return static_cast<int>(kStepNone);
          }
          s.literals = step.literals;
          s.literal_length = step.literal_length;
          s.match_distance = step.match_distance;
          s.match_length = step.match_length;
          const bool more_in_block = decoder.phase == ZstdFrameDecoder::Phase::sequences &&
                                     decoder.sequences.remaining > 0;
          return more_in_block ? 0 : static_cast<int>(kStepEndGroup);
        });
    // Ends with __syncwarp: the next steps, the checksum and the literal decoding see the bytes
    // and lane 0's workspace writes.
    op = warp_execute_group(g, out, op, lane);
    if (g.status != DeviceChunkStatus::ok) return {g.status, 0};
    if (__shfl_sync(kFullMask, static_cast<int>(done), 0) != 0) {
      return {DeviceChunkStatus::ok, shfl64(decoder.op, 0)};
    }
    // Huffman literals: the whole warp decodes the block's streams (lane 0 wrote their
    // locations into the workspace).
    streams = __shfl_sync(kFullMask, streams, 0);
    if (streams > 0) {
      ZstdLiteralState& literals = workspace->literals;
      const DeviceChunkStatus h =
          warp_zstd_decode_huffman(literals.huffman, literals.pending, literals.buffer, lane);
      __syncwarp();  // the literals are visible to the whole warp
      if (h != DeviceChunkStatus::ok) return {h, 0};
    }
  }
}

}  // namespace cuzarr::gpu::detail
