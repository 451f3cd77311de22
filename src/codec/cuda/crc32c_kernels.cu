#include <algorithm>

#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/crc32c_table.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/little_endian.hpp"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;
using detail::umin;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarpSize;
constexpr uint64_t kStepBytes = kCrc32cStepBytes;  // one 8-byte word per lane per step
static_assert(kStepBytes == 8 * kWarpSize);

// Per block shared tables: slicing-by-8, multiplication of a register by x^(8 (kStepBytes - 8))
// (one table per register byte), and x^(8 * 2^k) for shifts by any length.
struct SharedTables {
  uint32_t slice[8][256];
  uint32_t step[4][256];
  uint32_t pow2[64];
};

__device__ void build_tables(SharedTables& t, const Crc32cPowers& powers) {
  for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32cPolynomial : c >> 1;
    t.slice[0][b] = c;
  }
  if (threadIdx.x < 64) t.pow2[threadIdx.x] = powers.pow2[threadIdx.x];
  // x^(8 (kStepBytes - 8)) from the powers of its set bits.
  uint32_t step_factor = 1u << 31;
  for (int k = 0; k < 64; ++k) {
    if ((kStepBytes - 8) >> k & 1u) step_factor = crc32c_multiply(step_factor, powers.pow2[k]);
  }
  __syncthreads();
  for (uint32_t x = threadIdx.x; x < 4 * 256; x += blockDim.x) {
    t.step[x / 256][x % 256] = crc32c_multiply((x % 256) << (8 * (x / 256)), step_factor);
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
      t.slice[k][b] = (t.slice[k - 1][b] >> 8) ^ t.slice[0][t.slice[k - 1][b] & 0xFFu];
    }
    __syncthreads();
  }
}

__device__ inline uint32_t shift(const SharedTables& t, uint32_t r, uint64_t n) {
  return crc32c_shift_by_powers(r, n, t.pow2);
}

__device__ inline uint32_t update8(const SharedTables& t, uint32_t r, uint32_t lo, uint32_t hi) {
  lo ^= r;
  return t.slice[7][lo & 0xFF] ^ t.slice[6][(lo >> 8) & 0xFF] ^ t.slice[5][(lo >> 16) & 0xFF] ^
         t.slice[4][lo >> 24] ^ t.slice[3][hi & 0xFF] ^ t.slice[2][(hi >> 8) & 0xFF] ^
         t.slice[1][(hi >> 16) & 0xFF] ^ t.slice[0][hi >> 24];
}

__device__ inline uint32_t times_step(const SharedTables& t, uint32_t r) {
  return t.step[0][r & 0xFF] ^ t.step[1][(r >> 8) & 0xFF] ^ t.step[2][(r >> 16) & 0xFF] ^
         t.step[3][r >> 24];
}

// XOR-accumulates into *acc the raw CRC contribution of data[0, n) (shifted to the end of the
// n bytes), computed by the warps [warp, warp + warps); copies the bytes to `copy` when given.
__device__ void accumulate(const SharedTables& t, const unsigned char* data, uint64_t n,
                           unsigned char* copy, uint64_t warp, uint64_t warps, unsigned lane,
                           uint32_t* acc) {
  const Crc32cWarpRange range = crc32c_warp_range(n, warp, warps);
  const uint64_t first = range.first, last = range.last;
  const bool aligned = reinterpret_cast<uintptr_t>(data) % 8 == 0 &&
                       (copy == nullptr || reinterpret_cast<uintptr_t>(copy) % 8 == 0);
  uint32_t r = 0;
  for (uint64_t s = first; s < last; ++s) {
    const uint64_t offset = s * kStepBytes + 8 * lane;
    uint32_t lo, hi;
    if (aligned) {
      const uint2 word = *reinterpret_cast<const uint2*>(data + offset);
      lo = word.x;
      hi = word.y;
      if (copy) *reinterpret_cast<uint2*>(copy + offset) = word;
    } else {
      lo = load_le32(data + offset);
      hi = load_le32(data + offset + 4);
      if (copy) {
        for (int b = 0; b < 8; ++b) copy[offset + b] = data[offset + b];
      }
    }
    // r * x^(8 kStepBytes) xor f(0, word) = f(r * x^(8 (kStepBytes - 8)), word).
    r = update8(t, s == first ? 0u : times_step(t, r), lo, hi);
  }
  uint32_t contribution = last > first ? shift(t, r, crc32c_lane_shift(n, last, lane)) : 0u;
  if (range.owns_tail && lane == 0) {
    const uint64_t begin = n / kStepBytes * kStepBytes;
    contribution ^= crc32c_update(0, data + begin, n - begin, t.slice);
    if (copy) {
      for (uint64_t b = begin; b < n; ++b) copy[b] = data[b];
    }
  }
  for (int d = kWarpSize / 2; d > 0; d /= 2)
    contribution ^= __shfl_xor_sync(kFullMask, contribution, d);
  if (lane == 0 && contribution != 0) atomicXor(acc, contribution);
}

