// GPU passes of the block-parallel LZ4 decoder (lz4_block_parallel.hpp). Chunks go in rounds
// whose slots fit kRoundBytes; per round:
//   plan (thread per chunk) -> list (one block: prefix of segments over the parallel chunks) ->
//   parse, link (thread per segment) -> stitch (warp per chunk: runs of joined segments in one
//   step, lane 0 for the others) -> bytes (warp per segment) -> scan (warp per chunk) ->
//   check (warp per segment) -> finish (warp per chunk: statuses) -> pieces (a warp per piece:
//   literals, then matches; external bytes marked with their origins) -> resolve (a warp per
//   piece: its external bytes follow their origins to local bytes). No warp waits for another.
#include <algorithm>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_parallel.hpp"
#include "codec/cuda/lz4_block_parallel_kernels.hpp"
#include "codec/cuda/lz4_pieces_warp.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {
namespace {

constexpr int kWarps = 4;                            // warps per thread block
constexpr unsigned kBlocks = 2048;                   // thread blocks of per-segment kernels
constexpr unsigned kListThreads = 1024;              // the list kernel's one block
constexpr uint64_t kRoundBytes = uint64_t{6} << 30;  // slots of one round at most

uint64_t align256(uint64_t n) { return (n + 255) / 256 * 256; }

Lz4BpSlotLayout layout_for(uint64_t max_output) {
  return lz4_bp_slot_layout(lz4_bp_max_input(max_output), max_output);
}

size_t round_slots(size_t count, uint64_t max_output) {
  const uint64_t slot = layout_for(max_output).bytes;
  return std::min<size_t>(count, std::max<uint64_t>(1, kRoundBytes / slot));
}

// Control area: handled[count], prefix[slots + 1].
uint64_t control_bytes(size_t count, size_t slots) {
  return align256(count * 4) + align256((slots + 1) * 4);
}

struct Round {
  DeviceChunkBatch batch;
  size_t first;  // first chunk of the round
  uint32_t n;    // chunks in the round
  unsigned char* slots;
  Lz4BpSlotLayout layout;
  uint64_t max_output;
  uint64_t min_capacity;
  bool numcodecs;
};

__device__ inline Lz4BpSlot round_slot(const Round& r, uint32_t s) {
  return lz4_bp_slot(r.slots + s * r.layout.bytes, r.layout);
}

/// A chunk's block: the input after the numcodecs header, the capacity it decodes to.
struct ChunkView {
  const unsigned char* in;
  uint64_t in_size;
  unsigned char* out;
  uint64_t capacity;
  uint64_t expected;  // numcodecs: the header's size
  bool usable;        // the block-parallel path may take it
};

__device__ inline ChunkView chunk_view(const Round& r, size_t c) {
  ChunkView v;
  v.in = reinterpret_cast<const unsigned char*>(r.batch.inputs[c]);
  v.in_size = r.batch.input_sizes[c];
  v.out = reinterpret_cast<unsigned char*>(r.batch.outputs[c]);
  v.capacity = r.batch.output_capacities[c];
  v.expected = 0;
  v.usable = v.capacity <= r.max_output;
  if (r.numcodecs) {
    if (v.in_size < kNumcodecsLz4HeaderSize) {
      v.usable = false;
      return v;
    }
    v.expected = load_le32(v.in);
    if (v.expected > v.capacity) v.usable = false;  // output_too_small: the warp decoder says so
    v.in += kNumcodecsLz4HeaderSize;
    v.in_size -= kNumcodecsLz4HeaderSize;
    v.capacity = v.expected;
  }
  return v;
}

/// The slot of list item t: the last s with prefix[s] <= t.
__device__ inline uint32_t find_slot(const uint32_t* prefix, uint32_t n, uint32_t t) {
  uint32_t lo = 0, hi = n;  // prefix[lo] <= t < prefix[hi]
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (prefix[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void plan_kernel(Round r, uint32_t* handled) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= r.n) return;
  const size_t c = r.first + s;
  const Lz4BpSlot slot = round_slot(r, s);
  const ChunkView v = chunk_view(r, c);
  const uint64_t slot_max_input = lz4_bp_max_input(r.max_output);
  // numcodecs chunks of size 0 have no block: the warp decoder handles them.
  lz4_bp_plan(v.usable ? v.in_size : 0, v.capacity, r.min_capacity, slot_max_input, slot);
  handled[c] = slot.plan->parallel;
}

/// prefix[s] = segments of the parallel slots before s. One block.
__global__ void __launch_bounds__(kListThreads) list_kernel(Round r, uint32_t* prefix) {
  __shared__ uint32_t sums[kListThreads];
  const unsigned t = threadIdx.x;
  const uint32_t per = (r.n + kListThreads - 1) / kListThreads;
  const uint32_t begin = umin(uint64_t{t} * per, r.n), end = umin(uint64_t{begin} + per, r.n);
  uint32_t local = 0;
  for (uint32_t s = begin; s < end; ++s) local += round_slot(r, s).plan->segments;
  sums[t] = local;
  __syncthreads();
  for (unsigned d = 1; d < kListThreads; d *= 2) {
    const uint32_t add = t >= d ? sums[t - d] : 0;
    __syncthreads();
    sums[t] += add;
    __syncthreads();
  }
  uint32_t running = sums[t] - local;  // exclusive
  for (uint32_t s = begin; s < end; ++s) {
    prefix[s] = running;
    running += round_slot(r, s).plan->segments;
  }
  if (t == kListThreads - 1) prefix[r.n] = sums[t];
}

__global__ void parse_kernel(Round r, const uint32_t* prefix) {
  const uint32_t total = prefix[r.n];
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const uint32_t s = find_slot(prefix, r.n, t);
    const ChunkView v = chunk_view(r, r.first + s);
    lz4_bp_parse_segment(v.in, v.in_size, round_slot(r, s), t - prefix[s]);
  }
}

__global__ void link_kernel(Round r, const uint32_t* prefix) {
  const uint32_t total = prefix[r.n];
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const uint32_t s = find_slot(prefix, r.n, t);
    lz4_bp_link_segment(round_slot(r, s), t - prefix[s]);
  }
}

