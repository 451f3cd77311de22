// Two warps per LZ4 block (.cu files only): one parses (lz4_warp_decode.cuh's window parser) into
// a ring of steps in shared memory while the other executes them, 32 at a time, so that parsing
// and copying overlap. For batches of few blocks (1 MiB chunks and up), where one warp per block
// leaves the GPU waiting on each warp's latencies. The parser runs at most kLz4PairAhead steps
// ahead; the executor waits for a full group of 32 unless the parser has finished. The two warps
// meet only through the ring's head and tail (volatile shared words, published after a block
// fence), so neither waits unless the other is behind: the parser when the ring holds
// kLz4PairAhead steps (the executor then has a full group), the executor when fewer than 32 wait
// and parsing goes on (the parser then has room).
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_warp_decode.cuh"

namespace cuzarr::gpu::detail {

/// Steps the parser may hold ahead of the executor, and the ring's size (room for one more window).
inline constexpr unsigned kLz4PairAhead = 192;
inline constexpr unsigned kLz4PairSlots = 256;
static_assert(kLz4PairAhead + 11 <= kLz4PairSlots);

/// What the two warps of a block share (4 KiB of steps).
struct Lz4PairShared {
  Lz4StepRing<kLz4PairSlots> ring;
  unsigned tail;             // steps the parser has queued (published)
  unsigned head;             // steps the executor has taken (published)
  int done;                  // the parser has finished: `status` and `tail` are final
  DeviceChunkStatus status;  // the status of the step that failed, or ok
};

__device__ inline unsigned load_shared_volatile(const unsigned& word) {
  return *static_cast<const volatile unsigned*>(&word);
}

__device__ inline void store_shared_volatile(unsigned& word, unsigned value) {
  *static_cast<volatile unsigned*>(&word) = value;
}

/// Lane 0's view of a word the other warp publishes, for every lane.
__device__ inline unsigned warp_load_published(const unsigned& word, unsigned lane) {
  unsigned v = 0;
  if (lane == 0) v = load_shared_volatile(word);
  return __shfl_sync(kFullMask, v, 0);
}

/// Empties `shared` for a new block; the caller then synchronises the two warps.
__device__ inline void lz4_pair_reset(Lz4PairShared& shared, unsigned lane) {
  if (lane == 0) {
    shared.tail = 0;
    shared.head = 0;
    shared.done = 0;
    shared.status = DeviceChunkStatus::ok;
  }
}

/// The parsing warp: every check of warp_lz4_parse_steps. Ends with the status published.
__device__ inline void warp_lz4_pair_parse(const unsigned char* in, uint32_t in_size,
                                           uint64_t capacity, unsigned lane,
                                           Lz4PairShared& shared) {
  uint32_t ip = 0;
  uint64_t parsed = 0;
  unsigned tail = 0;
  bool last = false;
  for (;;) {
    unsigned queued = tail - warp_load_published(shared.head, lane);
    if (queued >= kLz4PairAhead) {
      __nanosleep(100);
      continue;
    }
    const DeviceChunkStatus status = warp_lz4_parse_steps(
        in, in_size, capacity, ip, parsed, lane, shared.ring, tail, queued, last, kLz4PairAhead);
    __syncwarp();
    if (lane == 0) {
      __threadfence_block();  // the steps before the tail that announces them
      store_shared_volatile(shared.tail, tail);
      if (status != DeviceChunkStatus::ok || last) {
        shared.status = status;
        __threadfence_block();  // the final tail and status before `done`
        *static_cast<volatile int*>(&shared.done) = 1;
      }
    }
    if (status != DeviceChunkStatus::ok || last) return;
  }
}

/// The executing warp: returns the status of the failing step (ok when none failed) and the bytes
/// written, as warp_lz4_decode does. All lanes return the same result.
__device__ inline DecodeResult warp_lz4_pair_execute(const unsigned char* in, unsigned char* out,
                                                     unsigned lane, Lz4PairShared& shared) {
  uint64_t op = 0;
  unsigned head = 0;
  for (;;) {
    int done = 0;
    unsigned tail = 0;
    if (lane == 0) {
      done = *static_cast<const volatile int*>(&shared.done);
      __threadfence_block();  // `done` before the tail it makes final
      tail = load_shared_volatile(shared.tail);
      __threadfence_block();  // the tail before the steps it announces
    }
    done = __shfl_sync(kFullMask, done, 0);
    tail = __shfl_sync(kFullMask, tail, 0);
    __syncwarp();  // lane 0's view of the ring before every lane's reads
    const unsigned waiting = tail - head;
    if (waiting == 0 && done) {
      const auto status = static_cast<DeviceChunkStatus>(
          __shfl_sync(kFullMask, lane == 0 ? static_cast<int>(shared.status) : 0, 0));
      return {status, op};
    }
    if (waiting < kWarpSize && !done) {
      __nanosleep(100);
      continue;
    }
    const unsigned count = waiting < kWarpSize ? waiting : kWarpSize;
    const WarpStepGroup g = warp_lz4_take_steps(in, shared.ring, head, count, lane);
    head += count;
    if (lane == 0) {
      __threadfence_block();  // every lane's reads of the slots before the parser may reuse them
      store_shared_volatile(shared.head, head);
    }
    op = warp_execute_group(g, out, op, lane);
  }
}

}  // namespace cuzarr::gpu::detail