enum class Mode { compute, decode, encode };

template <Mode kMode>
__global__ void __launch_bounds__(kThreads)
    crc_partial_kernel(const std::byte* const* inputs, const uint64_t* input_sizes,
                       std::byte* const* outputs, const uint64_t* capacities, uint32_t* acc,
                       uint32_t parts, Crc32cPowers powers) {
  __shared__ SharedTables tables;
  build_tables(tables, powers);
  __syncthreads();
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  uint64_t n = input_sizes[chunk];
  unsigned char* copy = nullptr;
  if (kMode == Mode::decode) {
    if (n < 4 || capacities[chunk] < n - 4) return;
    n -= 4;
  }
  if (kMode == Mode::encode && capacities[chunk] < n + 4) return;
  if (kMode != Mode::compute) copy = reinterpret_cast<unsigned char*>(outputs[chunk]);
  accumulate(tables, reinterpret_cast<const unsigned char*>(inputs[chunk]), n, copy,
             uint64_t{part} * kWarps + threadIdx.x / kWarpSize, uint64_t{parts} * kWarps,
             threadIdx.x % kWarpSize, acc + chunk);
}

// crc = ~(~0 * x^(8n) xor acc).
__device__ inline uint32_t finish(uint32_t acc, uint64_t n) {
  return ~(crc32c_shift(~0u, n) ^ acc);
}

template <Mode kMode>
__global__ void crc_finish_kernel(DeviceChunkBatch batch, uint32_t* acc) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk >= batch.count) return;
  const uint64_t n = batch.input_sizes[chunk];
  const uint64_t capacity = batch.output_capacities[chunk];
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  uint64_t produced = 0;
  if (kMode == Mode::decode) {
    if (n < 4) {
      status = DeviceChunkStatus::corrupt_input;
    } else if (capacity < n - 4) {
      status = DeviceChunkStatus::output_too_small;
    } else {
      const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
      produced = n - 4;
      if (load_le32(in + n - 4) != finish(acc[chunk], n - 4))
        status = DeviceChunkStatus::checksum_mismatch;
    }
  } else {
    if (capacity < n + 4) {
      status = DeviceChunkStatus::output_too_small;
    } else {
      store_le32(out + n, finish(acc[chunk], n));
      produced = n + 4;
    }
  }
  batch.statuses[chunk] = status;
  batch.output_sizes[chunk] = produced;
}

__global__ void crc_compute_finish_kernel(const uint64_t* input_sizes, size_t count,
                                          uint32_t* crcs) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk < count) crcs[chunk] = finish(crcs[chunk], input_sizes[chunk]);
}

unsigned finish_blocks(size_t count) { return static_cast<unsigned>((count + 127) / 128); }

template <Mode kMode>
void run_codec(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  auto* acc = static_cast<uint32_t*>(temp);
  CUZARR_CUDA_CHECK(cudaMemsetAsync(acc, 0, batch.count * sizeof(uint32_t), s));
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  crc_partial_kernel<kMode><<<detail::grid_for(batch.count, parts), kThreads, 0, s>>>(
      batch.inputs, batch.input_sizes, batch.outputs, batch.output_capacities, acc, parts,
      make_crc32c_powers());
  CUZARR_CUDA_CHECK(cudaGetLastError());
  crc_finish_kernel<kMode><<<finish_blocks(batch.count), 128, 0, s>>>(batch, acc);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void crc32c_batch(const std::byte* const* inputs, const uint64_t* input_sizes, size_t count,
                  uint32_t* crcs, Stream stream) {
  if (count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  CUZARR_CUDA_CHECK(cudaMemsetAsync(crcs, 0, count * sizeof(uint32_t), s));
  const uint32_t parts = detail::parts_per_chunk(count);
  crc_partial_kernel<Mode::compute><<<detail::grid_for(count, parts), kThreads, 0, s>>>(
      inputs, input_sizes, nullptr, nullptr, crcs, parts, make_crc32c_powers());
  CUZARR_CUDA_CHECK(cudaGetLastError());
  crc_compute_finish_kernel<<<finish_blocks(count), 128, 0, s>>>(input_sizes, count, crcs);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

size_t crc32c_codec_temp_bytes(size_t count) { return count * sizeof(uint32_t); }

void crc32c_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  run_codec<Mode::decode>(batch, temp, stream);
}

void crc32c_encode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  run_codec<Mode::encode>(batch, temp, stream);
}

}  // namespace cuzarr::gpu