/// The stitch of one chunk by a warp: a run of segments that each enter where the previous one
/// joined them is set in one step (lz4_bp_stitch_step gives the same result for each); lane 0
/// takes the other segments one by one (binary search or reparse).
__device__ inline void stitch_chunk(const ChunkView& v, const Lz4BpSlot& slot, unsigned lane) {
  const uint32_t n = slot.plan->segments;
  Lz4BpStitchState state;
  uint32_t k = 0;
  while (k < n) {
    if (state.ended) {
      for (uint32_t s = k + lane; s < n; s += kWarpSize) {
        slot.segments[s].first = 0;
        slot.segments[s].end = 0;
      }
      break;
    }
    if (state.hint_segment == k && state.hint != kLz4BpNone) {
      const unsigned out = __ballot_sync(kFullMask, !lz4_bp_run_member(slot, k, lane));
      const uint32_t run = out == 0 ? kWarpSize : __ffs(out) - 1;  // lane 0 is a member
      if (lane < run) lz4_bp_run_segment(slot, k, lane, state.hint);
      lz4_bp_run_leave(slot, k + run - 1, state);
      k += run;
      __syncwarp();
      continue;
    }
    if (lane == 0) lz4_bp_stitch_step(v.in, v.in_size, slot, k, state);
    state.position = shfl64(state.position, 0);
    state.hint_segment = shfl64(state.hint_segment, 0);
    state.hint = __shfl_sync(kFullMask, state.hint, 0);
    state.ended = __shfl_sync(kFullMask, static_cast<int>(state.ended), 0) != 0;
    __syncwarp();  // lane 0's records (a reparse) are visible to the warp
    ++k;
  }
  if (lane == 0) slot.plan->terminated = state.ended ? 1 : 0;
}

__global__ void __launch_bounds__(kWarps* kWarpSize) stitch_kernel(Round r) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  const uint32_t warps = gridDim.x * blockDim.x / kWarpSize;
  for (uint32_t s = warp; s < r.n; s += warps) {
    const Lz4BpSlot slot = round_slot(r, s);
    if (slot.plan->parallel) stitch_chunk(chunk_view(r, r.first + s), slot, lane);
  }
}

__global__ void __launch_bounds__(kWarps* kWarpSize) bytes_kernel(Round r, const uint32_t* prefix) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint32_t total = prefix[r.n];
  for (uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; t < total;
       t += gridDim.x * blockDim.x / kWarpSize) {
    const uint32_t s = find_slot(prefix, r.n, t);
    const Lz4BpSlot slot = round_slot(r, s);
    Lz4BpSegment& seg = slot.segments[t - prefix[s]];
    const Lz4BpRecord* records = lz4_bp_records(slot, t - prefix[s]);
    uint64_t sum = 0;
    for (uint32_t i = seg.first + lane; i < seg.end; i += kWarpSize) sum += records[i].value;
    for (unsigned d = kWarpSize / 2; d > 0; d /= 2)
      sum += __shfl_down_sync(kFullMask, static_cast<unsigned long long>(sum), d);
    if (lane == 0) seg.bytes = sum;
  }
}

