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

// The range of its chunk that the thread block of index `index` of a scan covers (chunk index /
// parts, part index % parts: delta_scan_range, in multiples of `items` elements of `element`
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

__device__ inline ScanPart scan_part(const DeviceChunkBatch& batch, uint32_t parts, uint32_t index,
                                     uint32_t element, uint32_t items, bool record_status) {
  ScanPart p{};
  p.chunk = index / parts;
  p.part = index % parts;
  p.valid = chunk_valid(batch, p.chunk, element, record_status && p.part == 0 && threadIdx.x == 0);
  if (!p.valid) return p;
  p.in = reinterpret_cast<const unsigned char*>(batch.inputs[p.chunk]);
  p.out = reinterpret_cast<unsigned char*>(batch.outputs[p.chunk]);
  p.range = delta_scan_range(batch.input_sizes[p.chunk] / element, parts, p.part, items);
  return p;
}

// Elements in registers --------------------------------------------------------------------------

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

// Decode with scratch: a single-pass scan with decoupled look-back ----------------------------
// A chunk is split into `parts` consecutive ranges (delta_scan_parts.hpp), one thread block each,
// sized from the batch's largest chunk so that a range is kStageTiles tiles of kThreads *
// kScanItems elements (8 KiB a tile): every thread holds kScanItems consecutive elements (two
// 16-byte words) of a tile and scans them in registers; warp shuffles plus one sum per warp in
// shared memory give each thread the sum before it. Block b takes range b (the hardware starts
// blocks in index order, so a block only ever waits for blocks already running) and reads its
// input once:
//   1. the block adds up its range, keeping it in shared memory, and publishes that aggregate in
//      the range's state;
//   2. one warp looks back over the states of the ranges before it, 32 at a time, adding
//      aggregates until it reaches one whose inclusive prefix is published (part 0 publishes
//      its aggregate as one at once), and publishes its own inclusive prefix;
//   3. the block scans its range from that exclusive prefix and stores it.
// A range longer than the stage (a chunk larger than the size the split assumed) is read again
// for the scan. This is Merrill and Garland's single-pass scan ("Single-pass Parallel Prefix Scan
// with Decoupled Look-back", NVIDIA 2016); the reduce-then-scan it replaces read every input
// twice from memory. Without scratch, parts = 1: no look-back, one read.
//
// Integer sums wrap around, which is associative: any grouping gives numpy's bits. Float sums run
// in FloatSum<T> and are checked (below).

// Float decode, speculatively (delta_float_sum.hpp): the scan runs in FloatSum<T>, writes the
// prefix sums rounded to T, and checks every element's step against numpy's, z[k] ==
// rounded(z[k - 1] + enc[k]). A thread's first element is checked against the value its
// neighbour wrote (shuffled across), a range's first element against the value the range assumed
// before it (`assumed`, compared with what the range before it wrote once all are done). If
// every check holds, z is numpy's running sum by induction; otherwise delta_decode_float_kernel
// redoes the chunk serially from the first element not confirmed. Smooth data (the case delta
// filters are for) passes every check and decodes at the speed of the integer scan.

// Wrap-around sums of an integer type, with FloatSum's interface.
template <class T>
struct WrapSum {
  T value;

  __device__ static WrapSum zero() { return {T{0}}; }
  __device__ static WrapSum of(T x) { return {x}; }
  __device__ WrapSum plus(const WrapSum& o) const { return {delta_add(value, o.value)}; }
  __device__ T rounded() const { return value; }
};

// The sums a scan of T runs in.
template <class T>
using ScanSum = std::conditional_t<std::is_floating_point_v<T>, FloatSum<T>, WrapSum<T>>;

