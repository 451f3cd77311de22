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

/// Sequences lane 0 decodes before the warp executes them.
inline constexpr uint32_t kZstdSequenceBatch = 64;

/// What lane 0 hands the warp next.
enum class ZstdWarpWork : int { step, sequences, huffman, done };

/// One chunk, one warp. Lane 0 runs the frame decoder (every check in ZstdFrameDecoder): in a
/// block's sequences it decodes up to kZstdSequenceBatch of them into `batch` (this warp's shared
/// memory) with next_sequences, which the warp then executes 32 at a time (warp_copy_steps.cuh);
/// other steps (raw and RLE blocks, the literals after a block's last sequence) are executed as
/// groups of one. The whole warp decodes each block's Huffman literal streams. Work never
/// reaches past its block: the next block's literals overwrite the workspace, and a frame's
/// checksum reads all of its output. All lanes return the same result.
__device__ inline DecodeResult warp_zstd_decode(const unsigned char* in, uint64_t in_size,
                                                unsigned char* out, uint64_t capacity,
                                                ZstdWorkspace* workspace, ZstdSequenceStep* batch,
                                                bool verify, unsigned lane) {
  ZstdFrameDecoder decoder;
  if (lane == 0) decoder.init(in, in_size, out, capacity, workspace, verify);
  uint64_t op = 0;
  for (;;) {
    int work = 0, status = 0;
    uint32_t count = 0;
    WarpStepGroup g;  // a single step: lane 0's
    if (lane == 0) {
      DeviceChunkStatus s = DeviceChunkStatus::ok;
      if (decoder.phase == ZstdFrameDecoder::Phase::sequences && decoder.sequences.remaining > 0) {
        s = decoder.next_sequences(batch, kZstdSequenceBatch, count);
        work = static_cast<int>(ZstdWarpWork::sequences);
      } else {
        ZstdStep step{nullptr, 0, 0, 0, 0, 0};
        bool done = false;
        s = decoder.next(step, done);
        work = static_cast<int>(done                       ? ZstdWarpWork::done
                                : step.huffman_streams > 0 ? ZstdWarpWork::huffman
                                                           : ZstdWarpWork::step);
        g.mine.literals = step.literals;
        g.mine.literal_length = step.literal_length;
        g.mine.match_distance = step.match_distance;
        g.mine.match_length = step.match_length;
      }
      status = static_cast<int>(s);
    }
    status = __shfl_sync(kFullMask, status, 0);
    if (status != static_cast<int>(DeviceChunkStatus::ok)) {
      return {static_cast<DeviceChunkStatus>(status), 0};
    }
    switch (static_cast<ZstdWarpWork>(__shfl_sync(kFullMask, work, 0))) {
      case ZstdWarpWork::done:
        return {DeviceChunkStatus::ok, shfl64(decoder.op, 0)};
      case ZstdWarpWork::huffman: {
        __syncwarp();  // lane 0 wrote the streams' locations into the workspace
        ZstdLiteralState& literals = workspace->literals;
        const DeviceChunkStatus h =
            warp_zstd_decode_huffman(literals.huffman, literals.pending, literals.buffer, lane);
        __syncwarp();  // the literals are visible to the whole warp
        if (h != DeviceChunkStatus::ok) return {h, 0};
        break;
      }
      case ZstdWarpWork::step:
        g.count = 1;  // every lane: lane 0 holds the step
        op = warp_execute_group(g, out, op, lane);
        break;
      case ZstdWarpWork::sequences: {
        count = __shfl_sync(kFullMask, count, 0);
        const auto* literals = reinterpret_cast<const unsigned char*>(
            shfl64(reinterpret_cast<uintptr_t>(decoder.literals.data), 0));
        __syncwarp();  // the batch is visible to the warp
        for (uint32_t first = 0; first < count; first += kWarpSize) {
          WarpStepGroup group;
          group.count = count - first < kWarpSize ? count - first : kWarpSize;
          if (lane < group.count) {
            const ZstdSequenceStep s = batch[first + lane];
            group.mine.literals = literals + s.literal_start;
            group.mine.literal_length = s.literal_length;
            group.mine.match_distance = s.distance;
            group.mine.match_length = s.match_length;
          }
          op = warp_execute_group(group, out, op, lane);  // ends with __syncwarp
        }
        break;
      }
    }
  }
}

}  // namespace cuzarr::gpu::detail
