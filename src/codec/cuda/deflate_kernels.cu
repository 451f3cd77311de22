#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

constexpr int kWarps = 4;  // chunks per thread block, each with its InflateWorkspace in shared
                           // memory (4 x 8.3 KiB + 8 KiB of CRC-32 tables)

__device__ inline uint64_t broadcast64(uint64_t v) { return __shfl_sync(kFullMask, v, 0); }

/// The warp executes a step: a stored block's bytes from the input, or a match (an overlapping
/// one repeats the `distance` bytes before it, so every byte is read from output written before
/// the match started and no lane waits for another).
__device__ inline void warp_execute(const InflateStep& step, const unsigned char* in,
                                    unsigned char* out, unsigned lane) {
  unsigned char* dst = out + step.out_pos;
  if (step.distance == 0) {
    detail::cooperative_copy(dst, in + step.in_pos, step.length, lane, kWarpSize);
    return;
  }
  const unsigned char* src = dst - step.distance;
  if (step.distance >= step.length) {
    for (uint64_t t = lane; t < step.length; t += kWarpSize) dst[t] = src[t];
  } else {
    for (uint64_t t = lane; t < step.length; t += kWarpSize) dst[t] = src[t % step.distance];
  }
}

/// The engine of inflate_wrapped for a warp: every lane calls every member with the same
/// arguments and gets the same result.
struct WarpInflateEngine {
  InflateWorkspace* workspace;
  const uint32_t (*crc_table)[256];
  unsigned lane;

  __device__ InflateResult deflate(const unsigned char* in, uint64_t size, uint64_t start,
                                   unsigned char* out, uint64_t capacity, uint64_t op) {
    InflateStream s;
    if (lane == 0) inflate_begin(s, *workspace, in, size, start, op);
    for (;;) {
      InflateStep step;
      DeviceChunkStatus status = DeviceChunkStatus::ok;
      // Lane 0 decodes (and writes the literals) up to the next copy, with every check.
      if (lane == 0) status = inflate_next(s, *workspace, out, capacity, step);
      status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
      if (status != DeviceChunkStatus::ok) {
        return {status, broadcast64(s.op), broadcast64(s.bits.consumed_bytes())};
      }
      if (__shfl_sync(kFullMask, static_cast<int>(step.end), 0) != 0) {
        return {DeviceChunkStatus::ok, broadcast64(s.op), broadcast64(s.bits.pos)};
      }
      step.out_pos = broadcast64(step.out_pos);
      step.length = broadcast64(step.length);
      step.in_pos = broadcast64(step.in_pos);
      step.distance = __shfl_sync(kFullMask, step.distance, 0);
      __syncwarp();  // lane 0's literals are visible to the lanes copying a match over them
      warp_execute(step, in, out, lane);
      __syncwarp();  // and the copy to lane 0's next literals / matches
    }
  }

  /// CRC-32 of n bytes: each lane takes a contiguous slice, the raw registers are shifted to the
  /// end and XOR-combined (crc32_table.hpp).
  __device__ uint32_t crc32(const unsigned char* p, uint64_t n) const {
    const uint64_t per_lane = (n + kWarpSize - 1) / kWarpSize;
    const uint64_t begin = per_lane * lane < n ? per_lane * lane : n;
    const uint64_t end = begin + per_lane < n ? begin + per_lane : n;
    uint32_t r = 0;
    if (end > begin) r = crc32_shift(crc32_update(0, p + begin, end - begin, crc_table), n - end);
    for (int d = kWarpSize / 2; d > 0; d /= 2) r ^= __shfl_xor_sync(kFullMask, r, d);
    return crc32_finish(r, n);
  }

  /// Adler-32 of n bytes from per-lane slices (adler32.hpp).
  __device__ uint32_t adler32(const unsigned char* p, uint64_t n) const {
    const uint64_t per_lane = (n + kWarpSize - 1) / kWarpSize;
    const uint64_t begin = per_lane * lane < n ? per_lane * lane : n;
    const uint64_t end = begin + per_lane < n ? begin + per_lane : n;
    const AdlerPiece piece = adler32_piece(p + begin, end - begin);
    uint32_t a = piece.s, b = adler32_b_contribution(piece, n - end);
    for (int d = kWarpSize / 2; d > 0; d /= 2) {
      a = (a + __shfl_xor_sync(kFullMask, a, d)) % kAdlerModulus;
      b = (b + __shfl_xor_sync(kFullMask, b, d)) % kAdlerModulus;
    }
    return adler32_finish(a, b, n);
  }
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

__global__ void __launch_bounds__(kWarps* kWarpSize)
    inflate_kernel(DeviceChunkBatch batch, DeflateWrapper wrapper, bool verify) {
  __shared__ InflateWorkspace workspaces[kWarps];
  __shared__ Crc32Tables crc_tables;
  const bool needs_crc =
      verify && wrapper != DeflateWrapper::raw && wrapper != DeflateWrapper::zlib;
  if (needs_crc) build_crc_tables(crc_tables);  // uniform over the block: barriers are safe
  const unsigned warp = threadIdx.x / kWarpSize;
  const size_t chunk = blockIdx.x * size_t{kWarps} + warp;
  if (chunk >= batch.count) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  WarpInflateEngine engine{&workspaces[warp], crc_tables.table, lane};
  const InflateResult r = inflate_wrapped(
      reinterpret_cast<const unsigned char*>(batch.inputs[chunk]), batch.input_sizes[chunk],
      reinterpret_cast<unsigned char*>(batch.outputs[chunk]), batch.output_capacities[chunk],
      wrapper, verify, engine);
  if (lane == 0) {
    batch.statuses[chunk] = r.status;
    batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
  }
}

}  // namespace

size_t inflate_temp_bytes(size_t) { return 0; }

void inflate_batch(const DeviceChunkBatch& batch, DeflateWrapper wrapper, bool verify_checksums,
                   void*, Stream stream) {
  if (batch.count == 0) return;
  const auto blocks = static_cast<unsigned>((batch.count + kWarps - 1) / kWarps);
  inflate_kernel<<<blocks, kWarps * kWarpSize, 0, detail::to_cuda(stream.native())>>>(
      batch, wrapper, verify_checksums);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzarr::gpu
