#include <algorithm>

#include "codec/cuda/inflate_block_parallel.cuh"
#include "codec/cuda/inflate_block_parallel_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {
namespace {

/// Warps per thread block of the search, resolve and checksum kernels.
constexpr int kWarps = 8;
/// Warps per thread block of the segment passes, and their blocks per SM. A warp per block: its
/// workspace and registers return as soon as its segment is done, where a block of 5 warps held
/// its share of the SM until its slowest warp was done (1 warp a block decoded 1 to 4 MiB chunks
/// 1.03x to 1.06x faster than 5; docs/gpu_deflate.md). 27 fit an SM, bounded by shared memory
/// (a 7.1 KiB workspace with its 9-bit distance table, and the 1 KiB the SM reserves per block);
/// asking for 27 holds the decode pass to 72 registers (from 92, with 144 / 220 bytes of
/// spills), which 28 would allow. On an H200 27 decoded 1 and 4 MiB chunks 1.05x to 1.12x faster
/// than 20 (bench/RESULTS.md, "smaller distance tables").
constexpr int kSegmentWarps = 1;
constexpr int kSegmentBlocksPerSm = 27;
/// Output bytes per thread block of the resolve: 16 words a thread, so that finding the tile's
/// chunk and segments is paid once per 128 bytes (the resolve's instructions, not its memory,
/// were its limit at 16 bytes a thread).
constexpr uint64_t kResolveTile = 32768;
/// Output bytes per warp of the checksums.
constexpr uint64_t kChecksumPiece = uint64_t{128} << 10;
/// Slots are used in rounds of at most this many bytes (about 4 bytes per decoded byte: a 1 GiB
/// batch in one round).
constexpr uint64_t kMaxSlotBytes = uint64_t{6} << 30;

uint64_t align256(uint64_t n) { return (n + 255) / 256 * 256; }

/// One launch round: chunks [first, first + n) in slots at `slots`; the warps of the segment
/// passes each have kInflateRoundMatches entries of `lists`, and take the segments in the order
/// `segment_first` numbers them (inflate_bp_numbered_segment).
struct Round {
  DeviceChunkBatch batch;
  DeflateWrapper wrapper;
  bool verify;
  InflateBpLayout layout;
  unsigned char* slots;
  uint64_t* lists;
  uint32_t* segment_first;  ///< n + 1 entries
  size_t first;
  uint32_t n;
  uint64_t min_capacity;
};

/// Bytes of the segment passes' match lists for `slots` chunks.
uint64_t list_bytes(size_t slots, const InflateBpLayout& layout) {
  return align256(uint64_t{slots} * layout.max_segments * kInflateRoundMatches * sizeof(uint64_t));
}

/// Chunks per launch round.
size_t round_slots(size_t count, const InflateBpLayout& layout) {
  const uint64_t per_chunk = layout.bytes + list_bytes(1, layout);
  return std::max<size_t>(1, std::min<size_t>(count, kMaxSlotBytes / per_chunk));
}

__device__ InflateBpSlot slot_of(const Round& r, size_t i) {
  return inflate_bp_slot(r.slots + i * r.layout.bytes, r.layout);
}

__device__ const unsigned char* input_of(const Round& r, size_t chunk) {
  return reinterpret_cast<const unsigned char*>(r.batch.inputs[chunk]);
}

__global__ void plan_kernel(Round r, uint32_t* handled) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= r.n) return;
  const size_t chunk = r.first + i;
  handled[chunk] = 0;
  inflate_bp_plan(input_of(r, chunk), r.batch.input_sizes[chunk], r.batch.output_capacities[chunk],
                  r.wrapper, r.min_capacity, r.layout, slot_of(r, i));
}

/// After the plan, one warp: every chunk's first segment in the round's numbering.
__global__ void number_kernel(Round r) {
  const unsigned lane = threadIdx.x;
  uint64_t before = 0;
  for (uint32_t base = 0; base < r.n; base += kWarpSize) {
    const uint32_t i = base + lane;
    const uint64_t segments = i < r.n ? slot_of(r, i).chunk->segments : 0;
    const uint64_t through = warp_inclusive_sum64(segments, lane);
    if (i < r.n) r.segment_first[i] = static_cast<uint32_t>(before + through - segments);
    before += shfl64(through, kWarpSize - 1);
  }
  if (lane == 0) r.segment_first[r.n] = static_cast<uint32_t>(before);
}

/// The warp's segment: chunk i of the round, segment k; false when there is none (or its chunk
/// left the path).
__device__ bool warp_segment(const Round& r, size_t& i, uint32_t& k) {
  const uint64_t w = (blockIdx.x * uint64_t{blockDim.x} + threadIdx.x) / kWarpSize;
  uint32_t chunk = 0;
  if (!inflate_bp_numbered_segment(r.segment_first, r.n, w, chunk, k)) return false;
  i = chunk;
  return slot_of(r, i).chunk->parallel != 0;
}

