#include <algorithm>

#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/crc32c_lanes.hpp"
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
constexpr uint64_t kStepBytes = kCrc32cWideStepBytes;  // one 16-byte word per lane per step
static_assert(kStepBytes == kCrc32cLaneBytes * kWarpSize);

// Per block shared tables: slicing-by-16, multiplication of a register by x^(8 (kStepBytes - 16))
// (crc32c_lanes.hpp), and x^(8 * 2^k) for shifts by any length. Blocks stay resident and loop over
// the work, so each builds its tables once per launch.
struct SharedTables {
  Crc32cWideTables wide;
  uint32_t pow2[64];
};

__device__ void build_tables(SharedTables& t, const Crc32cPowers& powers) {
  for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kCrc32cPolynomial : c >> 1;
    t.wide.table[0][b] = c;
  }
  if (threadIdx.x < 64) t.pow2[threadIdx.x] = powers.pow2[threadIdx.x];
  // x^(8 (kStepBytes - 16)) from the powers of its set bits.
  uint32_t step_factor = 1u << 31;
  for (int k = 0; k < 64; ++k) {
    if ((kStepBytes - 16) >> k & 1u) step_factor = crc32c_multiply(step_factor, powers.pow2[k]);
  }
  __syncthreads();
  for (uint32_t x = threadIdx.x; x < 4 * 256; x += blockDim.x) {
    t.wide.step[x / 256][x % 256] = crc32c_multiply((x % 256) << (8 * (x / 256)), step_factor);
  }
  for (int k = 1; k < 16; ++k) {
    for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x) {
      t.wide.table[k][b] =
          (t.wide.table[k - 1][b] >> 8) ^ t.wide.table[0][t.wide.table[k - 1][b] & 0xFFu];
    }
    __syncthreads();
  }
}

__device__ inline uint32_t shift(const SharedTables& t, uint32_t r, uint64_t n) {
  return crc32c_shift_by_powers(r, n, t.pow2);
}

// The little-endian 32-bit word `index` of the 4-aligned words at `base` (base + skew = data):
// an aligned load when all its bytes lie in data[0, n), else the bytes that do (zeros elsewhere),
// so no byte outside the chunk is read.
__device__ inline uint32_t load_word_within(const uint32_t* base, unsigned skew,
                                            const unsigned char* data, uint64_t n, uint64_t index) {
  const int64_t begin = static_cast<int64_t>(4 * index) - static_cast<int64_t>(skew);
  if (begin >= 0 && static_cast<uint64_t>(begin) + 4 <= n) return base[index];
  uint32_t w = 0;
  for (int b = 0; b < 4; ++b) {
    const int64_t at = begin + b;
    if (at >= 0 && static_cast<uint64_t>(at) < n) w |= uint32_t{data[at]} << (8 * b);
  }
  return w;
}

// The 16 bytes data[offset, offset + 16) (inside data[0, n)), data at any address.
__device__ inline uint4 load16_any_alignment(const uint32_t* base, unsigned skew,
                                             const unsigned char* data, uint64_t n,
                                             uint64_t offset) {
  const uint64_t first = offset / 4;  // offset is a multiple of 16
  if (skew == 0) return make_uint4(base[first], base[first + 1], base[first + 2], base[first + 3]);
  uint32_t w[5];
  for (int k = 0; k < 5; ++k) w[k] = load_word_within(base, skew, data, n, first + k);
  const unsigned shift = 8 * skew;
  return make_uint4(__funnelshift_r(w[0], w[1], shift), __funnelshift_r(w[1], w[2], shift),
                    __funnelshift_r(w[2], w[3], shift), __funnelshift_r(w[3], w[4], shift));
}

// Stores the 16 bytes `word` at `dst`, whose address is `skew` mod 16.
__device__ inline void store16_any_alignment(unsigned char* dst, unsigned skew, uint4 word) {
  if (skew == 0) {
    *reinterpret_cast<uint4*>(dst) = word;
  } else if (skew % 4 == 0) {
    auto* d = reinterpret_cast<uint32_t*>(dst);
    d[0] = word.x;
    d[1] = word.y;
    d[2] = word.z;
    d[3] = word.w;
  } else {
    store_le32(dst, word.x);
    store_le32(dst + 4, word.y);
    store_le32(dst + 8, word.z);
    store_le32(dst + 12, word.w);
  }
}

