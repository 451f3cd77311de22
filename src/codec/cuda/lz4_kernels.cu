#include <algorithm>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kWarpSize;

constexpr int kDecodeWarps = 4;  // warps (chunks) per thread block
constexpr int kEncodeThreads = 64;
constexpr size_t kEncodeWorkers = 8192;  // encoder threads at most, each with its hash table
constexpr uint64_t kLz4MaxInputSize = 0x7E000000;

template <bool kNumcodecs>
__global__ void __launch_bounds__(kDecodeWarps* kWarpSize)
    lz4_decode_kernel(DeviceChunkBatch batch) {
  const size_t chunk = blockIdx.x * size_t{kDecodeWarps} + threadIdx.x / kWarpSize;
  if (chunk >= batch.count) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  uint64_t in_size = batch.input_sizes[chunk];
  uint64_t capacity = batch.output_capacities[chunk];
  uint64_t expected = 0;
  DecodeResult r;
  if (kNumcodecs) {
    if (in_size < kNumcodecsLz4HeaderSize) {
      r.status = DeviceChunkStatus::corrupt_input;
    } else {
      expected = load_le32(in);
      if (expected > capacity) r.status = DeviceChunkStatus::output_too_small;
      in += kNumcodecsLz4HeaderSize;
      in_size -= kNumcodecsLz4HeaderSize;
      capacity = expected;
    }
    if (r.status == DeviceChunkStatus::ok && expected > 0) {
      r = detail::warp_lz4_decode(in, in_size, out, capacity, lane);
      if (r.status == DeviceChunkStatus::output_too_small ||
          (r.status == DeviceChunkStatus::ok && r.size != expected)) {
        r.status = DeviceChunkStatus::corrupt_input;  // the block disagrees with its header
      }
    }
  } else {
    r = detail::warp_lz4_decode(in, in_size, out, capacity, lane);
  }
  if (lane == 0) {
    batch.statuses[chunk] = r.status;
    batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
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

template <bool kNumcodecs>
void decode(const DeviceChunkBatch& batch, Stream stream) {
  if (batch.count == 0) return;
  const auto blocks = static_cast<unsigned>((batch.count + kDecodeWarps - 1) / kDecodeWarps);
  lz4_decode_kernel<kNumcodecs>
      <<<blocks, kDecodeWarps * kWarpSize, 0, detail::to_cuda(stream.native())>>>(batch);
  CUZARR_CUDA_CHECK(cudaGetLastError());
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

}  // namespace

void lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream) {
  decode<false>(batch, stream);
}
void numcodecs_lz4_decode_batch(const DeviceChunkBatch& batch, Stream stream) {
  decode<true>(batch, stream);
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

}  // namespace cuzarr::gpu
