#include <algorithm>
#include <type_traits>

#include "codec/cuda/delta_kernels.hpp"
#include "codec/cuda/delta_scan_parts.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;
using detail::umin;

constexpr int kThreads = 256;

// Checks chunk i's sizes; the first thread of part 0 records the status.
__device__ inline bool chunk_valid(const DeviceChunkBatch& batch, size_t chunk, uint32_t element,
                                   bool writer) {
  const uint64_t size = batch.input_sizes[chunk];
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  if (size % element != 0) {
    status = DeviceChunkStatus::corrupt_input;
  } else if (batch.output_capacities[chunk] < size) {
    status = DeviceChunkStatus::output_too_small;
  }
  if (writer) {
    batch.statuses[chunk] = status;
    batch.output_sizes[chunk] = status == DeviceChunkStatus::ok ? size : 0;
  }
  return status == DeviceChunkStatus::ok;
}

// Integer decode ----------------------------------------------------------------------------------
// Reduce-then-scan (delta_scan_parts.hpp): with parts > 1, delta_partial_sums_kernel adds up each
// block's range into `partials`; delta_decode_scan_kernel then scans each range from the sum of the
// ranges before it, in tiles of kThreads * kScanItems elements: every thread holds kScanItems
// consecutive elements (two 16-byte words), scans them in registers, and warp shuffles plus one
// word per warp in shared memory give each thread the sum before it. Wrap-around addition is
// associative, so any grouping gives numpy's bits.

template <class T>
constexpr int kScanItems = 32 / sizeof(T);  // two 16-byte words per thread
template <class T>
constexpr int kPerWord = 16 / sizeof(T);

// The unsigned integer of T's width (T itself for the integer types).
template <class T>
using Bits =
    std::conditional_t<sizeof(T) == 8, uint64_t,
                       std::conditional_t<sizeof(T) == 4, uint32_t,
                                          std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