// A sum moved between lanes by `shuffle` (of one 64-bit integer or double), field by field.
template <class S, class Shuffle>
__device__ inline S shuffle_sum(const S& v, Shuffle shuffle) {
  S r = S::zero();
  if constexpr (sizeof(S) == sizeof(FloatSum<double>)) {
    r.hi = shuffle(v.hi);
    r.lo = shuffle(v.lo);
  } else if constexpr (std::is_same_v<S, FloatSum<float>>) {
    r.value = shuffle(v.value);
  } else {
    using T = decltype(v.value);
    r.value = static_cast<T>(shuffle(static_cast<unsigned long long>(v.value)));
  }
  return r;
}
template <class S>
__device__ inline S shfl_up_sum(const S& v, int d) {
  return shuffle_sum(v, [d](auto x) { return __shfl_up_sync(kFullMask, x, d); });
}
template <class S>
__device__ inline S shfl_xor_sum(const S& v, int d) {
  return shuffle_sum(v, [d](auto x) { return __shfl_xor_sync(kFullMask, x, d); });
}

// The sum of the warp's values (valid in every lane).
template <class S>
__device__ inline S warp_sum(S v) {
  for (int d = kWarpSize / 2; d > 0; d /= 2) v = v.plus(shfl_xor_sum(v, d));
  return v;
}

// The states of a scan's ranges (device memory, zeroed before the launch): per range (chunk *
// parts + part) its state and the sum it announces: the range's aggregate, then its inclusive
// prefix (the sum of its chunk's elements up to the range's end). A sum of up to 8 bytes
// shares one 16-byte word with its state, written and read whole with relaxed device-scope
// accesses (as the tile states of CUB's scan are); a larger sum (float64's double-double) has
// 16-byte slots of its own, written before its state, which is stored with release and loaded with
// acquire semantics.
constexpr uint32_t kRangeEmpty = 0;
constexpr uint32_t kRangeAggregate = 1;
constexpr uint32_t kRangeInclusive = 2;

struct RangeStates {
  ulonglong2* words = nullptr;  // state and sum, for sums of up to 8 bytes
  uint32_t* flags = nullptr;    // the states of larger sums
  ulonglong2* aggregates = nullptr;
  ulonglong2* inclusives = nullptr;
};

template <class S>
__device__ inline void publish(const RangeStates& states, uint32_t index, const S& sum,
                               uint32_t state) {
  if constexpr (sizeof(S) <= 8) {
    unsigned long long bits = 0;
    memcpy(&bits, &sum, sizeof(S));
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(states.words + index),
                 "l"(static_cast<unsigned long long>(state)), "l"(bits)
                 : "memory");
  } else {
    ulonglong2 bits;
    memcpy(&bits, &sum, sizeof(S));
    __stcg(state == kRangeInclusive ? states.inclusives + index : states.aggregates + index, bits);
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(states.flags + index), "r"(state)
                 : "memory");
  }
}

// Waits until range `index` has published a sum; returns its state and the sum in `sum`.
template <class S>
__device__ inline uint32_t wait_for_range(const RangeStates& states, uint32_t index, S& sum) {
  if constexpr (sizeof(S) <= 8) {
    unsigned long long state = 0, bits = 0;
    do {
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(state), "=l"(bits)
                   : "l"(states.words + index)
                   : "memory");
    } while (state == kRangeEmpty);
    memcpy(&sum, &bits, sizeof(S));
    return static_cast<uint32_t>(state);
  } else {
    uint32_t state = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                   : "=r"(state)
                   : "l"(states.flags + index)
                   : "memory");
    } while (state == kRangeEmpty);
    const ulonglong2 bits =
        __ldcg(state == kRangeInclusive ? states.inclusives + index : states.aggregates + index);
    memcpy(&sum, &bits, sizeof(S));
    return state;
  }
}

// The sum of the elements of a range's chunk before the range (index = chunk * parts + part, part
// > 0), by one warp; every lane returns it. Lane l waits for the state of the range l + 1 places
// back; the warp adds the aggregates up to the nearest inclusive prefix, and moves 32 ranges back
// when there is none among them. Part 0 publishes an inclusive prefix, so the walk ends within
// the chunk.
template <class S>
__device__ inline S look_back(const RangeStates& states, uint32_t index, uint32_t part,
                              unsigned lane) {
  S before = S::zero();
  for (int64_t back = 1; back <= part; back += kWarpSize) {
    const int64_t distance = back + lane;
    const bool inside = distance <= part;
    S sum = S::zero();
    const uint32_t state =
        inside ? wait_for_range(states, index - static_cast<uint32_t>(distance), sum) : kRangeEmpty;
    const unsigned inclusive = __ballot_sync(kFullMask, state == kRangeInclusive);
    const unsigned nearest = inclusive != 0 ? __ffs(inclusive) - 1 : kWarpSize - 1;
    if (!inside || lane > nearest) sum = S::zero();
    before = warp_sum(sum).plus(before);
    if (inclusive != 0) break;
  }
  return before;
}