/// Held to 64 registers so that 4 blocks fit an SM: at its 70 registers 3 did, and a 1 GiB batch
/// of 4 MiB chunks took 2.7 waves (Nsight Compute; docs/gpu_deflate.md).
__global__ void __launch_bounds__(kWarps* kWarpSize, 4) search_kernel(Round r) {
  size_t i = 0;
  uint32_t k = 0;
  if (!warp_segment(r, i, k) || k == 0) return;
  const size_t chunk = r.first + i;
  warp_inflate_bp_search(input_of(r, chunk), r.batch.input_sizes[chunk], slot_of(r, i), k,
                         threadIdx.x % kWarpSize);
}

/// A segment pass (inflate_block_parallel.cuh), a warp per segment.
template <InflateBpPass kPass>
__global__ void __launch_bounds__(kSegmentWarps* kWarpSize, kSegmentBlocksPerSm)
    segment_kernel(Round r) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto* workspaces = reinterpret_cast<InflateWorkspace*>(shared_bytes);
  size_t i = 0;
  uint32_t k = 0;
  if (!warp_segment(r, i, k)) return;
  const size_t chunk = r.first + i;
  uint64_t* list = r.lists + (i * r.layout.max_segments + k) * kInflateRoundMatches;
  warp_inflate_bp_pass(kPass, input_of(r, chunk), r.batch.input_sizes[chunk],
                       r.batch.output_capacities[chunk], slot_of(r, i), k,
                       workspaces[threadIdx.x / kWarpSize], list, threadIdx.x % kWarpSize);
}

__global__ void scan_kernel(Round r) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= r.n) return;
  const size_t chunk = r.first + i;
  inflate_bp_scan(r.batch.input_sizes[chunk], r.batch.output_capacities[chunk], slot_of(r, i));
}

/// Step 6's resolve: a thread block per tile of kResolveTile output bytes of a chunk (blockIdx.y
/// strides over the chunks), 8 bytes a thread and step (inflate_bp_resolve_word), the bytes after
/// the last full word one by one.
__global__ void resolve_kernel(Round r) {
  for (size_t i = blockIdx.y; i < r.n; i += gridDim.y) {
    const InflateBpSlot slot = slot_of(r, i);
    const InflateBpChunk& c = *slot.chunk;
    const uint64_t first = blockIdx.x * kResolveTile;
    if (!c.parallel || first >= c.output_size) continue;  // uniform over the block
    auto* out = reinterpret_cast<unsigned char*>(r.batch.outputs[r.first + i]);
    const uint64_t end = umin(c.output_size, first + kResolveTile);
    const bool aligned = reinterpret_cast<uintptr_t>(out) % 8 == 0;
    bool good = true;
    uint64_t p = first + 8 * threadIdx.x;
    uint32_t k = p < end ? inflate_bp_segment_of(slot, p) : 0;
    for (; p < end; p += 8 * blockDim.x) {
      while (p >= slot.segments[k].out_start + slot.segments[k].out_bytes) ++k;
      if (p + 8 <= end) {
        const uint64_t word = inflate_bp_resolve_word(slot, p, k, good);
        if (aligned) {
          *reinterpret_cast<uint64_t*>(out + p) = word;
        } else {
          for (int b = 0; b < 8; ++b) out[p + b] = static_cast<unsigned char>(word >> (8 * b));
        }
        continue;
      }
      for (uint64_t q = p; q < end; ++q) {
        while (q >= slot.segments[k].out_start + slot.segments[k].out_bytes) ++k;
        out[q] = inflate_bp_resolve_byte(slot, q, k, good);
      }
    }
    if (!good) slot.chunk->parallel = 0;  // the warp decoder reports the chunk
  }
}

/// Step 6's checksums: a warp per piece of kChecksumPiece output bytes of a chunk (blockIdx.y
/// strides over the chunks); the parts are combined in the chunk's record.
__global__ void checksum_kernel(Round r) {
  __shared__ Crc32LaneTables crc;
  block_build_crc32_lane_tables(crc);
  const unsigned lane = threadIdx.x % kWarpSize;
  const uint64_t first = (uint64_t{blockIdx.x} * kWarps + threadIdx.x / kWarpSize) * kChecksumPiece;
  for (size_t i = blockIdx.y; i < r.n; i += gridDim.y) {
    InflateBpChunk& c = *slot_of(r, i).chunk;
    if (!c.parallel || !c.wrapped || first >= c.output_size) continue;  // uniform over the warp
    const auto* out = reinterpret_cast<const unsigned char*>(r.batch.outputs[r.first + i]);
    const InflateBpChecksumPart part = warp_inflate_bp_checksum_part(
        out, c, first, umin(c.output_size, first + kChecksumPiece), crc, lane);
    if (lane != 0) continue;
    if (c.gzip) {
      atomicXor(&c.crc, part.crc);
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(&c.adler_a), part.adler_a);
      atomicAdd(reinterpret_cast<unsigned long long*>(&c.adler_b), part.adler_b);
    }
  }
}

