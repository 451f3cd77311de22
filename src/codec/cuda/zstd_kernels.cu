#include <algorithm>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/zstd_frame_format.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

constexpr int kDecodeWarps = 4;           // warps per thread block
constexpr size_t kMaxDecodeWarps = 2048;  // decoding warps at most, each with its workspace

size_t decode_workers(size_t count) { return std::min(count, kMaxDecodeWarps); }

__device__ inline uint64_t broadcast64(uint64_t v) {
  return static_cast<uint64_t>(__shfl_sync(kFullMask, static_cast<unsigned long long>(v), 0));
}

/// One chunk, one warp: lane 0 produces the steps (all checks in ZstdFrameDecoder), lanes 0..3
/// decode the Huffman literal streams of a block, the warp executes the copies. All lanes return
/// the same result.
__device__ DecodeResult warp_zstd_decode(const unsigned char* in, uint64_t in_size,
                                         unsigned char* out, uint64_t capacity,
                                         ZstdWorkspace* workspace, bool verify, unsigned lane) {
  ZstdFrameDecoder decoder;
  if (lane == 0) decoder.init(in, in_size, out, capacity, workspace, verify);
  for (;;) {
    ZstdStep step{nullptr, 0, 0, 0, 0, 0};
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    bool done = false;
    if (lane == 0) status = decoder.next(step, done);
    __syncwarp();  // the literals lane 0 decoded into the workspace are visible to the warp
    status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
    done = __shfl_sync(kFullMask, static_cast<int>(done), 0) != 0;
    if (status != DeviceChunkStatus::ok) return {status, 0};
    if (done) return {DeviceChunkStatus::ok, broadcast64(decoder.op)};
    // Huffman literals: lanes 0..3 decode one stream each (lane 0 wrote their locations into the
    // workspace before the __syncwarp above).
    const unsigned streams = __shfl_sync(kFullMask, step.huffman_streams, 0);
    if (streams > 0) {
      DeviceChunkStatus h = DeviceChunkStatus::ok;
      if (lane < streams) h = zstd_decode_literal_stream(workspace->literals, lane);
      const bool failed = __any_sync(kFullMask, h != DeviceChunkStatus::ok);
      __syncwarp();  // the literals are visible to the whole warp
      if (failed) return {DeviceChunkStatus::corrupt_input, 0};
      continue;
    }
    const auto* literals = reinterpret_cast<const unsigned char*>(
        broadcast64(reinterpret_cast<uintptr_t>(step.literals)));
    CopyStep copy;
    copy.literal_start = 0;
    copy.literal_length = broadcast64(step.literal_length);
    copy.match_distance = broadcast64(step.match_distance);
    copy.match_length = broadcast64(step.match_length);
    const uint64_t op = broadcast64(step.op);
    // Ends with __syncwarp: the next step (and the checksum) see these bytes.
    detail::warp_execute_step(copy, literals, out, op, lane);
  }
}

__global__ void __launch_bounds__(kDecodeWarps* kWarpSize)
    zstd_decode_kernel(DeviceChunkBatch batch, ZstdWorkspace* workspaces, size_t workers,
                       bool verify) {
  const size_t worker = blockIdx.x * size_t{kDecodeWarps} + threadIdx.x / kWarpSize;
  if (worker >= workers) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  for (size_t chunk = worker; chunk < batch.count; chunk += workers) {
    const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
    auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
    const DecodeResult r =
        warp_zstd_decode(in, batch.input_sizes[chunk], out, batch.output_capacities[chunk],
                         workspaces + worker, verify, lane);
    if (lane == 0) {
      batch.statuses[chunk] = r.status;
      batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
    }
  }
}

}  // namespace

size_t zstd_decode_temp_bytes(size_t count) {
  return decode_workers(count) * sizeof(ZstdWorkspace);
}

void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, void* temp,
                       Stream stream) {
  if (batch.count == 0) return;
  const size_t workers = decode_workers(batch.count);
  const auto blocks = static_cast<unsigned>((workers + kDecodeWarps - 1) / kDecodeWarps);
  zstd_decode_kernel<<<blocks, kDecodeWarps * kWarpSize, 0, detail::to_cuda(stream.native())>>>(
      batch, static_cast<ZstdWorkspace*>(temp), workers, verify_checksum);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

void zstd_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  zstd_decode_batch(batch, true, temp, stream);
}

}  // namespace cuzarr::gpu