template <class To, class From>
__device__ inline To bit_cast_to(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// Element q of a 16-byte word (q known after unrolling: the word stays in registers).
template <class T>
__device__ inline T word_element(const uint4& w, int q) {
  using U = Bits<T>;
  const uint32_t part[4] = {w.x, w.y, w.z, w.w};
  if constexpr (sizeof(T) == 8) {
    return bit_cast_to<T>(static_cast<U>(part[2 * q]) | static_cast<U>(part[2 * q + 1]) << 32);
  } else {
    constexpr int kPerPart = 4 / sizeof(T);
    return bit_cast_to<T>(static_cast<U>(part[q / kPerPart] >> (8 * sizeof(T) * (q % kPerPart))));
  }
}
template <class T>
__device__ inline uint4 make_word(const T* items) {
  using U = Bits<T>;
  uint32_t part[4] = {0, 0, 0, 0};
#pragma unroll
  for (int q = 0; q < kPerWord<T>; ++q) {
    const U bits = bit_cast_to<U>(items[q]);
    if constexpr (sizeof(T) == 8) {
      part[2 * q] = static_cast<uint32_t>(bits);
      part[2 * q + 1] = static_cast<uint32_t>(bits >> 32);
    } else {
      constexpr int kPerPart = 4 / sizeof(T);
      part[q / kPerPart] |= static_cast<uint32_t>(bits) << (8 * sizeof(T) * (q % kPerPart));
    }
  }
  return make_uint4(part[0], part[1], part[2], part[3]);
}

// How a chunk's input and output may be accessed: whole 16-byte words, whole elements, or bytes.
struct Access {
  bool words_in, words_out, elements_in, elements_out;
};
template <class T>
__device__ inline Access access_of(const unsigned char* in, const unsigned char* out) {
  const auto i = reinterpret_cast<uintptr_t>(in), o = reinterpret_cast<uintptr_t>(out);
  return {i % 16 == 0, o % 16 == 0, i % sizeof(T) == 0, o % sizeof(T) == 0};
}

// Elements [first, first + kScanItems) clipped to `end` (zeros past it).
template <class T>
__device__ inline void load_items(const unsigned char* in, uint64_t first, uint64_t end,
                                  const Access& a, T (&items)[kScanItems<T>]) {
  constexpr int kItems = kScanItems<T>;
  if (a.words_in && first + kItems <= end) {
    const auto* w = reinterpret_cast<const uint4*>(in + first * sizeof(T));
#pragma unroll
    for (int u = 0; u < kItems / kPerWord<T>; ++u) {
      const uint4 word = w[u];
#pragma unroll
      for (int q = 0; q < kPerWord<T>; ++q) items[u * kPerWord<T> + q] = word_element<T>(word, q);
    }
    return;
  }
#pragma unroll
  for (int q = 0; q < kItems; ++q) {
    const unsigned char* p = in + (first + q) * sizeof(T);
    items[q] = first + q >= end ? T{0}
               : a.elements_in  ? *reinterpret_cast<const T*>(p)
                                : delta_load<T>(p);
  }
}
template <class T>
__device__ inline void store_items(unsigned char* out, uint64_t first, uint64_t end,
                                   const Access& a, const T (&items)[kScanItems<T>]) {
  constexpr int kItems = kScanItems<T>;
  if (a.words_out && first + kItems <= end) {
    auto* w = reinterpret_cast<uint4*>(out + first * sizeof(T));
#pragma unroll
    for (int u = 0; u < kItems / kPerWord<T>; ++u) w[u] = make_word<T>(items + u * kPerWord<T>);
    return;
  }
#pragma unroll
  for (int q = 0; q < kItems; ++q) {
    if (first + q >= end) break;
    unsigned char* p = out + (first + q) * sizeof(T);
    if (a.elements_out) {
      *reinterpret_cast<T*>(p) = items[q];
    } else {
      delta_store<T>(p, items[q]);
    }
  }
}

template <class T>
__device__ inline T shfl_up(T v, int d) {
  return static_cast<T>(__shfl_up_sync(kFullMask, static_cast<unsigned long long>(v), d));
}
template <class T>
__device__ inline T shfl_xor(T v, int d) {
  return static_cast<T>(__shfl_xor_sync(kFullMask, static_cast<unsigned long long>(v), d));
}

// The sum of the block's values `v` (every thread of the block calls it; the result is valid in
// thread 0).
template <class T>
__device__ inline T block_sum(T v, T* warp_sums) {
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  for (int d = kWarpSize / 2; d > 0; d /= 2) v = delta_add(v, shfl_xor(v, d));
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kThreads / kWarpSize; ++w) total = delta_add(total, warp_sums[w]);
  }
  return total;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_partial_sums_kernel(DeviceChunkBatch batch, uint32_t parts, uint64_t* partials) {
  __shared__ T warp_sums[kThreads / kWarpSize];
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_valid(batch, chunk, sizeof(T), false)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const DeltaScanRange range = delta_scan_range(n, parts, part, kScanItems<T>);
  const Access a = access_of<T>(in, in);
  T sum = 0;
  for (uint64_t first = range.begin + uint64_t{threadIdx.x} * kScanItems<T>; first < range.end;
       first += uint64_t{kThreads} * kScanItems<T>) {
    T items[kScanItems<T>];
    load_items<T>(in, first, range.end, a, items);
#pragma unroll
    for (int q = 0; q < kScanItems<T>; ++q) sum = delta_add(sum, items[q]);
  }
  const T total = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) partials[uint64_t{chunk} * parts + part] = total;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_decode_scan_kernel(DeviceChunkBatch batch, uint32_t parts, const uint64_t* partials) {
  constexpr int kItems = kScanItems<T>;
  __shared__ T warp_sums[kThreads / kWarpSize];
  __shared__ T carry_shared;
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_valid(batch, chunk, sizeof(T), part == 0 && threadIdx.x == 0)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const DeltaScanRange range = delta_scan_range(n, parts, part, kItems);
  if (range.begin == range.end) return;
  const Access a = access_of<T>(in, out);
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  T carry = 0;
  if (part > 0) {  // the sum of the ranges before this one
    if (warp == 0) {
      T before = 0;
      for (uint32_t p = lane; p < part; p += kWarpSize) {
        before = delta_add(before, static_cast<T>(partials[uint64_t{chunk} * parts + p]));
      }
      for (int d = kWarpSize / 2; d > 0; d /= 2) before = delta_add(before, shfl_xor(before, d));
      if (lane == 0) carry_shared = before;
    }
    __syncthreads();
    carry = carry_shared;
    __syncthreads();
  }
  for (uint64_t base = range.begin; base < range.end; base += uint64_t{kThreads} * kItems) {
    const uint64_t first = base + uint64_t{threadIdx.x} * kItems;
    T items[kItems];
    load_items<T>(in, first, range.end, a, items);
#pragma unroll
    for (int q = 1; q < kItems; ++q) items[q] = delta_add(items[q], items[q - 1]);
    const T local = items[kItems - 1];
    // Inclusive scan of the thread totals within the warp, then across warps.
    T scan = local;
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2) {
      const T other = shfl_up(scan, d);
      if (static_cast<int>(lane) >= d) scan = delta_add(scan, other);
    }
    if (lane == kWarpSize - 1) warp_sums[warp] = scan;
    __syncthreads();
    T before = carry;
    for (unsigned w = 0; w < warp; ++w) before = delta_add(before, warp_sums[w]);
    before = delta_add(before, delta_subtract(scan, local));  // exclusive within the warp
#pragma unroll
    for (int q = 0; q < kItems; ++q) items[q] = delta_add(items[q], before);
    store_items<T>(out, first, range.end, a, items);
    if (threadIdx.x == kThreads - 1) carry_shared = items[kItems - 1];
    __syncthreads();
    carry = carry_shared;
    __syncthreads();
  }
}

