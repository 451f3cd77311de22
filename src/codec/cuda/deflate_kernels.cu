#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "codec/cuda/inflate_sequences.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

static_assert(kInflateBatchMatches == kWarpSize, "phase 2 gives each lane one match");

/// Shared memory of one warp: its decoding tables and the batch it writes.
struct WarpShared {
  InflateWorkspace workspace;
  InflateBatch batch;
};
/// Shared memory of a thread block of kWarps warps (8 KiB + 7.8 KiB per warp: dynamic shared
/// memory).
template <int kWarps>
struct BlockShared {
  Crc32Tables crc;
  WarpShared warps[kWarps];
};

__device__ inline uint64_t broadcast64(uint64_t v) { return __shfl_sync(kFullMask, v, 0); }

/// The warp writes a batch in the phases of inflate_sequences.hpp: literals, the stored block and
/// the independent matches (one per lane) at once, then the dependent matches in order, each
/// copied by the whole warp (an overlapping one repeats the `distance` bytes before it, so every
/// byte is read from output written before the match started and no lane waits for another).
__device__ inline void warp_write_batch(const InflateBatch& b, const unsigned char* in,
                                        unsigned char* out, unsigned lane) {
  unsigned char* base = out + b.start;
  for (uint32_t k = lane; k < b.literal_count; k += kWarpSize)
    base[b.literal_offsets[k]] = b.literals[k];
  if (b.stored_length > 0)
    detail::cooperative_copy(base + b.stored_offset, in + b.stored_in, b.stored_length, lane,
                             kWarpSize);
  if (lane < b.match_count && inflate_match_independent(b, lane))
    inflate_copy_match_serial(b, lane, out);
  __syncwarp();
  for (uint32_t m = 0; m < b.match_count; ++m) {
    if (inflate_match_independent(b, m)) continue;
    unsigned char* dst = base + b.match_offset[m];
    const uint32_t distance = b.match_distance[m], length = b.match_length[m];
    const unsigned char* src = dst - distance;
    if (distance >= length) {
      for (uint32_t t = lane; t < length; t += kWarpSize) dst[t] = src[t];
    } else {
      for (uint32_t t = lane; t < length; t += kWarpSize) dst[t] = src[t % distance];
    }
    __syncwarp();
  }
}

/// The engine of inflate_wrapped for a warp: every lane calls every member with the same
/// arguments and gets the same result.
struct WarpInflateEngine {
  WarpShared* shared;
  const uint32_t (*crc_table)[256];
  unsigned lane;

  __device__ InflateResult deflate(const unsigned char* in, uint64_t size, uint64_t start,
                                   unsigned char* out, uint64_t capacity, uint64_t op) {
    InflateStream s;
    if (lane == 0) inflate_begin(s, shared->workspace, in, size, start, op);
    for (;;) {
      // Lane 0 decodes a batch with every check; the warp writes it.
      DeviceChunkStatus status = DeviceChunkStatus::ok;
      if (lane == 0) status = inflate_fill_batch(s, shared->workspace, capacity, shared->batch);
      status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
      if (status != DeviceChunkStatus::ok) {
        return {status, broadcast64(s.op), broadcast64(s.bits.consumed_bytes())};
      }
      __syncwarp();  // the batch is visible to the warp
      warp_write_batch(shared->batch, in, out, lane);
      const bool end = shared->batch.end_of_stream;
      __syncwarp();  // the output is visible, and lane 0 may refill the batch
      if (end) return {DeviceChunkStatus::ok, broadcast64(s.op), broadcast64(s.bits.pos)};
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

template <int kWarps>
__global__ void __launch_bounds__(kWarps* kWarpSize)
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
  WarpInflateEngine engine{&shared.warps[warp], shared.crc.table, lane};
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
