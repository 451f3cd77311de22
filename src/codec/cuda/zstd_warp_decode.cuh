// Warp-cooperative Zstandard decoding of one chunk (.cu files and the emulated-warp tests): lane 0
// runs the frame state machine (ZstdFrameDecoder, every check), the warp decodes each block's
// Huffman literals together (zstd_warp_huffman.cuh), and takes a block's sequences 32 at a time:
// lane 0 follows the FSE states, the lanes finish and check the sequences, and the warp executes
// them (warp_copy_steps.cuh).
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "codec/cuda/zstd_frame_format.hpp"
#include "codec/cuda/zstd_warp_huffman.cuh"

namespace cuzarr::gpu::detail {

/// What lane 0 hands the warp next.
enum class ZstdWarpWork : int { step, sequences, huffman, done };

/// Up to 32 of a block's sequences: lane 0 follows the FSE states (ZstdSequenceDecoder::chain,
/// codes into `codes`, this warp's shared memory), lane k reads sequence k's extra bits, every
/// lane resolves the repeat offsets alike, and each lane checks its sequence as
/// ZstdFrameDecoder::next_sequences does (the output position from prefix sums); the first
/// failing sequence gives the status, as in the serial decoder. On success the group is
/// executed and lane 0's decoder moves past it. Every lane calls it and gets the status.
__device__ inline DeviceChunkStatus warp_zstd_sequences(ZstdFrameDecoder& decoder,
                                                        ZstdSequenceCodes* codes,
                                                        unsigned char* out, uint64_t& op,
                                                        unsigned lane) {
  uint32_t emitted = 0;
  int chained = 0;
  if (lane == 0) {
    chained = static_cast<int>(decoder.sequences.chain(decoder.workspace->sequences, kWarpSize,
                                                       [&](uint32_t j, const ZstdSequenceCodes& c) {
                                                         codes[j] = c;
                                                         emitted = j + 1;
                                                       }));
  }
  __syncwarp();  // the codes are visible
  const uint32_t n = __shfl_sync(kFullMask, emitted, 0);
  chained = __shfl_sync(kFullMask, chained, 0);
  // What the checks need from lane 0's decoder.
  const auto* stream = reinterpret_cast<const unsigned char*>(
      shfl64(reinterpret_cast<uintptr_t>(decoder.sequences.bits.data), 0));
  const uint32_t stream_size = __shfl_sync(kFullMask, decoder.sequences.bits.size, 0);
  const auto* literals = reinterpret_cast<const unsigned char*>(
      shfl64(reinterpret_cast<uintptr_t>(decoder.literals.data), 0));
  const uint64_t op0 = shfl64(decoder.op, 0), lp0 = shfl64(decoder.literal_pos, 0);
  const uint64_t literal_count = shfl64(decoder.literals.size, 0);
  const uint64_t frame_start = shfl64(decoder.frame_start, 0);
  const uint64_t limit = shfl64(decoder.block_limit, 0), capacity = shfl64(decoder.capacity, 0);
  ZstdRepeatOffsets reps{shfl64(decoder.reps.r0, 0), shfl64(decoder.reps.r1, 0),
                         shfl64(decoder.reps.r2, 0)};
  uint32_t ll = 0, ml = 0, ov = 0;
  if (lane < n) zstd_sequence_values(stream, stream_size, codes[lane], ll, ml, ov);
  __syncwarp();  // every lane has read its codes
  // The repeat offsets, sequence after sequence, by every lane alike; `resolved` sequences pass.
  uint64_t offset = 0;
  uint32_t resolved = n;
  for (uint32_t j = 0; j < n; ++j) {
    const uint32_t ov_j = __shfl_sync(kFullMask, ov, j), ll_j = __shfl_sync(kFullMask, ll, j);
    uint64_t o = 0;
    if (!reps.resolve(ov_j, ll_j, o)) {
      resolved = j;
      break;
    }
    if (lane == j) offset = o;
  }
  // Each sequence's checks, in next_sequences' order, at its place in the literals and output.
  const uint64_t length = uint64_t{ll} + ml;
  const uint64_t ll_through = warp_inclusive_sum64(ll, lane);
  const uint64_t length_through = warp_inclusive_sum64(length, lane);
  const uint64_t lp = lp0 + ll_through - ll;
  const uint64_t o = op0 + length_through - length;
  DeviceChunkStatus mine = DeviceChunkStatus::ok;
  if (lane < n) {
    if (lane >= resolved || ll > literal_count - lp || offset > o + ll - frame_start ||
        ml > limit - o || ll > limit - o - ml) {
      mine = DeviceChunkStatus::corrupt_input;
    } else if (length > capacity - o) {
      mine = DeviceChunkStatus::output_too_small;
    }
  }
  const unsigned failing = __ballot_sync(kFullMask, mine != DeviceChunkStatus::ok);
  if (failing != 0) {
    return static_cast<DeviceChunkStatus>(
        __shfl_sync(kFullMask, static_cast<int>(mine), __ffs(failing) - 1));
  }
  if (chained != static_cast<int>(DeviceChunkStatus::ok) || n == 0) {
    return static_cast<DeviceChunkStatus>(chained);
  }
  const uint64_t ll_total = shfl64(ll_through, n - 1), length_total = shfl64(length_through, n - 1);
  WarpStepGroup group;
  group.count = n;
  if (lane < n) {
    group.mine.literals = literals + lp;
    group.mine.literal_length = ll;
    group.mine.match_distance = offset;
    group.mine.match_length = ml;
  }
  op = warp_execute_group(group, out, op, lane);  // ends with __syncwarp
  if (lane == 0) {
    decoder.op = op0 + length_total;
    decoder.literal_pos = lp0 + ll_total;
    decoder.reps = reps;
  }
  return DeviceChunkStatus::ok;
}

/// One chunk, one warp. Lane 0 runs the frame decoder (every check in ZstdFrameDecoder); a
/// block's sequences go 32 at a time through warp_zstd_sequences (`codes`: 32 entries of this
/// warp's shared memory); other steps (raw and RLE blocks, the literals after a block's last
/// sequence) are executed as groups of one. The whole warp decodes each block's Huffman literal
/// streams. Work never reaches past its block: the next block's literals overwrite the
/// workspace, and a frame's checksum reads all of its output. All lanes return the same result.
__device__ inline DecodeResult warp_zstd_decode(const unsigned char* in, uint64_t in_size,
                                                unsigned char* out, uint64_t capacity,
                                                ZstdWorkspace* workspace, ZstdSequenceCodes* codes,
                                                bool verify, unsigned lane) {
  ZstdFrameDecoder decoder;
  if (lane == 0) decoder.init(in, in_size, out, capacity, workspace, verify);
  uint64_t op = 0;
  for (;;) {
    int work = 0, status = 0;
    WarpStepGroup g;  // a single step: lane 0's
    if (lane == 0) {
      DeviceChunkStatus s = DeviceChunkStatus::ok;
      if (decoder.phase == ZstdFrameDecoder::Phase::sequences && decoder.sequences.remaining > 0) {
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
        const DeviceChunkStatus q = warp_zstd_sequences(decoder, codes, out, op, lane);
        if (q != DeviceChunkStatus::ok) return {q, 0};
        break;
      }
    }
  }
}

}  // namespace cuzarr::gpu::detail
