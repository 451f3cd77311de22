#include <algorithm>

#include "codec/cuda/inflate_block_parallel.cuh"
#include "codec/cuda/inflate_block_parallel_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {
namespace {

/// Warps per thread block of the segment passes; with a decoding workspace each (about 9.6 KiB
/// of shared memory), two blocks fit an SM.
constexpr int kWarps = 8;
/// Slots are used in rounds of at most this many bytes.
constexpr uint64_t kMaxSlotBytes = uint64_t{4} << 30;

uint64_t align256(uint64_t n) { return (n + 255) / 256 * 256; }

/// One launch round: chunks [first, first + n) in slots at `slots`; the write pass's warps each
/// have kInflateRoundMatches entries of `lists`.
struct Round {
  DeviceChunkBatch batch;
  DeflateWrapper wrapper;
  bool verify;
  InflateBpLayout layout;
  unsigned char* slots;
  uint64_t* lists;
  size_t first;
  uint32_t n;
  uint64_t min_capacity;
};

/// Bytes of the write pass's match lists for `slots` chunks.
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

/// The warp's segment: chunk i of the round, segment k; false when there is none.
__device__ bool warp_segment(const Round& r, size_t& i, uint32_t& k) {
  const size_t w = (blockIdx.x * size_t{blockDim.x} + threadIdx.x) / kWarpSize;
  i = w / r.layout.max_segments;
  k = static_cast<uint32_t>(w % r.layout.max_segments);
  if (i >= r.n) return false;
  const InflateBpChunk& c = *slot_of(r, i).chunk;
  return c.parallel && k < c.segments;
}

__global__ void search_kernel(Round r) {
  size_t i = 0;
  uint32_t k = 0;
  if (!warp_segment(r, i, k) || k == 0) return;
  const size_t chunk = r.first + i;
  warp_inflate_bp_search(input_of(r, chunk), r.batch.input_sizes[chunk], slot_of(r, i), k,
                         threadIdx.x % kWarpSize);
}

/// Count (kWrite false) or write (true), a warp per segment.
template <bool kWrite>
__global__ void __launch_bounds__(kWarps* kWarpSize, 2) segment_kernel(Round r) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto* workspaces = reinterpret_cast<InflateWorkspace*>(shared_bytes);
  size_t i = 0;
  uint32_t k = 0;
  if (!warp_segment(r, i, k)) return;
  const size_t chunk = r.first + i;
  const unsigned lane = threadIdx.x % kWarpSize;
  InflateWorkspace& ws = workspaces[threadIdx.x / kWarpSize];
  const auto* in = input_of(r, chunk);
  const uint64_t size = r.batch.input_sizes[chunk];
  if (kWrite) {
    uint64_t* list = r.lists + (i * r.layout.max_segments + k) * kInflateRoundMatches;
    warp_inflate_bp_write(in, size, r.batch.output_capacities[chunk], r.layout, slot_of(r, i), k,
                          ws, list, lane);
  } else {
    warp_inflate_bp_count(in, size, r.layout, slot_of(r, i), k, ws, lane);
  }
}

__global__ void scan_kernel(Round r) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i >= r.n) return;
  const size_t chunk = r.first + i;
  inflate_bp_scan(r.batch.input_sizes[chunk], r.batch.output_capacities[chunk], slot_of(r, i));
}

/// A thread block per chunk: resolves the symbols, then warp 0 checks the checksums.
__global__ void finish_kernel(Round r, uint32_t* handled) {
  __shared__ Crc32Tables crc;
  if (r.verify) block_build_crc32_tables(crc);  // uniform over the block: barriers are safe
  const size_t i = blockIdx.x;
  const size_t chunk = r.first + i;
  const InflateBpSlot slot = slot_of(r, i);
  if (!slot.chunk->parallel) return;  // uniform over the block
  auto* out = reinterpret_cast<unsigned char*>(r.batch.outputs[chunk]);
  const bool good = inflate_bp_resolve(out, slot, threadIdx.x, blockDim.x, [] { __syncthreads(); });
  if (!__syncthreads_and(good) || threadIdx.x >= kWarpSize) return;
  const unsigned lane = threadIdx.x;
  const bool done =
      warp_inflate_bp_checksums(input_of(r, chunk), out, r.verify, crc.table, slot, lane);
  if (lane == 0 && done) {
    r.batch.statuses[chunk] = DeviceChunkStatus::ok;
    r.batch.output_sizes[chunk] = slot.chunk->output_size;
    handled[chunk] = 1;
  }
}

}  // namespace

size_t inflate_bp_temp_bytes(size_t count, uint64_t max_output, uint64_t min_capacity) {
  if (count == 0 || max_output < min_capacity) return 0;
  const InflateBpLayout layout = inflate_bp_layout(max_output);
  const size_t slots = round_slots(count, layout);
  return align256(count * sizeof(uint32_t)) + slots * layout.bytes + list_bytes(slots, layout);
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
  unsigned char* slot_base = base + align256(batch.count * 4);
  Round r{batch,  wrapper,   verify,
          layout, slot_base, reinterpret_cast<uint64_t*>(slot_base + slots * layout.bytes),
          0,      0,         min_capacity};
  constexpr int kShared = kWarps * sizeof(InflateWorkspace);
  CUZARR_CUDA_CHECK(cudaFuncSetAttribute(segment_kernel<false>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  CUZARR_CUDA_CHECK(cudaFuncSetAttribute(segment_kernel<true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  constexpr unsigned kThreads = kWarps * kWarpSize;
  for (size_t first = 0; first < batch.count; first += slots) {
    r.first = first;
    r.n = static_cast<uint32_t>(std::min(slots, batch.count - first));
    const unsigned chunk_blocks = (r.n + 127) / 128;
    const auto segment_blocks =
        static_cast<unsigned>((uint64_t{r.n} * r.layout.max_segments + kWarps - 1) / kWarps);
    plan_kernel<<<chunk_blocks, 128, 0, cs>>>(r, handled);
    search_kernel<<<segment_blocks, kThreads, 0, cs>>>(r);
    segment_kernel<false><<<segment_blocks, kThreads, kShared, cs>>>(r);
    scan_kernel<<<chunk_blocks, 128, 0, cs>>>(r);
    segment_kernel<true><<<segment_blocks, kThreads, kShared, cs>>>(r);
    finish_kernel<<<r.n, kThreads, 0, cs>>>(r, handled);
    CUZARR_CUDA_CHECK(cudaGetLastError());
  }
  return handled;
}

}  // namespace cuzarr::gpu::detail