// Where the speculative float decode leaves its checks (device memory): per chunk the first
// failed element (UINT64_MAX: none), per range the value assumed before the range.
template <class T>
struct DeltaFloatChecks {
  uint64_t* fail = nullptr;  // null: no speculative decode ran
  T* assumed = nullptr;
  uint32_t parts = 1;
};

// The scan of one tile of kThreads * kScanItems elements (this thread's `items` from `first`,
// clipped to `end`) from the sum `carry` of the elements before it (and, for floats, the value
// `carry_value` written before it); stores the prefix sums and records the first failed float
// check in `fail`. Returns the sum at the end of the tile in `carry` and the last value written
// in `carry_value`, through shared memory (every thread of the block calls it).
template <class T>
struct TileScan {
  using S = ScanSum<T>;
  S warp_sums[kThreads / kWarpSize];
  T warp_last[kThreads / kWarpSize];  // each warp's last value of the tile
  S carry;
  T carry_value;
};

template <class T>
__device__ inline void scan_tile(TileScan<T>& shared, const T (&items)[kScanItems<T>],
                                 uint64_t first, uint64_t end, unsigned char* out, const Access& a,
                                 ScanSum<T>& carry, T& carry_value, uint64_t& fail) {
  using S = ScanSum<T>;
  constexpr int kItems = kScanItems<T>;
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
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
  const S exclusive = shfl_up_sum(scan, 1);
  if (lane == kWarpSize - 1) shared.warp_sums[warp] = scan;
  __syncthreads();
  S before = carry;
  for (unsigned w = 0; w < warp; ++w) before = before.plus(shared.warp_sums[w]);
  if (lane > 0) before = before.plus(exclusive);
  T z[kItems];
#pragma unroll
  for (int q = 0; q < kItems; ++q) z[q] = before.plus(sums[q]).rounded();
  if constexpr (std::is_floating_point_v<T>) {
    // The value before this thread's first element, as its neighbour wrote it.
    T previous = __shfl_up_sync(kFullMask, z[kItems - 1], 1);
    if (lane == kWarpSize - 1) shared.warp_last[warp] = z[kItems - 1];
    __syncthreads();
    if (lane == 0) previous = warp == 0 ? carry_value : shared.warp_last[warp - 1];
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      const bool inside = first + q < end;
      if (inside && fail == UINT64_MAX &&
          !delta_step_holds(q == 0 ? previous : z[q - 1], items[q], z[q]))
        fail = first + q;
    }
  }
  store_items<T>(out, first, end, a, z);
  if (threadIdx.x == kThreads - 1) {
    shared.carry = before.plus(sums[kItems - 1]);
    shared.carry_value = z[kItems - 1];
  }
  __syncthreads();
  carry = shared.carry;
  carry_value = shared.carry_value;
  __syncthreads();  // warp_sums and the carry are reused by the next tile
}

// Dynamic shared memory of the scan kernel for split chunks: kStageTiles tiles of a block's range.
constexpr int kWordsPerThread = 2;
constexpr uint32_t kStageTiles = 4;
constexpr size_t kStageBytes = size_t{kStageTiles} * kThreads * kWordsPerThread * sizeof(uint4);
extern __shared__ uint4 delta_stage[];

