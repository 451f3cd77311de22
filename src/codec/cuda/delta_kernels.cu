#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "codec/cuda/delta_float_sum.hpp"
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

// The range of its chunk that a thread block of a reduce-then-scan kernel takes (chunk blockIdx.x
// / parts, part blockIdx.x % parts: delta_scan_range, in tiles of `items` elements of `element`
// bytes). `valid` is false when the chunk's sizes are bad; the first thread of part 0 records the
// chunk's status when `record_status`.
struct ScanPart {
  size_t chunk;
  uint32_t part;
  const unsigned char* in;
  unsigned char* out;
  DeltaScanRange range;
  bool valid;
};

__device__ inline ScanPart scan_part(const DeviceChunkBatch& batch, uint32_t parts,
                                     uint32_t element, uint32_t items, bool record_status) {
  ScanPart p{};
  p.chunk = blockIdx.x / parts;
  p.part = blockIdx.x % parts;
  p.valid = chunk_valid(batch, p.chunk, element, record_status && p.part == 0 && threadIdx.x == 0);
  if (!p.valid) return p;
  p.in = reinterpret_cast<const unsigned char*>(batch.inputs[p.chunk]);
  p.out = reinterpret_cast<unsigned char*>(batch.outputs[p.chunk]);
  p.range = delta_scan_range(batch.input_sizes[p.chunk] / element, parts, p.part, items);
  return p;
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
  if (blockIdx.x % parts + 1 == parts) return;  // the last part's sum is never used
  const ScanPart p = scan_part(batch, parts, sizeof(T), kScanItems<T>, false);
  if (!p.valid) return;
  const Access a = access_of<T>(p.in, p.in);
  T sum = 0;
  for (uint64_t first = p.range.begin + uint64_t{threadIdx.x} * kScanItems<T>; first < p.range.end;
       first += uint64_t{kThreads} * kScanItems<T>) {
    T items[kScanItems<T>];
    load_items<T>(p.in, first, p.range.end, a, items);
#pragma unroll
    for (int q = 0; q < kScanItems<T>; ++q) sum = delta_add(sum, items[q]);
  }
  const T total = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) partials[uint64_t{p.chunk} * parts + p.part] = total;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_decode_scan_kernel(DeviceChunkBatch batch, uint32_t parts, const uint64_t* partials) {
  constexpr int kItems = kScanItems<T>;
  __shared__ T warp_sums[kThreads / kWarpSize];
  __shared__ T carry_shared;
  const ScanPart p = scan_part(batch, parts, sizeof(T), kItems, true);
  if (!p.valid || p.range.begin == p.range.end) return;
  const size_t chunk = p.chunk;
  const uint32_t part = p.part;
  const unsigned char* in = p.in;
  unsigned char* out = p.out;
  const DeltaScanRange range = p.range;
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

// Speculative float decode (delta_float_sum.hpp): with scratch, the decode first takes the
// prefix sums in FloatSum<T> by reduce-then-scan, as the integer decode does, writes them rounded
// to T, and checks every element's step against numpy's, z[k] == rounded(z[k - 1] + enc[k]).
// The check of a thread's first element uses the value its neighbour wrote (shuffled across),
// and the first element of a part the value the part assumed before it (`assumed`, compared
// with what the part before it wrote once all parts are done). If every check holds, z is
// numpy's running sum by induction; otherwise delta_decode_float_kernel redoes the chunk
// serially from the first element not confirmed. Smooth data (the case delta filters are for)
// passes every check and decodes at the speed of the integer scan.

// Where the speculative decode leaves its checks (device memory): per chunk the first failed
// element (UINT64_MAX: none), per chunk and part the value assumed before the part.
template <class T>
struct DeltaFloatChecks {
  uint64_t* fail = nullptr;  // null: no speculative decode ran
  T* assumed = nullptr;
  uint32_t parts = 1;
};

// A FloatSum moved between lanes by `shuffle` (a warp shuffle of one double), field by field.
template <class S, class Shuffle>
__device__ inline S shuffle_sum(const S& v, Shuffle shuffle) {
  S r = S::zero();
  if constexpr (sizeof(S) == sizeof(double)) {
    r.value = shuffle(v.value);
  } else {
    r.hi = shuffle(v.hi);
    r.lo = shuffle(v.lo);
  }
  return r;
}
template <class S>
__device__ inline S shfl_up_sum(const S& v, int d) {
  return shuffle_sum(v, [d](double x) { return __shfl_up_sync(kFullMask, x, d); });
}
template <class S>
__device__ inline S shfl_xor_sum(const S& v, int d) {
  return shuffle_sum(v, [d](double x) { return __shfl_xor_sync(kFullMask, x, d); });
}

// The sum of each part's range in FloatSum<T> (parts > 1).
template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_float_partials_kernel(DeviceChunkBatch batch, uint32_t parts, FloatSum<T>* partials) {
  using S = FloatSum<T>;
  __shared__ S warp_sums[kThreads / kWarpSize];
  if (blockIdx.x % parts + 1 == parts) return;  // the last part's sum is never used
  const ScanPart p = scan_part(batch, parts, sizeof(T), kScanItems<T>, false);
  if (!p.valid) return;
  const Access a = access_of<T>(p.in, p.in);
  S sum = S::zero();
  for (uint64_t first = p.range.begin + uint64_t{threadIdx.x} * kScanItems<T>; first < p.range.end;
       first += uint64_t{kThreads} * kScanItems<T>) {
    T items[kScanItems<T>];
    load_items<T>(p.in, first, p.range.end, a, items);
#pragma unroll
    for (int q = 0; q < kScanItems<T>; ++q) sum = sum.plus(S::of(items[q]));
  }
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  for (int d = kWarpSize / 2; d > 0; d /= 2) sum = sum.plus(shfl_xor_sum(sum, d));
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    S total = S::zero();
    for (int w = 0; w < kThreads / kWarpSize; ++w) total = total.plus(warp_sums[w]);
    partials[uint64_t{p.chunk} * parts + p.part] = total;
  }
}