__global__ void __launch_bounds__(kWarps* kWarpSize) scan_kernel(Round r) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  const uint32_t warps = gridDim.x * blockDim.x / kWarpSize;
  for (uint32_t s = warp; s < r.n; s += warps) {
    const Lz4BpSlot slot = round_slot(r, s);
    if (slot.plan->parallel) warp_lz4_scan_segments(slot, lane);
  }
}

/// Pass 6 for a segment by a warp: 32 records at a time (lz4_bp_check_segment).
__global__ void __launch_bounds__(kWarps* kWarpSize) check_kernel(Round r, const uint32_t* prefix) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint32_t total = prefix[r.n];
  for (uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; t < total;
       t += gridDim.x * blockDim.x / kWarpSize) {
    const uint32_t s = find_slot(prefix, r.n, t);
    const Lz4BpSlot slot = round_slot(r, s);
    const ChunkView v = chunk_view(r, r.first + s);
    const uint32_t k = t - prefix[s];
    Lz4BpSegment& seg = slot.segments[k];
    Lz4BpRecord* records = lz4_bp_records(slot, k);
    uint64_t op = seg.out_offset;
    for (uint32_t base = seg.first; base < seg.end; base += kWarpSize) {
      const uint32_t i = base + lane;
      Lz4Token tok;
      uint64_t len = 0;
      if (i < seg.end) {
        tok = lz4_bp_parse_token(v.in, v.in_size, records[i].position);
        len = tok.literal_length + tok.match_length;
      }
      const uint64_t incl = warp_inclusive_sum64(len, lane);
      const uint64_t my_op = op + incl - len;
      const DeviceChunkStatus st =
          i < seg.end ? lz4_bp_check_token(tok, my_op, v.capacity) : DeviceChunkStatus::ok;
      const unsigned fails = __ballot_sync(kFullMask, st != DeviceChunkStatus::ok);
      const unsigned first_fail = fails == 0 ? kWarpSize : __ffs(fails) - 1;
      if (i < seg.end && lane < first_fail) records[i].value = static_cast<uint32_t>(my_op);
      if (fails != 0) {
        if (lane == first_fail) {
          seg.status = st;
          seg.fail_record = i;
        }
        break;
      }
      op += shfl64(incl, kWarpSize - 1);
    }
  }
}

/// Pass 7 by a warp per chunk: the first failing segment, else the chain's end; writes the
/// chunk's status and size (numcodecs: the block must decode to the header's size).
__global__ void __launch_bounds__(kWarps* kWarpSize) finish_kernel(Round r) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  const uint32_t warps = gridDim.x * blockDim.x / kWarpSize;
  for (uint32_t s = warp; s < r.n; s += warps) {
    const Lz4BpSlot slot = round_slot(r, s);
    if (!slot.plan->parallel) continue;
    const uint32_t n = slot.plan->segments;
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    for (uint32_t base = 0; base < n; base += kWarpSize) {
      const uint32_t k = base + lane;
      const DeviceChunkStatus st = k < n ? slot.segments[k].status : DeviceChunkStatus::ok;
      const unsigned fails = __ballot_sync(kFullMask, st != DeviceChunkStatus::ok);
      if (fails != 0) {
        status = static_cast<DeviceChunkStatus>(
            __shfl_sync(kFullMask, static_cast<int>(st), __ffs(fails) - 1));
        break;
      }
    }
    if (lane == 0) {
      if (status == DeviceChunkStatus::ok && !slot.plan->terminated)
        status = DeviceChunkStatus::corrupt_input;  // the chain runs into the input's end
      const uint64_t size = slot.plan->output_size;
      if (r.numcodecs) {
        const ChunkView v = chunk_view(r, r.first + s);
        if (status == DeviceChunkStatus::output_too_small ||
            (status == DeviceChunkStatus::ok && size != v.expected)) {
          status = DeviceChunkStatus::corrupt_input;  // the block disagrees with its header
        }
      }
      slot.plan->status = status;
      const size_t c = r.first + s;
      r.batch.statuses[c] = status;
      r.batch.output_sizes[c] = status == DeviceChunkStatus::ok ? size : 0;
    }
    __syncwarp();
  }
}