template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_scan_kernel(DeviceChunkBatch batch, uint32_t parts, RangeStates states,
                      DeltaFloatChecks<T> checks) {
  using S = ScanSum<T>;
  constexpr int kItems = kScanItems<T>;
  constexpr uint64_t kTile = uint64_t{kThreads} * kItems;
  constexpr bool kFloat = std::is_floating_point_v<T>;
  __shared__ TileScan<T> shared;
  __shared__ S warp_totals[kThreads / kWarpSize];
  __shared__ S before_shared;
  __shared__ unsigned long long fail_shared;
  const uint32_t index = blockIdx.x;  // blocks start in index order (CUB's scan assumes so too)
  const ScanPart p = scan_part(batch, parts, index, sizeof(T), kItems, true);
  if (!p.valid || p.range.begin == p.range.end) return;  // later parts of the chunk are empty too
  const Access a = access_of<T>(p.in, p.out);
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const bool one_tile = p.range.end - p.range.begin <= kTile;
  // A range of a split chunk is staged in shared memory between its two passes when it fits.
  const bool staged = parts > 1 && !one_tile && p.range.end - p.range.begin <= kStageTiles * kTile;
  const auto stage_word = [](uint32_t k, int u) {
    return (k * kThreads + threadIdx.x) * kWordsPerThread + static_cast<uint32_t>(u);
  };
  const uint64_t mine = p.range.begin + uint64_t{threadIdx.x} * kItems;
  T items[kItems];
  if (one_tile) load_items<T>(p.in, mine, p.range.end, a, items);
  if (threadIdx.x == 0) fail_shared = UINT64_MAX;
  S carry = S::zero();
  T carry_value = T{0};
  if constexpr (kFloat) carry_value = -T{0};  // numpy's float sum starts from -0.0
  if (parts > 1) {
    // 1. The range's aggregate.
    S total = S::zero();
    if (one_tile) {
#pragma unroll
      for (int q = 0; q < kItems; ++q) total = total.plus(S::of(items[q]));
    } else {
      // A range of up to kStageTiles tiles is kept in shared memory for the scan; a longer one
      // is read again.
      uint32_t k = 0;
#pragma unroll 4
      for (uint64_t first = mine; first < p.range.end; first += kTile, ++k) {
        T more[kItems];
        load_items<T>(p.in, first, p.range.end, a, more);
        if (staged) {
#pragma unroll
          for (int u = 0; u < kWordsPerThread; ++u)
            delta_stage[stage_word(k, u)] = make_word<T>(more + u * kPerWord<T>);
        }
#pragma unroll
        for (int q = 0; q < kItems; ++q) total = total.plus(S::of(more[q]));
      }
    }
    total = warp_sum(total);
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    if (warp == 0) {
      S aggregate = lane < kThreads / kWarpSize ? warp_totals[lane] : S::zero();
      aggregate = warp_sum(aggregate);
      // 2. Publish, look back, publish the inclusive prefix.
      S before = S::zero();
      if (p.part == 0) {
        if (lane == 0) publish(states, index, aggregate, kRangeInclusive);
      } else {
        if (lane == 0) publish(states, index, aggregate, kRangeAggregate);
        before = look_back<S>(states, index, p.part, lane);
        if (lane == 0) {
          publish(states, index, before.plus(aggregate), kRangeInclusive);
          if constexpr (kFloat) checks.assumed[index] = before.rounded();
        }
      }
      if (lane == 0) before_shared = before;
    }
    __syncthreads();
    if (p.part > 0) {
      carry = before_shared;
      if constexpr (kFloat) carry_value = carry.rounded();
    }
  }
  // 3. The scan.
  uint64_t fail = UINT64_MAX;
  if (one_tile) {
    scan_tile<T>(shared, items, mine, p.range.end, p.out, a, carry, carry_value, fail);
  } else {
    uint32_t k = 0;
    for (uint64_t base = p.range.begin; base < p.range.end; base += kTile, ++k) {
      const uint64_t first = base + uint64_t{threadIdx.x} * kItems;
      if (staged) {
#pragma unroll
        for (int u = 0; u < kWordsPerThread; ++u) {
          const uint4 word = delta_stage[stage_word(k, u)];
#pragma unroll
          for (int q = 0; q < kPerWord<T>; ++q)
            items[u * kPerWord<T> + q] = word_element<T>(word, q);
        }
      } else {
        load_items<T>(p.in, first, p.range.end, a, items);
      }
      scan_tile<T>(shared, items, first, p.range.end, p.out, a, carry, carry_value, fail);
    }
  }
  if constexpr (kFloat) {
    if (fail != UINT64_MAX) atomicMin(&fail_shared, static_cast<unsigned long long>(fail));
    __syncthreads();
    if (threadIdx.x == 0 && fail_shared != UINT64_MAX)
      atomicMin(reinterpret_cast<unsigned long long*>(checks.fail) + p.chunk, fail_shared);
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

// Float decode, serially -----------------------------------------------------------------------
// numpy's cumsum adds in order and rounds after every addition, so no other grouping gives its
// bits (float addition is not associative): the sum is serial. One warp per chunk: the warp loads
// a tile of 32 * kFloatWords 16-byte words (coalesced; the next tile is prefetched into registers
// while the current one is summed), lane 0 runs the sum over the tile in shared memory, and the
// warp stores the tile. Starting from -0.0 makes the first sum x[0] itself (-0.0 + x == x).

constexpr int kFloatWarps = 4;
constexpr int kFloatWords = 2;  // 16-byte words per lane per tile

// With a speculative decode before it (`checked`), the kernel starts each chunk at its first
// element that the checks did not confirm (first_unconfirmed), from the confirmed sum before it,
// and skips chunks confirmed whole.

// The first element of chunk `chunk` (n elements) that the speculative decode did not confirm:
// its first failed check, or the start of a range whose assumed previous value differs from what
// the range before it wrote; n when every element was confirmed. The warp checks 32 ranges a step;
// every lane returns the result.
template <class T>
__device__ inline uint64_t first_unconfirmed(const DeviceChunkBatch& batch, size_t chunk,
                                             uint64_t n, const DeltaFloatChecks<T>& checks,
                                             unsigned lane) {
  const uint64_t failed = checks.fail[chunk];
  const uint64_t first = failed < n ? failed : n;
  const auto* out = reinterpret_cast<const unsigned char*>(batch.outputs[chunk]);
  for (uint32_t p0 = 1; p0 < checks.parts; p0 += kWarpSize) {
    const uint32_t p = p0 + lane;
    bool differs = false;
    uint64_t begin = 0;
    if (p < checks.parts) {
      begin = delta_scan_range(n, checks.parts, p, kScanItems<T>).begin;
      if (begin > 0 && begin < first) {
        const T written = delta_load<T>(out + (begin - 1) * sizeof(T));
        differs =
            float_bits(written) != float_bits(checks.assumed[uint64_t{chunk} * checks.parts + p]);
      }
    }
    const unsigned bad = __ballot_sync(kFullMask, differs);
    // Ranges ascend with p: the lowest lane that differs has the earliest start.
    if (bad != 0) return __shfl_sync(kFullMask, begin, __ffs(bad) - 1);
  }
  return first;
}

template <class T>
__global__ void __launch_bounds__(kFloatWarps* kWarpSize)
    delta_decode_float_kernel(DeviceChunkBatch batch, DeltaFloatChecks<T> checks) {
  __shared__ uint4 stage[kFloatWarps][kWarpSize * kFloatWords];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const size_t chunk = blockIdx.x * size_t{kFloatWarps} + warp;
  if (chunk >= batch.count) return;
  const bool checked = checks.fail != nullptr;
  if (!chunk_valid(batch, chunk, sizeof(T), lane == 0 && !checked)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const uint64_t start = checked ? first_unconfirmed<T>(batch, chunk, n, checks, lane) : 0;
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

namespace {

// Scratch layout, for count * parts ranges: their state words (16 bytes each) and flags (4 bytes
// each, rounded up to 16), zeroed together; the aggregates and inclusive prefixes of sums larger
// than 8 bytes (16 bytes each); the values float ranges assumed before them (8 bytes each); each
// chunk's first failed float check (8 bytes).
struct ScratchLayout {
  size_t flags, zeroed, aggregates, inclusives, assumed, fail, total;
};
ScratchLayout scratch_layout(size_t count, uint32_t parts) {
  const size_t ranges = count * size_t{parts};
  ScratchLayout l{};
  l.flags = ranges * 16;
  l.zeroed = l.flags + (ranges * 4 + 15) / 16 * 16;
  l.aggregates = l.zeroed;
  l.inclusives = l.aggregates + ranges * 16;
  l.assumed = l.inclusives + ranges * 16;
  l.fail = l.assumed + ranges * 8;
  l.total = l.fail + count * 8;
  return l;
}

}  // namespace

// In one run on an H100 (bench/RESULTS.md), 1 GiB batches: 1024 chunks of 1 MiB decoded fastest
// one range a chunk (float32 1270 GB/s, against 1183 in ranges of 32 KiB), 256 chunks of 4 MiB
// in ranges of 32 KiB (1140 against 873). Ranges of 8 and 16 KiB were slower (730 and 890 at
// 4 MiB), as were ranges too long for the stage (920 at 64 KiB).
uint32_t delta_decode_parts(size_t count, uint64_t max_chunk_bytes) {
  if (count >= kDeltaFillChunks) return 1;
  const uint64_t parts = (max_chunk_bytes + kStageBytes - 1) / kStageBytes;
  return static_cast<uint32_t>(std::clamp<uint64_t>(parts, 1, uint64_t{1} << 20));
}

size_t delta_decode_temp_bytes_in_parts(size_t count, uint32_t parts) {
  return scratch_layout(count, std::max<uint32_t>(parts, 1)).total;
}

size_t delta_decode_temp_bytes(size_t count, uint64_t max_chunk_bytes) {
  return delta_decode_temp_bytes_in_parts(count, delta_decode_parts(count, max_chunk_bytes));
}

namespace {

// parts: ranges per chunk (1 without scratch).
void decode(const DeviceChunkBatch& batch, DeltaType type, uint32_t parts, void* temp,
            Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  parts = temp == nullptr ? 1 : std::max<uint32_t>(parts, 1);
  RangeStates states;
  ScratchLayout layout{};
  auto* scratch = static_cast<std::byte*>(temp);
  if (temp != nullptr) {
    layout = scratch_layout(batch.count, parts);
    states.words = reinterpret_cast<ulonglong2*>(scratch);
    states.flags = reinterpret_cast<uint32_t*>(scratch + layout.flags);
    states.aggregates = reinterpret_cast<ulonglong2*>(scratch + layout.aggregates);
    states.inclusives = reinterpret_cast<ulonglong2*>(scratch + layout.inclusives);
    if (parts > 1) CUZARR_CUDA_CHECK(cudaMemsetAsync(scratch, 0, layout.zeroed, s));
  }
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    const unsigned grid = detail::grid_for(batch.count, parts);
    const size_t stage = parts > 1 ? kStageBytes : 0;
    DeltaFloatChecks<T> checks;
    if constexpr (std::is_floating_point_v<T>) {
      const auto warps = static_cast<unsigned>((batch.count + kFloatWarps - 1) / kFloatWarps);
      if (temp != nullptr) {  // speculative scan and checks, then the serial decode where needed
        checks.assumed = reinterpret_cast<T*>(scratch + layout.assumed);
        checks.fail = reinterpret_cast<uint64_t*>(scratch + layout.fail);
        checks.parts = parts;
        CUZARR_CUDA_CHECK(cudaMemsetAsync(checks.fail, 0xFF, batch.count * sizeof(uint64_t), s));
        delta_scan_kernel<T><<<grid, kThreads, stage, s>>>(batch, parts, states, checks);
        CUZARR_CUDA_CHECK(cudaGetLastError());
      }
      delta_decode_float_kernel<T><<<warps, kFloatWarps * kWarpSize, 0, s>>>(batch, checks);
    } else {
      delta_scan_kernel<T><<<grid, kThreads, stage, s>>>(batch, parts, states, checks);
    }
  });
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream) {
  decode(batch, type, 1, nullptr, stream);
}

void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, uint64_t max_chunk_bytes,
                        void* temp, Stream stream) {
  decode(batch, type, delta_decode_parts(batch.count, max_chunk_bytes), temp, stream);
}

void delta_decode_batch_in_parts(const DeviceChunkBatch& batch, DeltaType type, uint32_t parts,
                                 void* temp, Stream stream) {
  decode(batch, type, parts, temp, stream);
}

}  // namespace cuzarr::gpu
