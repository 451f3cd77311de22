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
  launch(bitshuffle_kernel<true>, batch, typesize, stream);
}
void bitunshuffle_batch(const DeviceChunkBatch& batch, uint32_t typesize, Stream stream) {
  launch(bitshuffle_kernel<false>, batch, typesize, stream);
}

}  // namespace cuzarr::gpu