/// The piece that starts at list item t, when there is one and its chunk passed the finish.
struct PieceItem {
  bool valid = false;
  ChunkView v;
  Lz4BpSlot slot;
  uint32_t first = 0, end = 0;  ///< its segments
};

__device__ inline PieceItem piece_item(const Round& r, const uint32_t* prefix, uint32_t t) {
  PieceItem p;
  const uint32_t s = find_slot(prefix, r.n, t);
  p.slot = round_slot(r, s);
  p.first = t - prefix[s];
  if (p.slot.plan->status != DeviceChunkStatus::ok || !p.slot.segments[p.first].piece_start)
    return p;
  p.valid = true;
  p.v = chunk_view(r, r.first + s);
  p.end = lz4_bp_piece_end(p.slot, p.first);
  return p;
}

/// Calls body(piece) for every piece of the round, a warp per piece (every lane alike).
template <class Body>
__device__ inline void for_each_piece(const Round& r, const uint32_t* prefix, Body&& body) {
  const uint32_t total = prefix[r.n];
  for (uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize; t < total;
       t += gridDim.x * blockDim.x / kWarpSize) {
    const PieceItem p = piece_item(r, prefix, t);
    if (p.valid) body(p);
  }
}

/// Pass 8: a warp per piece (warp_lz4_execute_piece).
__global__ void __launch_bounds__(kWarps* kWarpSize)
    pieces_kernel(Round r, const uint32_t* prefix) {
  const unsigned lane = threadIdx.x % kWarpSize;
  for_each_piece(r, prefix, [&](const PieceItem& p) {
    warp_lz4_execute_piece(p.v.in, p.v.in_size, p.v.out, p.slot, p.first, p.end, lane);
  });
}

/// Pass 9: a warp per piece (warp_lz4_resolve_piece), after every piece's pass 8.
__global__ void __launch_bounds__(kWarps* kWarpSize)
    resolve_kernel(Round r, const uint32_t* prefix) {
  const unsigned lane = threadIdx.x % kWarpSize;
  for_each_piece(r, prefix, [&](const PieceItem& p) {
    warp_lz4_resolve_piece(p.v.out, p.slot, p.first, p.end, lane);
  });
}

}  // namespace

size_t lz4_bp_temp_bytes(size_t count, uint64_t max_output, uint64_t min_capacity) {
  if (count == 0 || max_output < min_capacity) return 0;
  const size_t slots = round_slots(count, max_output);
  return control_bytes(count, slots) + slots * layout_for(max_output).bytes;
}

const uint32_t* lz4_bp_decode_batch(const DeviceChunkBatch& batch, bool numcodecs,
                                    uint64_t max_output, uint64_t min_capacity, void* temp,
                                    Stream stream) {
  if (batch.count == 0 || temp == nullptr || max_output < min_capacity) return nullptr;
  const cudaStream_t cs = to_cuda(stream.native());
  const size_t slots = round_slots(batch.count, max_output);
  auto* base = static_cast<unsigned char*>(temp);
  auto* handled = reinterpret_cast<uint32_t*>(base);
  auto* prefix = reinterpret_cast<uint32_t*>(base + align256(batch.count * 4));
  Round r;
  r.batch = batch;
  r.slots = base + control_bytes(batch.count, slots);
  r.layout = layout_for(max_output);
  r.max_output = max_output;
  r.min_capacity = min_capacity;
  r.numcodecs = numcodecs;
  const unsigned threads = kWarps * kWarpSize;
  for (size_t first = 0; first < batch.count; first += slots) {
    r.first = first;
    r.n = static_cast<uint32_t>(std::min(slots, batch.count - first));
    const unsigned chunk_blocks = (r.n + 127) / 128;
    const unsigned warp_blocks = std::min<unsigned>(kBlocks, (r.n + kWarps - 1) / kWarps);
    plan_kernel<<<chunk_blocks, 128, 0, cs>>>(r, handled);
    list_kernel<<<1, kListThreads, 0, cs>>>(r, prefix);
    parse_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    link_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    stitch_kernel<<<warp_blocks, threads, 0, cs>>>(r);
    bytes_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    scan_kernel<<<warp_blocks, threads, 0, cs>>>(r);
    check_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    finish_kernel<<<warp_blocks, threads, 0, cs>>>(r);
    pieces_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    resolve_kernel<<<kBlocks, threads, 0, cs>>>(r, prefix);
    CUZARR_CUDA_CHECK(cudaGetLastError());
  }
  return handled;
}

}  // namespace cuzarr::gpu::detail