// The speculative scan of each part's range, with the checks (see above).
template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_float_scan_kernel(DeviceChunkBatch batch, uint32_t parts, const FloatSum<T>* partials,
                            DeltaFloatChecks<T> checks) {
  using S = FloatSum<T>;
  constexpr int kItems = kScanItems<T>;
  __shared__ S warp_sums[kThreads / kWarpSize];
  __shared__ T warp_last[kThreads / kWarpSize];  // each warp's last value of the tile
  __shared__ S carry_shared;
  __shared__ T carry_value_shared;
  __shared__ unsigned long long fail_shared;
  const ScanPart p = scan_part(batch, parts, sizeof(T), kItems, true);
  if (!p.valid || p.range.begin == p.range.end) return;
  const size_t chunk = p.chunk;
  const uint32_t part = p.part;
  const unsigned char* in = p.in;
  unsigned char* out = p.out;
  const DeltaScanRange range = p.range;
  const Access a = access_of<T>(in, out);
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  if (threadIdx.x == 0) fail_shared = UINT64_MAX;
  S carry = S::zero();
  T carry_value = -T{0};  // the value before the range (numpy's sum starts from -0.0)
  if (part > 0) {
    if (warp == 0) {
      S before = S::zero();
      for (uint32_t p = lane; p < part; p += kWarpSize)
        before = before.plus(partials[uint64_t{chunk} * parts + p]);
      for (int d = kWarpSize / 2; d > 0; d /= 2) before = before.plus(shfl_xor_sum(before, d));
      if (lane == 0) {
        carry_shared = before;
        carry_value_shared = before.rounded();
        checks.assumed[uint64_t{chunk} * parts + part] = carry_value_shared;
      }
    }
    __syncthreads();
    carry = carry_shared;
    carry_value = carry_value_shared;
    __syncthreads();
  } else {
    __syncthreads();  // fail_shared is set
  }
  uint64_t fail = UINT64_MAX;
  for (uint64_t base = range.begin; base < range.end; base += uint64_t{kThreads} * kItems) {
    const uint64_t first = base + uint64_t{threadIdx.x} * kItems;
    T items[kItems];
    load_items<T>(in, first, range.end, a, items);
    S sums[kItems];
    sums[0] = S::of(items[0]);
#pragma unroll
    for (int q = 1; q < kItems; ++q) sums[q] = sums[q - 1].plus(S::of(items[q]));
    // Inclusive scan of the thread totals within the warp, then across warps.
    S scan = sums[kItems - 1];
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2) {
      const S other = shfl_up_sum(scan, d);
      if (static_cast<int>(lane) >= d) scan = other.plus(scan);
    }
    S exclusive = shfl_up_sum(scan, 1);
    if (lane == kWarpSize - 1) warp_sums[warp] = scan;
    __syncthreads();
    S before = carry;
    for (unsigned w = 0; w < warp; ++w) before = before.plus(warp_sums[w]);
    if (lane > 0) before = before.plus(exclusive);
    T z[kItems];
#pragma unroll
    for (int q = 0; q < kItems; ++q) z[q] = before.plus(sums[q]).rounded();
    // The value before this thread's first element, as its neighbour wrote it.
    T previous = __shfl_up_sync(kFullMask, z[kItems - 1], 1);
    if (lane == kWarpSize - 1) warp_last[warp] = z[kItems - 1];
    __syncthreads();
    if (lane == 0) previous = warp == 0 ? carry_value : warp_last[warp - 1];
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const bool inside = first + q < range.end;
      if (inside && fail == UINT64_MAX &&
          !delta_step_holds(q == 0 ? previous : z[q - 1], items[q], z[q]))
        fail = first + q;
    }
    store_items<T>(out, first, range.end, a, z);
    if (threadIdx.x == kThreads - 1) {
      carry_shared = before.plus(sums[kItems - 1]);
      carry_value_shared = z[kItems - 1];
    }
    __syncthreads();
    carry = carry_shared;
    carry_value = carry_value_shared;
    __syncthreads();
  }
  if (fail != UINT64_MAX) atomicMin(&fail_shared, static_cast<unsigned long long>(fail));
  __syncthreads();
  if (threadIdx.x == 0 && fail_shared != UINT64_MAX)
    atomicMin(reinterpret_cast<unsigned long long*>(checks.fail) + chunk, fail_shared);
}

