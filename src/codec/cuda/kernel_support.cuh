// Device-side helpers shared by the batched codec kernels: how a launch spreads chunks over thread
// blocks, and cooperative copies. For .cu files; the CPU tests compile the device code built on it
// with emulated warps (tests/codec/warp_emulator.hpp).
#pragma once

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#if defined(__CUDACC__)
#include "memory/cuda_check.hpp"
#endif

/// `#pragma unroll` for the device compiler only (the CPU tests compile some device code).
#if defined(__CUDACC__)
#define CUZARR_UNROLL _Pragma("unroll")
#else
#define CUZARR_UNROLL
#endif

namespace cuzarr::gpu::detail {

#if defined(__CUDACC__)
using ::cuzarr::detail::to_cuda;
#endif

__host__ __device__ inline uint64_t umin(uint64_t a, uint64_t b) { return a < b ? a : b; }
__host__ __device__ inline uint64_t umax(uint64_t a, uint64_t b) { return a < b ? b : a; }

/// Asks for the 128-byte line at p in the SM's L1 cache (a hint: no fault, no effect on the CPU).
__host__ __device__ inline void prefetch_l1(const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;
inline constexpr int kWarpSize = 32;

/// Thread blocks per chunk for kernels that split one chunk over several blocks: enough blocks
/// in total to fill the GPU (about 8192), at most 256 per chunk.
inline uint32_t parts_per_chunk(size_t count) {
  constexpr size_t kTargetBlocks = 8192;
  return static_cast<uint32_t>(
      std::clamp<size_t>(kTargetBlocks / std::max<size_t>(count, 1), 1, 256));
}

/// Grid size for count chunks of `parts` blocks each.
inline unsigned grid_for(size_t count, uint32_t parts) {
  return static_cast<unsigned>(count * parts);
}

#if defined(__CUDACC__)
/// Thread blocks of `kernel` (launched with `threads` threads and `shared_bytes` of dynamic shared
/// memory) that are resident at once on the current device: a grid of that many blocks is one
/// wave.
template <class Kernel>
inline uint64_t resident_blocks(Kernel kernel, int threads, size_t shared_bytes = 0) {
  int device = 0, sms = 0, per_sm = 0;
  CUZARR_CUDA_CHECK(cudaGetDevice(&device));
  CUZARR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUZARR_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  return uint64_t(std::max(sms, 1)) * uint64_t(std::max(per_sm, 1));
}
#endif

/// Copies n bytes from src to dst with the threads [rank, rank + ranks): 16-byte words when both
/// pointers have the same alignment, else 4-byte words of dst, each put together from the two
/// aligned source words that hold its bytes, four in flight per thread. Only bytes of src[0, n)
/// are read. Without kWide, always 4-byte words, one at a time: less code and fewer registers, for
/// a copy in a function kept out of line (warp_copy_long_items_out_of_line).
template <bool kWide = true>
__device__ inline void cooperative_copy(unsigned char* dst, const unsigned char* src, uint64_t n,
                                        uint64_t rank, uint64_t ranks) {
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (kWide && (d % 16) == (s % 16)) {
    const uint64_t head = umin(n, (16 - d % 16) % 16);
    const uint64_t words = (n - head) / 16;
    auto* dw = reinterpret_cast<uint4*>(dst + head);
    const auto* sw = reinterpret_cast<const uint4*>(src + head);
    for (uint64_t w = rank; w < words; w += ranks) dw[w] = sw[w];
    for (uint64_t t = rank; t < head; t += ranks) dst[t] = src[t];
    for (uint64_t t = head + words * 16 + rank; t < n; t += ranks) dst[t] = src[t];
    return;
  }
  // dst + head is 4-aligned; its word w holds src[head + 4w, head + 4w + 4), which starts `skew`
  // bytes into the aligned source word sw[w]. Words [first, last) read only sw[w] (and sw[w + 1]
  // when skew != 0) inside src[0, n); the bytes before and after them are copied one by one.
  const uint64_t head = umin(n, (4 - d % 4) % 4);
  const uint32_t skew = static_cast<uint32_t>((s + head) % 4);
  const uint64_t first = skew > head ? 1 : 0;
  const uint64_t span = n - head + skew;  // bytes of src from sw[0] on, plus the skew before src
  const uint64_t needed = skew != 0 ? 8 : 4;
  const uint64_t last = span >= needed ? umax(first, (span - needed) / 4 + 1) : first;
  auto* dw = reinterpret_cast<uint32_t*>(dst + head);
  const auto* sw = reinterpret_cast<const uint32_t*>(src + head - skew);
  const uint32_t low_shift = 8 * skew, high_shift = 32 - low_shift;
  const auto word = [&](uint64_t w) {
    // (high << 1) << (high_shift - 1): high << high_shift without a shift by 32 when skew is 0.
    return skew == 0 ? sw[w] : (sw[w] >> low_shift) | ((sw[w + 1] << 1) << (high_shift - 1));
  };
  uint64_t w = first + rank;
  if constexpr (kWide) {
    for (; w + 3 * ranks < last; w += 4 * ranks) {  // four words in flight per thread
      const uint32_t a = word(w), b = word(w + ranks), c = word(w + 2 * ranks),
                     e = word(w + 3 * ranks);
      dw[w] = a;
      dw[w + ranks] = b;
      dw[w + 2 * ranks] = c;
      dw[w + 3 * ranks] = e;
    }
  }
  for (; w < last; w += ranks) dw[w] = word(w);
  for (uint64_t t = rank; t < umin(n, head + 4 * first); t += ranks) dst[t] = src[t];
  for (uint64_t t = head + 4 * last + rank; t < n; t += ranks) dst[t] = src[t];
}

/// The low 32 bits of (hi:lo) >> shift, for shift < 32 (a funnel shift on the GPU).
__device__ inline uint32_t funnel_right(uint32_t lo, uint32_t hi, uint32_t shift) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, shift);
#else
  return static_cast<uint32_t>(((uint64_t{hi} << 32) | lo) >> shift);
#endif
}

