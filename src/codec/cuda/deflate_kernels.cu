#include <algorithm>

#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/inflate_block_parallel_kernels.hpp"
#include "codec/cuda/inflate_warp_decode.cuh"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

/// Shared memory of a thread block of kWarps warps: the CRC-32 tables, and per warp its decoding
/// tables and batch (dynamic shared memory).
template <int kWarps>
struct BlockShared {
  Crc32LaneTables crc;
  detail::InflateWarpShared warps[kWarps];
};

/// Decoding warps at most: each has kInflateRoundMatches entries of scratch for its match lists.
constexpr size_t kMaxInflateWarps = 4096;
constexpr size_t kWarpScratchBytes = detail::kInflateRoundMatches * sizeof(uint64_t);

size_t inflate_workers(size_t count) { return std::min(count, kMaxInflateWarps); }

/// Every warp takes the next chunk from `next_chunk` (zero at launch) when it is done with one.
/// Blocks of 8 warps are held to 128 registers, so that two fit an SM (as their shared memory
/// does).
template <int kWarps>
__global__ void __launch_bounds__(kWarps* kWarpSize, kWarps == 8 ? 2 : 1)
    inflate_kernel(DeviceChunkBatch batch, DeflateWrapper wrapper, bool verify, uint64_t* scratch,
                   size_t workers, unsigned long long* next_chunk, const uint32_t* handled) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& shared = *reinterpret_cast<BlockShared<kWarps>*>(shared_bytes);
  const bool needs_crc =
      verify && wrapper != DeflateWrapper::raw && wrapper != DeflateWrapper::zlib;
  if (needs_crc)
    block_build_crc32_lane_tables(shared.crc);  // uniform over the block: barriers are safe
  const unsigned warp = threadIdx.x / kWarpSize;
  const size_t worker = blockIdx.x * size_t{kWarps} + warp;
  if (worker >= workers) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  detail::WarpInflateEngine engine{&shared.warps[warp], &shared.crc,
                                   scratch + worker * detail::kInflateRoundMatches, lane};
  for (;;) {
    unsigned long long claimed = 0;
    if (lane == 0) claimed = atomicAdd(next_chunk, 1ull);
    const size_t chunk = __shfl_sync(kFullMask, claimed, 0);
    if (chunk >= batch.count) return;
    if (handled != nullptr && handled[chunk] != 0) continue;  // decoded block-parallel
    const InflateResult r = inflate_wrapped(
        reinterpret_cast<const unsigned char*>(batch.inputs[chunk]), batch.input_sizes[chunk],
        reinterpret_cast<unsigned char*>(batch.outputs[chunk]), batch.output_capacities[chunk],
        wrapper, verify, engine);
    if (lane == 0) {
      batch.statuses[chunk] = r.status;
      batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
    }
  }
}

/// The match scratch of the warps, then the chunk counter.
uint64_t scratch_bytes(size_t count) {
  return (inflate_workers(count) * kWarpScratchBytes + 255) / 256 * 256;
}

template <int kWarps>
void launch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify, void* temp,
            const uint32_t* handled, Stream stream) {
  constexpr int kSharedBytes = sizeof(BlockShared<kWarps>);
  CUZARR_CUDA_CHECK(cudaFuncSetAttribute(
      inflate_kernel<kWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  // At most one wave of warps: they take chunks until none are left.
  const size_t workers = std::min<size_t>(
      inflate_workers(batch.count),
      detail::resident_blocks(inflate_kernel<kWarps>, kWarps * kWarpSize, kSharedBytes) * kWarps);
  const auto blocks = static_cast<unsigned>((workers + kWarps - 1) / kWarps);
  auto* base = static_cast<unsigned char*>(temp);
  auto* next_chunk = reinterpret_cast<unsigned long long*>(base + scratch_bytes(batch.count));
  const cudaStream_t s = detail::to_cuda(stream.native());
  CUZARR_CUDA_CHECK(cudaMemsetAsync(next_chunk, 0, sizeof *next_chunk, s));
  inflate_kernel<kWarps><<<blocks, kWarps * kWarpSize, kSharedBytes, s>>>(
      batch, wrapper, verify, reinterpret_cast<uint64_t*>(base), workers, next_chunk, handled);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

size_t inflate_temp_bytes(size_t count, uint64_t max_output, uint64_t block_parallel_from) {
  if (count == 0) return 0;
  return scratch_bytes(count) + 256 +
         detail::inflate_bp_temp_bytes(count, max_output,
                                       inflate_block_parallel_from(count, block_parallel_from));
}

void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify_checksums,
                   uint64_t max_output, void* temp, Stream stream, uint64_t block_parallel_from) {
  if (batch.count == 0) return;
  // The block-parallel passes first, in the temp after the warps' scratch and counter.
  auto* bp_temp = static_cast<unsigned char*>(temp) + scratch_bytes(batch.count) + 256;
  const uint32_t* handled = detail::inflate_bp_decode_batch(
      batch, wrapper, verify_checksums, max_output,
      inflate_block_parallel_from(batch.count, block_parallel_from), bp_temp, stream);
  // Few chunks: one warp per thread block, so that they spread over the SMs; many: 8 warps per
  // block (about 104 KiB of shared memory, 2 blocks = 16 warps per SM on an H200).
  if (batch.count < 1024) {
    launch<1>(batch, wrapper, verify_checksums, temp, handled, stream);
  } else {
    launch<8>(batch, wrapper, verify_checksums, temp, handled, stream);
  }
}

}  // namespace cuzarr::gpu