// With a speculative decode before it (`checked`), the kernel starts each chunk at its first
// element that the checks did not confirm (first_unconfirmed), from the confirmed sum before it,
// and skips chunks confirmed whole.

// The first element of chunk `chunk` (n elements) that the speculative decode did not confirm:
// its first failed check, or the start of a part whose assumed previous value differs from what
// the part before it wrote; n when every element was confirmed.
template <class T>
__device__ inline uint64_t first_unconfirmed(const DeviceChunkBatch& batch, size_t chunk,
                                             uint64_t n, const DeltaFloatChecks<T>& checks) {
  uint64_t first = checks.fail[chunk] < n ? checks.fail[chunk] : n;
  const auto* out = reinterpret_cast<const unsigned char*>(batch.outputs[chunk]);
  for (uint32_t p = 1; p < checks.parts; ++p) {
    const uint64_t begin = delta_scan_range(n, checks.parts, p, kScanItems<T>).begin;
    if (begin == 0 || begin >= first) continue;
    const T written = delta_load<T>(out + (begin - 1) * sizeof(T));
    if (float_bits(written) != float_bits(checks.assumed[uint64_t{chunk} * checks.parts + p]))
      first = begin;
  }
  return first;
}

template <class T>
__global__ void __launch_bounds__(kFloatWarps* kWarpSize)
    delta_decode_float_kernel(DeviceChunkBatch batch, DeltaFloatChecks<T> checks) {
  __shared__ uint4 stage[kFloatWarps][kWarpSize * kFloatWords];
  __shared__ uint64_t starts[kFloatWarps];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const size_t chunk = blockIdx.x * size_t{kFloatWarps} + warp;
  if (chunk >= batch.count) return;
  const bool checked = checks.fail != nullptr;
  if (!chunk_valid(batch, chunk, sizeof(T), lane == 0 && !checked)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  if (checked) {
    if (lane == 0) starts[warp] = first_unconfirmed<T>(batch, chunk, n, checks);
    __syncwarp();
  }
  const uint64_t start = checked ? starts[warp] : 0;
  if (start >= n) return;
  const bool words =
      reinterpret_cast<uintptr_t>(in) % 16 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  constexpr uint64_t kPerWordF = 16 / sizeof(T);
  // The sum restarts at a word boundary at or before `start` (elements before `start` are
  // confirmed: summing them again rewrites the same values).
  const uint64_t restart = words ? start / kPerWordF * kPerWordF : start;
  T sum = restart == 0 ? -T{0} : delta_load<T>(out + (restart - 1) * sizeof(T));
  uint64_t done = restart;  // elements summed by the tile loop
  if (words) {
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
    const uint64_t first_word = restart / kPerWordF;
    load(first_word);
    for (uint64_t w0 = first_word; w0 < n_words; w0 += kTileWords) {
#pragma unroll
      for (int v = 0; v < kFloatWords; ++v) stage[warp][lane + v * kWarpSize] = next[v];
      __syncwarp();
      if (w0 + kTileWords < n_words) load(w0 + kTileWords);  // in flight during the sum
      if (lane == 0) {
        const auto count = static_cast<uint32_t>(umin(kTileWords, n_words - w0) * kPerWordF);
        // Plain additions keep the chain short. A NaN stays in the sum once there, so a sum that
        // ends the tile as NaN sends the tile through delta_add again, for x86's NaN.
        const T tile_start = sum;
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
        if (sum != sum) {
          // The elements are overwritten by their sums: recover each from its sum and the one
          // before it would lose bits, so they come from the input again.
          sum = tile_start;
          const T* encoded = reinterpret_cast<const T*>(src + w0);
          for (e = 0; e < count; ++e) {
            sum = delta_add(sum, encoded[e]);
            tile[e] = sum;
          }
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
    done = done > n_words * kPerWordF ? done : n_words * kPerWordF;
  }
  if (lane == 0) {  // the elements after the last whole word, or all of a misaligned chunk
    for (uint64_t k = done; k < n; ++k) {
      sum = delta_add(sum, delta_load<T>(in + k * sizeof(T)));
      delta_store<T>(out + k * sizeof(T), sum);
    }
  }
}

// Thread blocks per chunk for the decode with scratch. Splitting a chunk costs a second read of
// all but its last part (the reduce pass), so chunks are split only when the batch alone gives
// fewer than 256 blocks (about two per multiprocessor): on an H100, 256 chunks of 4 MiB decoded
// at 1157 GB/s one block each and at 940 GB/s in 8 parts each (bench/RESULTS.md).
uint32_t scan_parts(size_t count) {
  if (count >= 256) return 1;
  return static_cast<uint32_t>(std::clamp<size_t>(512 / std::max<size_t>(count, 1), 1, 256));
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

// Scratch layout: partial sums (16 bytes per chunk and part: uint64_t for integers, FloatSum
// for floats), then for float decodes the values assumed before each part (8 bytes per chunk and
// part) and the first failed check of each chunk (8 bytes per chunk).
size_t delta_decode_temp_bytes(size_t count) {
  return count * scan_parts(count) * (16 + 8) + count * sizeof(uint64_t);
}

namespace {

void decode(const DeviceChunkBatch& batch, DeltaType type, void* temp, Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  const uint32_t parts = temp == nullptr ? 1 : scan_parts(batch.count);
  const size_t part_slots = batch.count * size_t{parts};
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    const unsigned grid = detail::grid_for(batch.count, parts);
    if constexpr (std::is_floating_point_v<T>) {
      const auto warps = static_cast<unsigned>((batch.count + kFloatWarps - 1) / kFloatWarps);
      DeltaFloatChecks<T> checks;
      if (temp != nullptr) {  // speculative scan and checks, then the serial decode where needed
        auto* partials = static_cast<FloatSum<T>*>(temp);
        checks.assumed = reinterpret_cast<T*>(static_cast<std::byte*>(temp) + part_slots * 16);
        checks.fail = reinterpret_cast<uint64_t*>(static_cast<std::byte*>(temp) + part_slots * 24);
        checks.parts = parts;
        CUZARR_CUDA_CHECK(cudaMemsetAsync(checks.fail, 0xFF, batch.count * sizeof(uint64_t), s));
        if (parts > 1) {
          delta_float_partials_kernel<T><<<grid, kThreads, 0, s>>>(batch, parts, partials);
          CUZARR_CUDA_CHECK(cudaGetLastError());
        }
        delta_float_scan_kernel<T><<<grid, kThreads, 0, s>>>(batch, parts, partials, checks);
        CUZARR_CUDA_CHECK(cudaGetLastError());
      }
      delta_decode_float_kernel<T><<<warps, kFloatWarps * kWarpSize, 0, s>>>(batch, checks);
    } else {
      auto* partials = static_cast<uint64_t*>(temp);
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
  decode(batch, type, temp, stream);
}

}  // namespace cuzarr::gpu