// XOR-accumulates into *acc the raw CRC contribution of data[0, n) (shifted to the end of the
// n bytes), computed by the warps [warp, warp + warps); copies the bytes to `copy` when given.
__device__ void accumulate(const SharedTables& t, const unsigned char* data, uint64_t n,
                           unsigned char* copy, uint64_t warp, uint64_t warps, unsigned lane,
                           uint32_t* acc) {
  const Crc32cWarpRange range = crc32c_wide_warp_range(n, warp, warps);
  const uint64_t first = range.first, last = range.last;
  const bool aligned = reinterpret_cast<uintptr_t>(data) % 16 == 0 &&
                       (copy == nullptr || reinterpret_cast<uintptr_t>(copy) % 16 == 0);
  uint32_t r = 0;
  if (aligned) {
    // Two words in flight per lane: the next step's load is issued before this step's lookups.
    const auto* words = reinterpret_cast<const uint4*>(data);
    auto* out = reinterpret_cast<uint4*>(copy);
    uint4 next = first < last ? words[first * kWarpSize + lane] : make_uint4(0, 0, 0, 0);
    for (uint64_t s = first; s < last; ++s) {
      const uint4 word = next;
      if (s + 1 < last) next = words[(s + 1) * kWarpSize + lane];
      if (copy) out[s * kWarpSize + lane] = word;
      // r * x^(8 kStepBytes) xor f(0, word) = f(r * x^(8 (kStepBytes - 16)), word).
      r = crc32c_update16(t.wide.table, s == first ? 0u : crc32c_times_wide_step(t.wide.step, r),
                          word.x, word.y, word.z, word.w);
    }
  } else {
    // Inputs at any address: 4-byte loads aligned down, shifted into place (the pipeline's staged
    // inputs are packed back to back, so most chunks start at an odd address).
    const auto in_addr = reinterpret_cast<uintptr_t>(data);
    const auto* base = reinterpret_cast<const uint32_t*>(in_addr & ~uintptr_t{3});
    const unsigned skew = static_cast<unsigned>(in_addr & 3u);
    const unsigned copy_skew = static_cast<unsigned>(reinterpret_cast<uintptr_t>(copy) & 15u);
    for (uint64_t s = first; s < last; ++s) {
      const uint64_t offset = s * kStepBytes + kCrc32cLaneBytes * lane;
      const uint4 word = load16_any_alignment(base, skew, data, n, offset);
      if (copy) store16_any_alignment(copy + offset, copy_skew, word);
      r = crc32c_update16(t.wide.table, s == first ? 0u : crc32c_times_wide_step(t.wide.step, r),
                          word.x, word.y, word.z, word.w);
    }
  }
  uint32_t contribution = last > first ? shift(t, r, crc32c_wide_lane_shift(n, last, lane)) : 0u;
  if (range.owns_tail && lane == 0) {
    const uint64_t begin = n / kStepBytes * kStepBytes;
    contribution ^= crc32c_update(0, data + begin, n - begin, t.wide.table);
    if (copy) {
      for (uint64_t b = begin; b < n; ++b) copy[b] = data[b];
    }
  }
  for (int d = kWarpSize / 2; d > 0; d /= 2)
    contribution ^= __shfl_xor_sync(kFullMask, contribution, d);
  if (lane == 0 && contribution != 0) atomicXor(acc, contribution);
}

enum class Mode { compute, decode, encode };

// Work item w (w < count * parts) is part w % parts of chunk w / parts; resident blocks take the
// items blockIdx.x, blockIdx.x + gridDim.x, ...
template <Mode kMode>
__global__ void __launch_bounds__(kThreads)
    crc_partial_kernel(const std::byte* const* inputs, const uint64_t* input_sizes,
                       std::byte* const* outputs, const uint64_t* capacities, uint32_t* acc,
                       size_t count, uint32_t parts, Crc32cPowers powers) {
  __shared__ SharedTables tables;
  build_tables(tables, powers);
  __syncthreads();
  const uint64_t items = uint64_t{count} * parts;
  for (uint64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const size_t chunk = item / parts;
    const auto part = static_cast<uint32_t>(item % parts);
    uint64_t n = input_sizes[chunk];
    unsigned char* copy = nullptr;
    if (kMode == Mode::decode) {
      if (n < 4 || capacities[chunk] < n - 4) continue;
      n -= 4;
    }
    if (kMode == Mode::encode && capacities[chunk] < n + 4) continue;
    if (kMode != Mode::compute) copy = reinterpret_cast<unsigned char*>(outputs[chunk]);
    accumulate(tables, reinterpret_cast<const unsigned char*>(inputs[chunk]), n, copy,
               uint64_t{part} * kWarps + threadIdx.x / kWarpSize, uint64_t{parts} * kWarps,
               threadIdx.x % kWarpSize, acc + chunk);
  }
}

// The launch shape of the partial kernel: as many blocks as stay resident on the device (each
// builds its tables once), and enough parts per chunk for about two work items per block.
struct Shape {
  unsigned blocks;
  uint32_t parts;
};

template <Mode kMode>
Shape partial_shape(size_t count) {
  const uint64_t resident = detail::resident_blocks(crc_partial_kernel<kMode>, kThreads);
  const uint64_t parts = std::clamp<uint64_t>((2 * resident + count - 1) / count, 1, 4096);
  return {static_cast<unsigned>(std::min<uint64_t>(resident, count * parts)),
          static_cast<uint32_t>(parts)};
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
  const Shape shape = partial_shape<kMode>(batch.count);
  crc_partial_kernel<kMode><<<shape.blocks, kThreads, 0, s>>>(
      batch.inputs, batch.input_sizes, batch.outputs, batch.output_capacities, acc, batch.count,
      shape.parts, make_crc32c_powers());
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
  const Shape shape = partial_shape<Mode::compute>(count);
  crc_partial_kernel<Mode::compute><<<shape.blocks, kThreads, 0, s>>>(
      inputs, input_sizes, nullptr, nullptr, crcs, count, shape.parts, make_crc32c_powers());
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