// Encode: each thread takes kScanItems consecutive elements (two 16-byte words when aligned) and
// the element before them; every difference is one independent subtraction, as numpy's.
template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_encode_kernel(DeviceChunkBatch batch, uint32_t parts) {
  constexpr int kItems = kScanItems<T>;
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_valid(batch, chunk, sizeof(T), part == 0 && threadIdx.x == 0)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const Access a = access_of<T>(in, out);
  const uint64_t stride = uint64_t{parts} * kThreads * kItems;
  for (uint64_t first = (uint64_t{part} * kThreads + threadIdx.x) * kItems; first < n;
       first += stride) {
    T items[kItems];
    load_items<T>(in, first, n, a, items);
    T previous = 0;
    if (first > 0) {
      const unsigned char* p = in + (first - 1) * sizeof(T);
      previous = a.elements_in ? *reinterpret_cast<const T*>(p) : delta_load<T>(p);
    }
    T diff[kItems];
#pragma unroll
    for (int q = kItems - 1; q > 0; --q) diff[q] = delta_subtract(items[q], items[q - 1]);
    diff[0] = first == 0 ? items[0] : delta_subtract(items[0], previous);
    store_items<T>(out, first, n, a, diff);
  }
}

// Float decode -------------------------------------------------------------------------------
// numpy's cumsum adds in order and rounds after every addition, so no other grouping gives its
// bits (float addition is not associative): the sum is serial. One warp per chunk: the warp loads
// a tile of 32 * kFloatWords 16-byte words (coalesced; the next tile is prefetched into registers
// while the current one is summed), lane 0 runs the sum over the tile in shared memory, and the
// warp stores the tile. Starting from -0.0 makes the first sum x[0] itself (-0.0 + x == x).

constexpr int kFloatWarps = 4;
constexpr int kFloatWords = 2;  // 16-byte words per lane per tile

