#include <algorithm>
#include <stdexcept>
#include <string>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_block_parallel.hpp"
#include "codec/cuda/lz4_block_parallel_kernels.hpp"
#include "codec/cuda/lz4_chunk_block.cuh"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/lz4_segments.hpp"
#include "codec/cuda/lz4_split_decode.hpp"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/lz4_warp_team_decode.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kWarpSize;
using detail::umin;

constexpr int kDecodeWarps = 4;  // warps (chunks) per thread block
/// Resident thread blocks per SM of the decode kernel: 6 (80 registers, 24 warps an SM) when the
/// batch's chunks fit that at once, else 7 (72 registers, 28 warps, a few spills). More warps hide
/// more of the memory latency when every SM is full; a warp alone runs faster with more registers
/// (H200, bench/RESULTS.md: 64 KiB chunks of ratio 2.1 1.03x faster at 7 than at 6 and
/// 1.07x to 1.10x than at 8, where the 64 registers spill in the parser's loop).
constexpr int kDecodeBlocksPerSmFew = 6;
/// The bytes of a lane's copy round in the warp-per-chunk decode kernel (warp_copy_items; 8 for
/// the other decoders but some teams, kLz4TeamRoundBytes). On an H200, 4 decoded 64 KiB chunks of
/// ratio 2.1 1.05x to 1.06x faster than 8 (bench/RESULTS.md, "Match copies that wait on memory
/// once" and "4-byte copy rounds in the LZ4 warp decoder").
constexpr int kDecodeRoundBytes = 4;
/// Batches that a team of warps per chunk (a parser and 1 to 3 executors) can hold at once take
/// the team kernel: 2 chunks per thread block, about 80 registers; teams with a stager
/// (Lz4TeamParser::with_stager) take one chunk a thread block. The launcher takes the largest team
/// that holds the whole batch at once: three executors and a stager (up to 528 chunks on an H200,
/// 2 and 4 MiB chunks of a 1 GiB batch), three, two (1056: 1 MiB chunks), else one. On an H200
/// each was the fastest of the teams that fit on the quantized field of ratio 2.15, and up to 9 %
/// slower than the fastest on the uint16 and float32 fields (bench/RESULTS.md, "a ring of 512
/// steps"); a later run at 4 MiB found the team with a stager at 0.77x and 0.88x of the fastest
/// there (bench/RESULTS.md, "an ahead parser for 4 MiB blocks").
template <bool kStaged>
inline constexpr unsigned kTeamChunks = kStaged ? 1 : 2;
/// The warps of a team: its parser, its stager if it has one, and its executors.
template <unsigned kExecutors, bool kStaged>
inline constexpr unsigned kTeamWarps = 1 + (kStaged ? 1 : 0) + kExecutors;
template <unsigned kExecutors, bool kStaged>
constexpr int team_threads() {
  return static_cast<int>(kTeamChunks<kStaged> * kTeamWarps<kExecutors, kStaged> * kWarpSize);
}
/// 80 registers a thread; teams of five warps take 4 thread blocks an SM (at 5, ptxas holds them
/// to 72 registers).
template <unsigned kExecutors, bool kStaged>
constexpr int team_blocks_per_sm() {
  return kTeamWarps<kExecutors, kStaged> >= 5 ? 4
                                              : 65536 / (80 * team_threads<kExecutors, kStaged>());
}
constexpr int kDecodeBlocksPerSmMany = 7;
constexpr int kEncodeThreads = 64;
constexpr size_t kEncodeWorkers = 8192;  // encoder threads at most, each with its hash table
constexpr uint64_t kLz4MaxInputSize = 0x7E000000;

template <bool kNumcodecs, int kBlocksPerSm>
__global__ void __launch_bounds__(kDecodeWarps* kWarpSize, kBlocksPerSm)
    lz4_decode_kernel(DeviceChunkBatch batch, const uint32_t* handled) {
  const size_t chunk = blockIdx.x * size_t{kDecodeWarps} + threadIdx.x / kWarpSize;
  if (chunk >= batch.count) return;
  if (handled != nullptr && handled[chunk]) return;  // decoded block-parallel
  const unsigned lane = threadIdx.x % kWarpSize;
  __shared__ detail::Lz4StepQueue queues[kDecodeWarps];
  const ChunkBlock b = chunk_block<kNumcodecs>(batch, chunk);
  DecodeResult r{b.status, 0};
  if (b.decode) {
    r = chunk_result<kNumcodecs>(
        b, detail::warp_lz4_decode<detail::kLz4QueueSlots, kDecodeRoundBytes>(
               b.in, b.in_size, b.out, b.capacity, lane, queues[threadIdx.x / kWarpSize]));
  }
  record_result(batch, chunk, r, lane);
}

