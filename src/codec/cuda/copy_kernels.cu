#include "codec/cuda/copy_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

constexpr int kThreads = 256;

// Grid: chunk x part; each block copies its share of the chunk.
__global__ void __launch_bounds__(kThreads) copy_kernel(DeviceChunkBatch batch, uint32_t parts) {
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  const uint64_t size = batch.input_sizes[chunk];
  const bool fits = size <= batch.output_capacities[chunk];
  if (part == 0 && threadIdx.x == 0) {
    batch.statuses[chunk] = fits ? DeviceChunkStatus::ok : DeviceChunkStatus::output_too_small;
    batch.output_sizes[chunk] = fits ? size : 0;
  }
  if (!fits) return;
  const uint64_t share = (size + parts - 1) / parts;
  const uint64_t begin = detail::umin(size, share * part);
  const uint64_t end = detail::umin(size, begin + share);
  detail::cooperative_copy(reinterpret_cast<unsigned char*>(batch.outputs[chunk]) + begin,
                           reinterpret_cast<const unsigned char*>(batch.inputs[chunk]) + begin,
                           end - begin, threadIdx.x, blockDim.x);
}

}  // namespace

void copy_batch(const DeviceChunkBatch& batch, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  copy_kernel<<<detail::grid_for(batch.count, parts), kThreads, 0,
                detail::to_cuda(stream.native())>>>(batch, parts);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzarr::gpu