template <class T>
__global__ void __launch_bounds__(kFloatWarps* kWarpSize)
    delta_decode_float_kernel(DeviceChunkBatch batch) {
  __shared__ uint4 stage[kFloatWarps][kWarpSize * kFloatWords];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const size_t chunk = blockIdx.x * size_t{kFloatWarps} + warp;
  if (chunk >= batch.count) return;
  if (!chunk_valid(batch, chunk, sizeof(T), lane == 0)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  T sum = -T{0};
  const bool words =
      reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  uint64_t done = 0;  // elements summed by the tile loop
  if (words) {
    constexpr uint64_t kPerWordF = 16 / sizeof(T);
    const uint64_t n_words = n / kPerWordF;
    const auto* src = reinterpret_cast<const uint4*>(in);
    auto* dst = reinterpret_cast<uint4*>(out);
    T* tile = reinterpret_cast<T*>(stage[warp]);
    uint4 next[kFloatWords] = {};  // words past the end stay zero (never summed)
    auto load = [&](uint64_t w0) {
#pragma unroll
      for (int v = 0; v < kFloatWords; ++v) {
        const uint64_t w = w0 + lane + static_cast<uint64_t>(v) * kWarpSize;
        if (w < n_words) next[v] = src[w];
      }
    };
    constexpr uint64_t kTileWords = uint64_t{kWarpSize} * kFloatWords;
    load(0);
    for (uint64_t w0 = 0; w0 < n_words; w0 += kTileWords) {
#pragma unroll
      for (int v = 0; v < kFloatWords; ++v) stage[warp][lane + v * kWarpSize] = next[v];
      __syncwarp();
      if (w0 + kTileWords < n_words) load(w0 + kTileWords);  // in flight during the sum
      if (lane == 0) {
        const auto count = static_cast<uint32_t>(umin(kTileWords, n_words - w0) * kPerWordF);
        constexpr uint32_t kBatch = 8;
        uint32_t e = 0;
        for (; e + kBatch <= count; e += kBatch) {
          T x[kBatch];
#pragma unroll
          for (uint32_t b = 0; b < kBatch; ++b) x[b] = tile[e + b];
#pragma unroll
          for (uint32_t b = 0; b < kBatch; ++b) {
            sum = sum + x[b];
            x[b] = sum;
          }
#pragma unroll
          for (uint32_t b = 0; b < kBatch; ++b) tile[e + b] = x[b];
        }
        for (; e < count; ++e) {
          sum = sum + tile[e];
          tile[e] = sum;
        }
      }
      __syncwarp();
#pragma unroll
      for (int v = 0; v < kFloatWords; ++v) {
        const uint64_t w = w0 + lane + static_cast<uint64_t>(v) * kWarpSize;
        if (w < n_words) dst[w] = stage[warp][lane + v * kWarpSize];
      }
      __syncwarp();  // the stage is refilled by the next tile
    }
    done = n_words * kPerWordF;
  }
  if (lane == 0) {  // the elements after the last whole word, or all of a misaligned chunk
    for (uint64_t k = done; k < n; ++k) {
      sum = sum + delta_load<T>(in + k * sizeof(T));
      delta_store<T>(out + k * sizeof(T), sum);
    }
  }
}

// Thread blocks per chunk for the integer decode with scratch. Splitting a chunk costs a second
// read of its input (the reduce pass), so chunks are split only when the batch alone does not
// give about 2048 blocks; a batch of 1024 chunks or more runs one block per chunk in one pass.
uint32_t scan_parts(size_t count) {
  if (count >= 1024) return 1;
  return static_cast<uint32_t>(std::clamp<size_t>(2048 / std::max<size_t>(count, 1), 1, 256));
}

// The host-side twin of visit_delta_type for the launchers (host lambdas).
template <class F>
void visit_on_host(DeltaType type, F&& f) {
  switch (type) {
    case DeltaType::int8:
    case DeltaType::uint8:
      return f(uint8_t{});
    case DeltaType::int16:
    case DeltaType::uint16:
      return f(uint16_t{});
    case DeltaType::int32:
    case DeltaType::uint32:
      return f(uint32_t{});
    case DeltaType::int64:
    case DeltaType::uint64:
      return f(uint64_t{});
    case DeltaType::float32:
      return f(float{});
    case DeltaType::float64:
      return f(double{});
  }
}

}  // namespace

void delta_encode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    delta_encode_kernel<T>
        <<<detail::grid_for(batch.count, parts), kThreads, 0, detail::to_cuda(stream.native())>>>(
            batch, parts);
  });
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

size_t delta_decode_temp_bytes(size_t count) {
  return count * scan_parts(count) * sizeof(uint64_t);
}

namespace {

void decode(const DeviceChunkBatch& batch, DeltaType type, uint64_t* partials, Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  const uint32_t parts = partials == nullptr ? 1 : scan_parts(batch.count);
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>) {
      const auto blocks = static_cast<unsigned>((batch.count + kFloatWarps - 1) / kFloatWarps);
      delta_decode_float_kernel<T><<<blocks, kFloatWarps * kWarpSize, 0, s>>>(batch);
    } else {
      const unsigned grid = detail::grid_for(batch.count, parts);
      if (parts > 1) {
        delta_partial_sums_kernel<T><<<grid, kThreads, 0, s>>>(batch, parts, partials);
        CUZARR_CUDA_CHECK(cudaGetLastError());
      }
      delta_decode_scan_kernel<T><<<grid, kThreads, 0, s>>>(batch, parts, partials);
    }
  });
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream) {
  decode(batch, type, nullptr, stream);
}

void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, void* temp, Stream stream) {
  decode(batch, type, static_cast<uint64_t*>(temp), stream);
}

}  // namespace cuzarr::gpu