/// Bytes [4 kQ + shift / 8, + 16) of a followed by b.
template <unsigned kQ>
__device__ inline uint4 bytes_from(const uint4& a, const uint4& b, uint32_t shift) {
  static_assert(kQ < 4);
  const uint32_t v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  return uint4{funnel_right(v[kQ], v[kQ + 1], shift), funnel_right(v[kQ + 1], v[kQ + 2], shift),
               funnel_right(v[kQ + 2], v[kQ + 3], shift),
               funnel_right(v[kQ + 3], v[kQ + 4], shift)};
}

/// dst[w] = word(w) for w < words, by the threads [rank, rank + ranks), kInFlight words in flight
/// per thread.
template <unsigned kInFlight, class Word>
__device__ inline void copy_words(uint4* __restrict__ dst, uint64_t words, uint64_t rank,
                                  uint64_t ranks, const Word& word) {
  uint64_t w = rank;
  for (; w + (kInFlight - 1) * ranks < words; w += kInFlight * ranks) {
    uint4 v[kInFlight];
    CUZARR_UNROLL
    for (unsigned i = 0; i < kInFlight; ++i) v[i] = word(w + i * ranks);
    CUZARR_UNROLL
    for (unsigned i = 0; i < kInFlight; ++i) dst[w + i * ranks] = v[i];
  }
  for (; w < words; w += ranks) dst[w] = word(w);
}

/// Copies n bytes from a 16-aligned src to any dst with the threads [rank, rank + ranks): 16-byte
/// stores, each put together from the two source words that hold its bytes, kInFlight in flight
/// per thread (cooperative_copy takes 4-byte words when the alignments differ). Only bytes of
/// src[0, n) are read.
template <unsigned kInFlight = 4>
__device__ inline void cooperative_copy_from_aligned(unsigned char* dst, const unsigned char* src,
                                                     uint64_t n, uint64_t rank, uint64_t ranks) {
  if (reinterpret_cast<uintptr_t>(src) % 16 != 0) {
    cooperative_copy(dst, src, n, rank, ranks);
    return;
  }
  // dst + head is 16-aligned; its word w holds src[head + 16 w, + 16), bytes head .. head + 15 of
  // the source words w and w + 1 (word w alone when head is 0), both inside src[0, n) for w below
  // `words`.
  const uint64_t head = umin(n, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  const uint64_t whole = (n - head) / 16;
  const uint64_t words = head == 0 ? whole : umin(whole, n / 16 >= 1 ? n / 16 - 1 : 0);
  auto* dw = reinterpret_cast<uint4*>(dst + head);
  const auto* __restrict__ sw = reinterpret_cast<const uint4*>(src);
  const auto shift = static_cast<uint32_t>(8 * (head % 4));
  const auto shifted = [&](auto q) {
    copy_words<kInFlight>(dw, words, rank, ranks, [&](uint64_t w) {
      return bytes_from<decltype(q)::value>(sw[w], sw[w + 1], shift);
    });
  };
  switch (head / 4) {
    case 0:
      if (head == 0) {
        copy_words<kInFlight>(dw, words, rank, ranks, [&](uint64_t w) { return sw[w]; });
      } else {
        shifted(std::integral_constant<unsigned, 0>{});
      }
      break;
    case 1:
      shifted(std::integral_constant<unsigned, 1>{});
      break;
    case 2:
      shifted(std::integral_constant<unsigned, 2>{});
      break;
    default:
      shifted(std::integral_constant<unsigned, 3>{});
      break;
  }
  for (uint64_t t = rank; t < head; t += ranks) dst[t] = src[t];
  for (uint64_t t = head + 16 * words + rank; t < n; t += ranks) dst[t] = src[t];
}

}  // namespace cuzarr::gpu::detail