/// One warp decodes the block alone, in the ring of its team (out of line: a rare path that would
/// cost the team's hot loops registers).
__device__ __noinline__ DecodeResult warp_decode_alone(
    const ChunkBlock& b, unsigned lane, detail::Lz4StepRing<detail::kLz4TeamSlots>& ring) {
  return detail::warp_lz4_decode(b.in, b.in_size, b.out, b.capacity, lane, ring);
}

/// Waits for the warps of team `team` of the thread block (named barrier 1 + team).
template <unsigned kExecutors, bool kStaged>
__device__ inline void team_barrier(unsigned team) {
  asm volatile("bar.sync %0, %1;" ::"r"(1 + team), "r"(kTeamWarps<kExecutors, kStaged> * kWarpSize)
               : "memory");
}

/// A team of warps per chunk (lz4_warp_team_decode.cuh): the first warp of team k parses chunk k
/// of the block and records the result; with kStaged the second is its stager; the others execute
/// its steps.
template <bool kNumcodecs, unsigned kExecutors, bool kStaged>
__global__ void __launch_bounds__(team_threads<kExecutors, kStaged>(),
                                  team_blocks_per_sm<kExecutors, kStaged>())
    lz4_decode_team_kernel(DeviceChunkBatch batch, const uint32_t* handled) {
  constexpr unsigned kChunks = kTeamChunks<kStaged>, kWarps = kTeamWarps<kExecutors, kStaged>;
  constexpr unsigned kFirstExecutor = kStaged ? 2 : 1;
  __shared__ detail::Lz4TeamShared<kExecutors, kStaged> teams[kChunks];
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const unsigned team = warp / kWarps, role = warp % kWarps;
  const size_t chunk = blockIdx.x * size_t{kChunks} + team;
  if (chunk >= batch.count) return;
  if (handled != nullptr && handled[chunk]) return;  // decoded block-parallel
  const ChunkBlock b = chunk_block<kNumcodecs>(batch, chunk);
  detail::Lz4TeamShared<kExecutors, kStaged>& shared = teams[team];
  if (!b.decode || b.in_size >= detail::kLz4WarpMaxInput ||
      b.capacity > detail::kLz4TeamMaxOutput) {
    // No block, or one beyond the team's 32-bit positions: the first warp alone.
    if (role != 0) return;
    DecodeResult r{b.status, 0};
    if (b.decode) {
      r = chunk_result<kNumcodecs>(b, warp_decode_alone(b, lane, shared.ring));
    }
    record_result(batch, chunk, r, lane);
    return;
  }
  if (role == 0) detail::lz4_team_reset(shared, lane);
  team_barrier<kExecutors, kStaged>(team);
  const auto in_size = static_cast<uint32_t>(b.in_size);
  if (role == 0) {
    detail::warp_lz4_team_parse(b.in, in_size, b.capacity, lane, shared);
  } else if (kStaged && role == 1) {
    if constexpr (kStaged) detail::warp_lz4_team_stage(b.in, in_size, lane, shared);
  } else {
    detail::warp_lz4_team_execute(b.in, b.out, role - kFirstExecutor, lane, shared);
  }
  team_barrier<kExecutors, kStaged>(team);  // every group executed
  if (role == 0) {
    record_result(batch, chunk, chunk_result<kNumcodecs>(b, {shared.status, shared.parsed}), lane);
  }
}

