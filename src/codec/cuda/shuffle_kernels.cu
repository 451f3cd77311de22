#include "codec/cuda/bitshuffle_device.cuh"
#include "codec/cuda/shuffle_device.cuh"
#include "codec/cuda/shuffle_kernels.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kWarpSize;

constexpr int kThreads = 256;

// Blocks [i * parts, (i + 1) * parts) handle chunk i.
__device__ inline bool chunk_fits(const DeviceChunkBatch& batch, size_t chunk, uint32_t part) {
  const bool fits = batch.output_capacities[chunk] >= batch.input_sizes[chunk];
  if (part == 0 && threadIdx.x == 0) {
    batch.statuses[chunk] = fits ? DeviceChunkStatus::ok : DeviceChunkStatus::output_too_small;
    batch.output_sizes[chunk] = fits ? batch.input_sizes[chunk] : 0;
  }
  return fits;
}

template <bool kForward>
__global__ void __launch_bounds__(kThreads)
    shuffle_kernel(DeviceChunkBatch batch, uint32_t typesize, uint32_t parts) {
  __shared__ __align__(16) unsigned char tile[detail::kShuffleTileBytes];
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_fits(batch, chunk, part)) return;
  detail::block_shuffle<kForward>(reinterpret_cast<const unsigned char*>(batch.inputs[chunk]),
                                  reinterpret_cast<unsigned char*>(batch.outputs[chunk]),
                                  batch.input_sizes[chunk], typesize, part, parts, tile);
}

template <bool kForward>
__global__ void __launch_bounds__(kThreads)
    bitshuffle_kernel(DeviceChunkBatch batch, uint32_t typesize, uint32_t parts) {
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_fits(batch, chunk, part)) return;
  constexpr uint32_t kWarps = kThreads / kWarpSize;
  detail::warps_bitshuffle<kForward>(reinterpret_cast<const unsigned char*>(batch.inputs[chunk]),
                                     reinterpret_cast<unsigned char*>(batch.outputs[chunk]),
                                     batch.input_sizes[chunk], typesize,
                                     uint64_t{part} * kWarps + threadIdx.x / kWarpSize,
                                     uint64_t{parts} * kWarps, threadIdx.x % kWarpSize);
}

// Element sizes 1, 2, 4 and 8: the staged warp steps of bitshuffle_device.cuh (4 warps per block,
// each with its shared staging area); misaligned element sides take the generic path.
constexpr int kStagedThreads = 128;
constexpr uint32_t kStagedWarps = kStagedThreads / kWarpSize;

template <uint32_t TS, bool kForward>
__global__ void __launch_bounds__(kStagedThreads)
    bitshuffle_staged_kernel(DeviceChunkBatch batch, uint32_t parts) {
  __shared__ uint32_t stage[kStagedWarps][bitshuffle_stage_words<TS>()];
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_fits(batch, chunk, part)) return;
  const auto* src = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* dst = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t size = batch.input_sizes[chunk];
  const unsigned warp_in_block = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const uint64_t warp = uint64_t{part} * kStagedWarps + warp_in_block;
  const uint64_t warps = uint64_t{parts} * kStagedWarps;
  if (bitshuffle_transposes(size, TS) && detail::bitshuffle_staged_applies(kForward ? src : dst)) {
    detail::warps_bitshuffle_staged<TS, kForward>(src, dst, size, warp, warps, lane,
                                                  stage[warp_in_block]);
  } else {
    detail::warps_bitshuffle<kForward>(src, dst, size, TS, warp, warps, lane);
  }
}

template <bool kForward>
void launch_bitshuffle(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  const unsigned grid = detail::grid_for(batch.count, parts);
  const cudaStream_t s = detail::to_cuda(stream.native());
  switch (typesize) {
    case 1:
      bitshuffle_staged_kernel<1, kForward><<<grid, kStagedThreads, 0, s>>>(batch, parts);
      break;
    case 2:
      bitshuffle_staged_kernel<2, kForward><<<grid, kStagedThreads, 0, s>>>(batch, parts);
      break;
    case 4:
      bitshuffle_staged_kernel<4, kForward><<<grid, kStagedThreads, 0, s>>>(batch, parts);
      break;
    case 8:
      bitshuffle_staged_kernel<8, kForward><<<grid, kStagedThreads, 0, s>>>(batch, parts);
      break;
    default:
      bitshuffle_kernel<kForward><<<grid, kThreads, 0, s>>>(batch, typesize, parts);
      break;
  }
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

template <class Kernel>
void launch(Kernel kernel, const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  kernel<<<detail::grid_for(batch.count, parts), kThreads, 0, detail::to_cuda(stream.native())>>>(
      batch, typesize, parts);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void shuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  launch(shuffle_kernel<true>, batch, typesize, stream);
}
void unshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  launch(shuffle_kernel<false>, batch, typesize, stream);
}
void bitshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  launch_bitshuffle<true>(batch, typesize, stream);
}
void bitunshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  launch_bitshuffle<false>(batch, typesize, stream);
}

}  // namespace cuzarr::gpu