/// Step 6's end, a thread per chunk: the trailer against the checksums, and the chunk's status.
__global__ void finish_kernel(Round r, uint32_t* handled) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= r.n) return;
  const size_t chunk = r.first + i;
  const InflateBpChunk& c = *slot_of(r, i).chunk;
  if (!c.parallel || !inflate_bp_checksums_hold(input_of(r, chunk), r.verify, c)) return;
  r.batch.statuses[chunk] = DeviceChunkStatus::ok;
  r.batch.output_sizes[chunk] = c.output_size;
  handled[chunk] = 1;
}

}  // namespace

size_t inflate_bp_temp_bytes(size_t count, uint64_t max_output, uint64_t min_capacity) {
  if (count == 0 || max_output < min_capacity) return 0;
  const InflateBpLayout layout = inflate_bp_layout(max_output);
  const size_t slots = round_slots(count, layout);
  return align256(count * sizeof(uint32_t)) + align256((slots + 1) * sizeof(uint32_t)) +
         slots * layout.bytes + list_bytes(slots, layout);
}

const uint32_t* inflate_bp_decode_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper,
                                        bool verify, uint64_t max_output, uint64_t min_capacity,
                                        void* temp, Stream stream) {
  if (batch.count == 0 || temp == nullptr || max_output < min_capacity) return nullptr;
  const cudaStream_t cs = to_cuda(stream.native());
  auto* base = static_cast<unsigned char*>(temp);
  auto* handled = reinterpret_cast<uint32_t*>(base);
  const InflateBpLayout layout = inflate_bp_layout(max_output);
  const size_t slots = round_slots(batch.count, layout);
  auto* segment_first = reinterpret_cast<uint32_t*>(base + align256(batch.count * 4));
  unsigned char* slot_base =
      reinterpret_cast<unsigned char*>(segment_first) + align256((slots + 1) * sizeof(uint32_t));
  Round r{batch,         wrapper,   verify,
          layout,        slot_base, reinterpret_cast<uint64_t*>(slot_base + slots * layout.bytes),
          segment_first, 0,         0,
          min_capacity};
  constexpr int kShared = kSegmentWarps * sizeof(InflateWorkspace);
  for (const void* kernel : {reinterpret_cast<const void*>(segment_kernel<InflateBpPass::decode>),
                             reinterpret_cast<const void*>(segment_kernel<InflateBpPass::count>),
                             reinterpret_cast<const void*>(segment_kernel<InflateBpPass::write>)}) {
    CUZARR_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  }
  constexpr unsigned kThreads = kWarps * kWarpSize;
  for (size_t first = 0; first < batch.count; first += slots) {
    r.first = first;
    r.n = static_cast<uint32_t>(std::min(slots, batch.count - first));
    const unsigned chunk_blocks = (r.n + 127) / 128;
    // At most this many segments; the warps past the round's count return at once.
    const uint64_t segments = uint64_t{r.n} * r.layout.max_segments;
    const auto search_blocks = static_cast<unsigned>((segments + kWarps - 1) / kWarps);
    const auto segment_blocks =
        static_cast<unsigned>((segments + kSegmentWarps - 1) / kSegmentWarps);
    constexpr unsigned kSegmentThreads = kSegmentWarps * kWarpSize;
    plan_kernel<<<chunk_blocks, 128, 0, cs>>>(r, handled);
    number_kernel<<<1, kWarpSize, 0, cs>>>(r);
    search_kernel<<<search_blocks, kThreads, 0, cs>>>(r);
    segment_kernel<InflateBpPass::decode><<<segment_blocks, kSegmentThreads, kShared, cs>>>(r);
    scan_kernel<<<chunk_blocks, 128, 0, cs>>>(r);
    // Two-pass chunks only (a segment outgrew its region); the others return at once.
    segment_kernel<InflateBpPass::count><<<segment_blocks, kSegmentThreads, kShared, cs>>>(r);
    scan_kernel<<<chunk_blocks, 128, 0, cs>>>(r);
    segment_kernel<InflateBpPass::write><<<segment_blocks, kSegmentThreads, kShared, cs>>>(r);
    const dim3 resolve_grid(static_cast<unsigned>((max_output + kResolveTile - 1) / kResolveTile),
                            std::min<uint32_t>(r.n, 65535));
    resolve_kernel<<<resolve_grid, kThreads, 0, cs>>>(r);
    if (verify) {
      const uint64_t per_block = kWarps * kChecksumPiece;
      const dim3 checksum_grid(static_cast<unsigned>((max_output + per_block - 1) / per_block),
                               std::min<uint32_t>(r.n, 65535));
      checksum_kernel<<<checksum_grid, kThreads, 0, cs>>>(r);
    }
    finish_kernel<<<chunk_blocks, 128, 0, cs>>>(r, handled);
    CUZARR_CUDA_CHECK(cudaGetLastError());
  }
  return handled;
}

}  // namespace cuzarr::gpu::detail