template <bool kNumcodecs>
__global__ void __launch_bounds__(kEncodeThreads)
    lz4_encode_kernel(DeviceChunkBatch batch, uint32_t* tables, size_t workers) {
  const size_t worker = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (worker >= workers) return;
  uint32_t* table = tables + worker * kLz4HashEntries;
  for (size_t chunk = worker; chunk < batch.count; chunk += workers) {
    const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
    auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
    const uint64_t size = batch.input_sizes[chunk];
    const uint64_t capacity = batch.output_capacities[chunk];
    const uint64_t header = kNumcodecs ? kNumcodecsLz4HeaderSize : 0;
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    uint64_t written = 0;
    if (size > kLz4MaxInputSize) {
      status = DeviceChunkStatus::unsupported;
    } else if (capacity < header + 1) {
      status = DeviceChunkStatus::output_too_small;
    } else {
      written = lz4_encode_block(in, size, out + header, capacity - header, table);
      if (written == 0) {
        status = DeviceChunkStatus::output_too_small;
      } else if (kNumcodecs) {
        store_le32(out, static_cast<uint32_t>(size));
      }
    }
    batch.statuses[chunk] = status;
    batch.output_sizes[chunk] = status == DeviceChunkStatus::ok ? written + header : 0;
  }
}

template <bool kNumcodecs, unsigned kExecutors, bool kStaged = false>
void launch_team(const DeviceChunkBatch& batch, const uint32_t* handled, cudaStream_t s) {
  const auto blocks =
      static_cast<unsigned>((batch.count + kTeamChunks<kStaged> - 1) / kTeamChunks<kStaged>);
  lz4_decode_team_kernel<kNumcodecs, kExecutors, kStaged>
      <<<blocks, team_threads<kExecutors, kStaged>(), 0, s>>>(batch, handled);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

/// Launches teams of kExecutors (with a stager if kStaged) when the GPU holds every team of the
/// batch at once.
template <bool kNumcodecs, unsigned kExecutors, bool kStaged>
bool launch_team_if_resident(const DeviceChunkBatch& batch, const uint32_t* handled,
                             cudaStream_t s) {
  const uint64_t blocks = (batch.count + kTeamChunks<kStaged> - 1) / kTeamChunks<kStaged>;
  if (blocks > detail::resident_blocks(lz4_decode_team_kernel<kNumcodecs, kExecutors, kStaged>,
                                       team_threads<kExecutors, kStaged>())) {
    return false;
  }
  launch_team<kNumcodecs, kExecutors, kStaged>(batch, handled, s);
  return true;
}

template <bool kNumcodecs, bool kStaged>
void launch_team_of(const DeviceChunkBatch& batch, unsigned executors, cudaStream_t s) {
  switch (executors) {
    case 1:
      return launch_team<kNumcodecs, 1, kStaged>(batch, nullptr, s);
    case 2:
      return launch_team<kNumcodecs, 2, kStaged>(batch, nullptr, s);
    case 3:
      return launch_team<kNumcodecs, 3, kStaged>(batch, nullptr, s);
    default:
      throw std::invalid_argument("lz4 team decode: executors must be 1, 2 or 3, not " +
                                  std::to_string(executors));
  }
}

template <bool kNumcodecs>
void decode_team(const DeviceChunkBatch& batch, unsigned executors, Lz4TeamParser parser,
                 Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  if (parser == Lz4TeamParser::with_stager) {
    launch_team_of<kNumcodecs, true>(batch, executors, s);
  } else {
    launch_team_of<kNumcodecs, false>(batch, executors, s);
  }
}

template <bool kNumcodecs>
void decode(const DeviceChunkBatch& batch, Stream stream, const uint32_t* handled = nullptr) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  // The fewer the chunks, the more a team's parser is the limit: the largest team that fits
  // (bench/RESULTS.md, "the launcher's stager" and "a ring of 512 steps").
  if (launch_team_if_resident<kNumcodecs, 3, true>(batch, handled, s) ||
      launch_team_if_resident<kNumcodecs, 3, false>(batch, handled, s) ||
      launch_team_if_resident<kNumcodecs, 2, false>(batch, handled, s) ||
      launch_team_if_resident<kNumcodecs, 1, false>(batch, handled, s)) {
    return;
  }
  const auto blocks = static_cast<unsigned>((batch.count + kDecodeWarps - 1) / kDecodeWarps);
  constexpr auto few = lz4_decode_kernel<kNumcodecs, kDecodeBlocksPerSmFew>;
  const uint64_t few_at_once = detail::resident_blocks(few, kDecodeWarps * kWarpSize);
  if (blocks <= few_at_once) {
    few<<<blocks, kDecodeWarps * kWarpSize, 0, s>>>(batch, handled);
  } else {
    lz4_decode_kernel<kNumcodecs, kDecodeBlocksPerSmMany>
        <<<blocks, kDecodeWarps * kWarpSize, 0, s>>>(batch, handled);
  }
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

/// Whether the launcher with scratch splits the batch's large blocks (lz4_split_decode.hpp) rather
/// than decoding them block-parallel (asked for by block_parallel_from) or whole.
bool split_by_default(size_t count, uint64_t max_output, uint64_t block_parallel_from) {
  return block_parallel_from == kLz4BpOff && detail::lz4_split_pays(count, max_output);
}

template <bool kNumcodecs>
void decode_parallel(const DeviceChunkBatch& batch, uint64_t max_output, void* temp,
                     uint64_t block_parallel_from, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t* handled =
      split_by_default(batch.count, max_output, block_parallel_from)
          ? detail::lz4_split_decode_batch(batch, kNumcodecs, max_output, temp, stream)
          : detail::lz4_bp_decode_batch(batch, kNumcodecs, max_output, block_parallel_from, temp,
                                        stream);
  decode<kNumcodecs>(batch, stream, handled);
}

template <bool kNumcodecs>
void decode_split(const DeviceChunkBatch& batch, uint64_t max_output, void* temp, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t* handled = nullptr;
  if (detail::lz4_split_parts(max_output) != 0) {
    handled = detail::lz4_split_decode_batch(batch, kNumcodecs, max_output, temp, stream);
  }
  decode<kNumcodecs>(batch, stream, handled);
}

size_t encode_workers(size_t count) { return std::min(count, kEncodeWorkers); }

template <bool kNumcodecs>
void encode(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  if (batch.count == 0) return;
  const size_t workers = encode_workers(batch.count);
  const auto blocks = static_cast<unsigned>((workers + kEncodeThreads - 1) / kEncodeThreads);
  lz4_encode_kernel<kNumcodecs><<<blocks, kEncodeThreads, 0, detail::to_cuda(stream.native())>>>(
      batch, static_cast<uint32_t*>(temp), workers);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

// Segment-parallel encode (lz4_segments.hpp) --------------------------------------------------
// Three kernels: (1) one warp per segment encodes it (lane 0 runs the greedy matcher with its hash
// table in shared memory) into the segment's body slot; (2) one thread per chunk plans the block
// (serial over its segments), checks the capacity, writes the header and the status; (3) one warp
// per segment writes its part of the block: lane 0 the sequence header bytes, the warp the literal
// run and the body.

constexpr int kSegmentWarps = 4;  // segments per thread block (8 KiB of hash table each)
constexpr uint64_t kScratchAlign = 256;

// Scratch: summaries and plans [count * max_segments], ends [count], bodies [count *
// max_segments] of kLz4SegmentBodyCapacity bytes; segment i of chunk c is entry c * max_segments +
// i.
struct SegmentScratch {
  Lz4SegmentSummary* summaries;
  Lz4SegmentPlan* plans;
  Lz4StitchEnd* ends;
  unsigned char* bodies;
  uint64_t max_segments;
};

__host__ __device__ inline uint64_t scratch_align(uint64_t n) {
  return (n + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

SegmentScratch segment_scratch(void* temp, size_t count, uint64_t max_input_size) {
  SegmentScratch s;
  s.max_segments = lz4_segment_count(max_input_size);
  auto* base = static_cast<unsigned char*>(temp);
  s.summaries = reinterpret_cast<Lz4SegmentSummary*>(base);
  base += scratch_align(count * s.max_segments * sizeof(Lz4SegmentSummary));
  s.plans = reinterpret_cast<Lz4SegmentPlan*>(base);
  base += scratch_align(count * s.max_segments * sizeof(Lz4SegmentPlan));
  s.ends = reinterpret_cast<Lz4StitchEnd*>(base);
  base += scratch_align(count * sizeof(Lz4StitchEnd));
  s.bodies = base;
  return s;
}

size_t segment_scratch_bytes(size_t count, uint64_t max_input_size) {
  const uint64_t segments = count * lz4_segment_count(max_input_size);
  return scratch_align(segments * sizeof(Lz4SegmentSummary)) +
         scratch_align(segments * sizeof(Lz4SegmentPlan)) +
         scratch_align(count * sizeof(Lz4StitchEnd)) + segments * kLz4SegmentBodyCapacity;
}

// A chunk the segment encoders take: within LZ4's limit and the scratch's.
__device__ inline bool segment_chunk_supported(uint64_t size, uint64_t max_input_size) {
  return size <= kLz4MaxInputSize && size <= max_input_size;
}

__global__ void __launch_bounds__(kSegmentWarps* kWarpSize)
    lz4_segment_encode_kernel(DeviceChunkBatch batch, SegmentScratch scratch,
                              uint64_t max_input_size) {
  __shared__ uint16_t tables[kSegmentWarps][kLz4SegmentHashEntries];
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const uint64_t id = uint64_t{blockIdx.x} * kSegmentWarps + warp;
  const uint64_t chunk = id / scratch.max_segments, segment = id % scratch.max_segments;
  if (chunk >= batch.count || lane != 0) return;
  const uint64_t size = batch.input_sizes[chunk];
  if (!segment_chunk_supported(size, max_input_size) || segment >= lz4_segment_count(size)) return;
  const uint64_t begin = segment * kLz4SegmentBytes;
  const uint64_t end = umin(size, begin + kLz4SegmentBytes);
  scratch.summaries[id] =
      lz4_encode_segment(reinterpret_cast<const unsigned char*>(batch.inputs[chunk]), size, begin,
                         end, scratch.bodies + id * kLz4SegmentBodyCapacity, tables[warp]);
}

__global__ void lz4_segment_plan_kernel(DeviceChunkBatch batch, SegmentScratch scratch,
                                        uint64_t max_input_size, uint64_t header) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk >= batch.count) return;
  const uint64_t size = batch.input_sizes[chunk];
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  uint64_t produced = 0;
  if (!segment_chunk_supported(size, max_input_size)) {
    status = DeviceChunkStatus::unsupported;
  } else {
    const uint64_t first = chunk * scratch.max_segments;
    const Lz4StitchEnd e = lz4_plan_segments(scratch.summaries + first, lz4_segment_count(size),
                                             size, scratch.plans + first);
    scratch.ends[chunk] = e;
    if (batch.output_capacities[chunk] < header + e.block_bytes) {
      status = DeviceChunkStatus::output_too_small;
    } else {
      produced = header + e.block_bytes;
      if (header > 0)
        store_le32(reinterpret_cast<unsigned char*>(batch.outputs[chunk]),
                   static_cast<uint32_t>(size));
    }
  }
  batch.statuses[chunk] = status;
  batch.output_sizes[chunk] = produced;
}

__global__ void __launch_bounds__(kSegmentWarps* kWarpSize)
    lz4_segment_write_kernel(DeviceChunkBatch batch, SegmentScratch scratch, uint64_t header) {
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const uint64_t id = uint64_t{blockIdx.x} * kSegmentWarps + warp;
  const uint64_t chunk = id / scratch.max_segments, segment = id % scratch.max_segments;
  if (chunk >= batch.count || batch.statuses[chunk] != DeviceChunkStatus::ok) return;
  const uint64_t size = batch.input_sizes[chunk];
  const uint64_t segments = lz4_segment_count(size);
  if (segment >= segments) return;
  const auto* src = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  unsigned char* dst = reinterpret_cast<unsigned char*>(batch.outputs[chunk]) + header;
  const Lz4SegmentSummary s = scratch.summaries[id];
  const Lz4SegmentPlan p = scratch.plans[id];
  if (s.first_distance != 0) {
    uint64_t op = p.out_offset;
    if (lane == 0) lz4_write_literal_header(dst + op, p.literal_length, s.first_length);
    op += lz4_literal_header_bytes(p.literal_length);
    detail::cooperative_copy(dst + op, src + p.literal_begin, p.literal_length, lane, kWarpSize);
    op += p.literal_length;
    if (lane == 0) lz4_write_match_tail(dst + op, s.first_distance, s.first_length);
    op += lz4_match_tail_bytes(s.first_length);
    detail::cooperative_copy(dst + op, scratch.bodies + id * kLz4SegmentBodyCapacity, s.body_bytes,
                             lane, kWarpSize);
  }
  if (segment == segments - 1) {
    const Lz4StitchEnd e = scratch.ends[chunk];
    if (lane == 0) lz4_write_literal_header(dst + e.out_offset, e.literal_length, 0);
    const uint64_t op = e.out_offset + lz4_literal_header_bytes(e.literal_length);
    detail::cooperative_copy(dst + op, src + e.literal_begin, e.literal_length, lane, kWarpSize);
  }
}

template <bool kNumcodecs>
void encode_segments(const DeviceChunkBatch& batch, uint64_t max_input_size, void* temp,
                     Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  const SegmentScratch scratch = segment_scratch(temp, batch.count, max_input_size);
  const uint64_t header = kNumcodecs ? kNumcodecsLz4HeaderSize : 0;
  const auto blocks = static_cast<unsigned>(
      (batch.count * scratch.max_segments + kSegmentWarps - 1) / kSegmentWarps);
  lz4_segment_encode_kernel<<<blocks, kSegmentWarps * kWarpSize, 0, s>>>(batch, scratch,
                                                                         max_input_size);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  lz4_segment_plan_kernel<<<static_cast<unsigned>((batch.count + 127) / 128), 128, 0, s>>>(
      batch, scratch, max_input_size, header);
  CUZARR_CUDA_CHECK(cudaGetLastError());
  lz4_segment_write_kernel<<<blocks, kSegmentWarps * kWarpSize, 0, s>>>(batch, scratch, header);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream) {
  decode<false>(batch, stream);
}
void numcodecs_lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream) {
  decode<true>(batch, stream);
}

void lz4_decode_batch_with_team(const DeviceChunkBatch& batch, unsigned executors,
                                Lz4TeamParser parser, Stream stream) {
  decode_team<false>(batch, executors, parser, stream);
}
void numcodecs_lz4_decode_batch_with_team(const DeviceChunkBatch& batch, unsigned executors,
                                          Lz4TeamParser parser, Stream stream) {
  decode_team<true>(batch, executors, parser, stream);
}

size_t lz4_decode_temp_bytes(size_t count, uint64_t max_output, uint64_t block_parallel_from) {
  if (split_by_default(count, max_output, block_parallel_from)) {
    return detail::lz4_split_temp_bytes(count, max_output);
  }
  return detail::lz4_bp_temp_bytes(count, max_output, block_parallel_from);
}
void lz4_decode_batch(const DeviceChunkBatch& batch, uint64_t max_output, void* temp, Stream stream,
                      uint64_t block_parallel_from) {
  decode_parallel<false>(batch, max_output, temp, block_parallel_from, stream);
}
void numcodecs_lz4_decode_batch(const DeviceChunkBatch& batch, uint64_t max_output, void* temp,
                                Stream stream, uint64_t block_parallel_from) {
  decode_parallel<true>(batch, max_output, temp, block_parallel_from, stream);
}

size_t lz4_decode_split_temp_bytes(size_t count, uint64_t max_output) {
  return detail::lz4_split_temp_bytes(count, max_output);
}
void lz4_decode_batch_split(const DeviceChunkBatch& batch, uint64_t max_output, void* temp,
                            Stream stream) {
  decode_split<false>(batch, max_output, temp, stream);
}
void numcodecs_lz4_decode_batch_split(const DeviceChunkBatch& batch, uint64_t max_output,
                                      void* temp, Stream stream) {
  decode_split<true>(batch, max_output, temp, stream);
}

uint64_t lz4_max_encoded_size(uint64_t size) { return lz4_encode_bound(size); }
uint64_t numcodecs_lz4_max_encoded_size(uint64_t size) {
  return lz4_encode_bound(size) + kNumcodecsLz4HeaderSize;
}
size_t lz4_encode_temp_bytes(size_t count) {
  return encode_workers(count) * kLz4HashEntries * sizeof(uint32_t);
}

void lz4_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  encode<false>(batch, temp, stream);
}
void numcodecs_lz4_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  encode<true>(batch, temp, stream);
}

size_t lz4_encode_segments_temp_bytes(size_t count, uint64_t max_input_size) {
  return segment_scratch_bytes(count, max_input_size);
}
void lz4_encode_segments_batch(const DeviceChunkBatch& batch, uint64_t max_input_size, void* temp,
                               Stream stream) {
  encode_segments<false>(batch, max_input_size, temp, stream);
}
void numcodecs_lz4_encode_segments_batch(const DeviceChunkBatch& batch, uint64_t max_input_size,
                                         void* temp, Stream stream) {
  encode_segments<true>(batch, max_input_size, temp, stream);
}

}  // namespace cuzarr::gpu
