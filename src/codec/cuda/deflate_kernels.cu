#include "codec/cuda/deflate_kernels.hpp"
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
  Crc32Tables crc;
  detail::InflateWarpShared warps[kWarps];
};

__device__ void build_crc_tables(Crc32Tables& t) {
  for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32Polynomial : c >> 1;
    t.table[0][b] = c;
  }
  __syncthreads();
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
      t.table[k][b] = (t.table[k - 1][b] >> 8) ^ t.table[0][t.table[k - 1][b] & 0xFFu];
    }
    __syncthreads();
  }
}

template <int kWarps>
__global__ void __launch_bounds__(kWarps* kWarpSize, 1)
    inflate_kernel(DeviceChunkBatch batch, DeflateWrapper wrapper, bool verify) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& shared = *reinterpret_cast<BlockShared<kWarps>*>(shared_bytes);
  const bool needs_crc =
      verify && wrapper != DeflateWrapper::raw && wrapper != DeflateWrapper::zlib;
  if (needs_crc) build_crc_tables(shared.crc);  // uniform over the block: barriers are safe
  const unsigned warp = threadIdx.x / kWarpSize;
  const size_t chunk = blockIdx.x * size_t{kWarps} + warp;
  if (chunk >= batch.count) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  detail::WarpInflateEngine engine{&shared.warps[warp], shared.crc.table, lane};
  const InflateResult r = inflate_wrapped(
      reinterpret_cast<const unsigned char*>(batch.inputs[chunk]), batch.input_sizes[chunk],
      reinterpret_cast<unsigned char*>(batch.outputs[chunk]), batch.output_capacities[chunk],
      wrapper, verify, engine);
  if (lane == 0) {
    batch.statuses[chunk] = r.status;
    batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
  }
}

template <int kWarps>
void launch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify, Stream stream) {
  constexpr int kSharedBytes = sizeof(BlockShared<kWarps>);
  CUZARR_CUDA_CHECK(cudaFuncSetAttribute(
      inflate_kernel<kWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  const auto blocks = static_cast<unsigned>((batch.count + kWarps - 1) / kWarps);
  inflate_kernel<kWarps>
      <<<blocks, kWarps * kWarpSize, kSharedBytes, detail::to_cuda(stream.native())>>>(
          batch, wrapper, verify);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

size_t inflate_temp_bytes(size_t) { return 0; }

void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify_checksums,
                   void*, Stream stream) {
  if (batch.count == 0) return;
  // Few chunks: one warp per thread block, so that they spread over the SMs; many: 8 warps per
  // block (about 70 KiB of shared memory, 3 blocks = 24 warps per SM on an H200).
  if (batch.count < 1024) {
    launch<1>(batch, wrapper, verify_checksums, stream);
  } else {
    launch<8>(batch, wrapper, verify_checksums, stream);
  }
}

}  // namespace cuzarr::gpu
