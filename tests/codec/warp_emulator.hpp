// Runs warp-cooperative device code (the .cuh decoders) on the CPU: 32 threads stand for the 32
// lanes of a warp and meet at a barrier for every warp intrinsic (__shfl_sync, __ballot_sync,
// __syncwarp, ...). Every lane must reach the same intrinsic call at the same time, as on the
// GPU with a full mask; a lane that calls another one (a divergent collective, undefined on the
// GPU) aborts the run with both source lines. Include this header before any device header (it
// defines the intrinsics).
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <source_location>
#include <thread>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__

/// CUDA's 16-byte vector type, for the cooperative copies.
struct uint4 {
  unsigned x, y, z, w;
};

namespace cuzarr::test::warp_emulation {

inline constexpr int kLanes = 32;

struct Warp {
  std::barrier<> barrier{kLanes};
  unsigned long long slots[kLanes] = {};
  unsigned lines[kLanes] = {};
};

inline thread_local Warp* current_warp = nullptr;
inline thread_local unsigned lane_id = 0;

/// Checks that every lane called the intrinsic at the same source line.
inline void meet(unsigned line) {
  Warp& w = *current_warp;
  w.lines[lane_id] = line;
  w.barrier.arrive_and_wait();
  for (int i = 0; i < kLanes; ++i) {
    if (w.lines[i] != line) {
      std::fprintf(stderr, "divergent warp intrinsic: lane %u at line %u, lane %d at line %u\n",
                   lane_id, line, i, w.lines[i]);
      std::abort();
    }
  }
  w.barrier.arrive_and_wait();
}

/// Every lane offers `value`; returns the value lane `from` offered.
inline unsigned long long exchange(unsigned long long value, unsigned from, unsigned line) {
  meet(line);
  Warp& w = *current_warp;
  w.slots[lane_id] = value;
  w.barrier.arrive_and_wait();
  const unsigned long long got = w.slots[from % kLanes];
  w.barrier.arrive_and_wait();
  return got;
}

/// Runs body(warp, lane) for `count` warps at once, 32 threads each, and waits for them. Warps
/// meet only through the memory they share (as the warps of a thread block do through shared
/// memory; __threadfence_block is a full fence here).
inline void run_warps(unsigned count, const std::function<void(unsigned, unsigned)>& body) {
  std::vector<Warp> warps(count);
  std::vector<std::thread> lanes;
  for (unsigned w = 0; w < count; ++w) {
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      lanes.emplace_back([&body, &warps, w, lane] {
        current_warp = &warps[w];
        lane_id = lane;
        body(w, lane);
      });
    }
  }
  for (auto& t : lanes) t.join();
}

/// Runs body(lane) on 32 threads, one per lane, and waits for them.
inline void run_warp(const std::function<void(unsigned)>& body) {
  run_warps(1, [&body](unsigned, unsigned lane) { body(lane); });
}

}  // namespace cuzarr::test::warp_emulation

using Site = std::source_location;

inline void __syncwarp(unsigned = 0xFFFFFFFFu, Site site = Site::current()) {
  cuzarr::test::warp_emulation::meet(site.line());
}
inline unsigned __shfl_sync(unsigned, unsigned value, unsigned from, Site site = Site::current()) {
  return static_cast<unsigned>(cuzarr::test::warp_emulation::exchange(value, from, site.line()));
}
inline int __shfl_sync(unsigned, int value, unsigned from, Site site = Site::current()) {
  return static_cast<int>(
      cuzarr::test::warp_emulation::exchange(static_cast<unsigned>(value), from, site.line()));
}
inline unsigned long long __shfl_sync(unsigned, unsigned long long value, unsigned from,
                                      Site site = Site::current()) {
  return cuzarr::test::warp_emulation::exchange(value, from, site.line());
}
template <class T>
inline T __shfl_xor_sync(unsigned, T value, int lane_mask, Site site = Site::current()) {
  using cuzarr::test::warp_emulation::lane_id;
  return static_cast<T>(cuzarr::test::warp_emulation::exchange(
      static_cast<unsigned long long>(value), lane_id ^ static_cast<unsigned>(lane_mask),
      site.line()));
}
template <class T>
inline T __shfl_up_sync(unsigned, T value, unsigned delta, Site site = Site::current()) {
  using cuzarr::test::warp_emulation::lane_id;
  const unsigned from = lane_id >= delta ? lane_id - delta : lane_id;
  return static_cast<T>(cuzarr::test::warp_emulation::exchange(
      static_cast<unsigned long long>(value), from, site.line()));
}
inline unsigned __ballot_sync(unsigned, bool predicate, Site site = Site::current()) {
  namespace e = cuzarr::test::warp_emulation;
  e::meet(site.line());
  e::Warp& w = *e::current_warp;
  w.slots[e::lane_id] = predicate ? 1 : 0;
  w.barrier.arrive_and_wait();
  unsigned mask = 0;
  for (int i = 0; i < e::kLanes; ++i) mask |= w.slots[i] ? 1u << i : 0u;
  w.barrier.arrive_and_wait();
  return mask;
}
inline unsigned __reduce_or_sync(unsigned, unsigned value, Site site = Site::current()) {
  namespace e = cuzarr::test::warp_emulation;
  e::meet(site.line());
  e::Warp& w = *e::current_warp;
  w.slots[e::lane_id] = value;
  w.barrier.arrive_and_wait();
  unsigned all = 0;
  for (int i = 0; i < e::kLanes; ++i) all |= static_cast<unsigned>(w.slots[i]);
  w.barrier.arrive_and_wait();
  return all;
}
inline bool __any_sync(unsigned mask, bool predicate, Site site = Site::current()) {
  return __ballot_sync(mask, predicate, site) != 0;
}
inline bool __all_sync(unsigned mask, bool predicate, Site site = Site::current()) {
  return __ballot_sync(mask, predicate, site) == mask;
}
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline int __ffs(unsigned x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
inline int __clz(unsigned x) { return x == 0 ? 32 : __builtin_clz(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffsll(long long x) {
  return x == 0 ? 0 : __builtin_ctzll(static_cast<unsigned long long>(x)) + 1;
}
/// The position of the offset-th set bit of mask at or above `base` (offset > 0), or 0xFFFFFFFF.
inline unsigned __fns(unsigned mask, unsigned base, int offset) {
  for (unsigned bit = base; bit < 32; ++bit) {
    if (((mask >> bit) & 1u) != 0 && --offset == 0) return bit;
  }
  return 0xFFFFFFFFu;
}
