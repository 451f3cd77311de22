// Warp execution of copy steps (CopyStep: literals, then a match) in groups of up to 32, and the
// blosclz decoder built on it (.cu files only; LZ4's is lz4_warp_decode.cuh). The steps of a stream
// are parsed one after the other, with every bounds check of its parser (by every lane alike, or by
// lane 0 for a parser with side effects, zstd's); lane k takes step k of the group. The group's
// output positions come from a prefix sum over the lanes; all literals of the group are copied at
// once, then its matches in waves: a match runs as soon as no earlier match of the group that is
// still pending writes a byte of its source (sources before the group, and literals of the group,
// are final). The lowest pending match is always ready, so every wave makes progress; matches that
// read far back (the common case) all run in the first wave.
//
// A lane copies a short item (up to kLaneItemBytes) itself, kLaneRoundBytes bytes per round (or
// fewer, the decoder's choice) with all loads before the stores; the warp copies longer items
// together. A match that overlaps its own output (distance < length) repeats with period
// `distance`: byte t reads source byte t % distance, always before the match's start, so its bytes
// can be copied in any order.
#pragma once

#include <cstdint>

#include "codec/cuda/blosclz_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu::detail {

/// Items longer than this are copied by the whole warp.
inline constexpr uint64_t kLaneItemBytes = 64;
/// Bytes a lane loads (then stores) per round of its own item.
inline constexpr int kLaneRoundBytes = 8;

__device__ inline uint64_t shfl64(uint64_t v, unsigned from) {
  return static_cast<uint64_t>(__shfl_sync(kFullMask, static_cast<unsigned long long>(v), from));
}

__device__ inline uint64_t warp_inclusive_sum64(uint64_t v, unsigned lane) {
  for (unsigned d = 1; d < kWarpSize; d <<= 1) {
    const uint64_t other =
        static_cast<uint64_t>(__shfl_up_sync(kFullMask, static_cast<unsigned long long>(v), d));
    if (lane >= d) v += other;
  }
  return v;
}

/// A lane's own item (at most kLaneItemBytes bytes) as 32-bit numbers: byte t of the item reads
/// source byte t % period. A period above kLaneModuloLimit is clamped to it (the item never
/// wraps then; so does a period of 0, which no parser lets through). `(x * magic) >> 16` is x /
/// period for every x below kLaneModuloLimit + kLaneRoundBytes (magic = ceil(2^16 / period); its
/// error, below x / 2^16 < 1 / 128, never reaches the next multiple of period), so each byte's
/// source index is found without a chain of wrap-around tests from byte to byte.
inline constexpr uint32_t kLaneModuloLimit = 128;
static_assert(kLaneItemBytes + kLaneRoundBytes <= kLaneModuloLimit);

struct LaneItemModulo {
  uint32_t period, magic;
  __device__ explicit LaneItemModulo(uint64_t full_period)
      : period(static_cast<uint32_t>(umin(full_period - 1, kLaneModuloLimit - 1)) + 1),
        magic((0x10000u + period - 1) / period) {}
  /// x % period for x < kLaneModuloLimit + kLaneRoundBytes.
  __device__ uint32_t operator()(uint32_t x) const { return x - period * ((x * magic) >> 16); }
};

/// What a lane whose own item has ended does in the rounds the other lanes still copy.
enum class LaneRounds {
  /// Skips the round's body: the warp decoders' choice. Predicated, the warp-per-chunk LZ4
  /// kernel spilled 146 bytes instead of 52 and decoded 64 KiB chunks 0.96x as fast on an H200.
  branched,
  /// Runs it with every load and store predicated off, so a round has no branch: the LZ4 team
  /// executors' choice. On an H200 it sped the split LZ4 decoder up 1.04x at 4 MiB and teams of
  /// one executor 1.04x at 1 MiB (bench/RESULTS.md, "copy rounds without a branch").
  predicated,
};

/// The rounds of the lanes' own items (n bytes each, none when n is 0): kRoundBytes bytes per
/// round, all loads before the stores. kWrap: byte t reads src[modulo(t)]; else src[t].
template <bool kWrap, int kRoundBytes, LaneRounds kRounds>
__device__ inline void lane_item_rounds(unsigned char* dst, const unsigned char* src, uint32_t n,
                                        const LaneItemModulo& modulo) {
  // At most kLaneRoundBytes: the range LaneItemModulo holds for.
  static_assert(kRoundBytes > 0 && kRoundBytes <= kLaneRoundBytes);
  uint32_t done = 0, r = 0;  // r = done % period
  while (__any_sync(kFullMask, done < n)) {
    if (kRounds == LaneRounds::predicated || done < n) {
      unsigned char v[kRoundBytes];
      const unsigned char* from = kWrap ? src : src + done;
      CUZARR_UNROLL
      for (int j = 0; j < kRoundBytes; ++j) {
        if (done + j < n) v[j] = from[kWrap ? modulo(r + j) : j];
      }
      unsigned char* to = dst + done;
      CUZARR_UNROLL
      for (int j = 0; j < kRoundBytes; ++j) {
        if (done + j < n) to[j] = v[j];
      }
      if (kWrap) r = modulo(r + kRoundBytes);
      done += kRoundBytes;
    }
  }
}

/// warp_copy_items' long items: those of the lanes in `long_items`, one after the other, each by
/// the whole warp (cooperative_copy<kWide>).
template <bool kWide>
__device__ inline void warp_copy_long_items(unsigned long_items, unsigned char* dst,
                                            const unsigned char* src, uint64_t length,
                                            uint64_t period, unsigned lane) {
  while (long_items != 0) {
    const unsigned k = __ffs(long_items) - 1;
    long_items &= long_items - 1;
    auto* d = reinterpret_cast<unsigned char*>(shfl64(reinterpret_cast<uintptr_t>(dst), k));
    const auto* s =
        reinterpret_cast<const unsigned char*>(shfl64(reinterpret_cast<uintptr_t>(src), k));
    const uint64_t n = shfl64(length, k), p = shfl64(period, k);
    if (p >= n) {
      cooperative_copy<kWide>(d, s, n, lane, kWarpSize);
      continue;
    }
    // t = lane, lane + 32, ...: its source index t % p moves by 32 % p (mod p) per round.
    const uint64_t step = kWarpSize % p;
    uint64_t q = lane % p;
    for (uint64_t t = lane; t < n; t += kWarpSize) {
      d[t] = s[q];
      q += step;
      if (q >= p) q -= p;
    }
  }
}

/// warp_copy_long_items out of line, with the narrow copy (which needs few registers, so that the
/// caller keeps its own in registers around the call): warp_copy_items' choice for the split LZ4
/// decoder's part kernel (lz4_split_decode.cu), where it shrank the kernel by 9 % and sped the
/// split up 1.03x to 1.04x on an H200 (bench/RESULTS.md, "long copies out of line").
__device__ CUZARR_NOINLINE inline void warp_copy_long_items_out_of_line(
    unsigned long_items, unsigned char* dst, const unsigned char* src, uint64_t length,
    uint64_t period, unsigned lane) {
  warp_copy_long_items<false>(long_items, dst, src, length, period, lane);
}

/// Copies, for every lane with `active`, `length` bytes to dst: byte t from src[t % period]
/// (period >= length: a plain copy). The source bytes must not be written by any active item.
/// Every lane of the warp calls it; it does not synchronise the warp afterwards. kRoundBytes: the
/// bytes of a lane's round (at most kLaneRoundBytes). kLongItemsOutOfLine: items longer than
/// kLaneItemBytes take warp_copy_long_items_out_of_line. kRounds: see LaneRounds.
template <int kRoundBytes = kLaneRoundBytes, bool kLongItemsOutOfLine = false,
          LaneRounds kRounds = LaneRounds::branched>
__device__ inline void warp_copy_items(bool active, unsigned char* dst, const unsigned char* src,
                                       uint64_t length, uint64_t period, unsigned lane) {
  const bool own = active && length <= kLaneItemBytes;
  const uint32_t own_length = own ? static_cast<uint32_t>(length) : 0;
  // The modulo only when some lane's item repeats its source (an overlapping match).
  if (__any_sync(kFullMask, own && period < length)) {
    lane_item_rounds<true, kRoundBytes, kRounds>(dst, src, own_length,
                                                 LaneItemModulo(own ? period : 1));
  } else {
    lane_item_rounds<false, kRoundBytes, kRounds>(dst, src, own_length, LaneItemModulo(1));
  }
  const unsigned long_items = __ballot_sync(kFullMask, active && length > kLaneItemBytes);
  if (long_items == 0) return;
  if constexpr (kLongItemsOutOfLine) {
    warp_copy_long_items_out_of_line(long_items, dst, src, length, period, lane);
  } else {
    warp_copy_long_items<true>(long_items, dst, src, length, period, lane);
  }
}

/// One step of a group: `literal_length` bytes from `literals`, then a match
/// of `match_length` bytes from `match_distance` back.
struct WarpStep {
  const unsigned char* literals = nullptr;
  uint64_t literal_length = 0;
  uint64_t match_distance = 0;
  uint64_t match_length = 0;
};

/// What a parser reports with each step.
enum WarpStepFlags : int {
  kStepLast = 0x100,      ///< the stream ends after this step
  kStepEndGroup = 0x200,  ///< execute the group before parsing further
  kStepNone = 0x400,      ///< no step (the group ends without one)
};

/// Up to 32 parsed steps: lane k holds step k (k < count).
struct WarpStepGroup {
  WarpStep mine;
  unsigned count = 0;
  DeviceChunkStatus status = DeviceChunkStatus::ok;  ///< of the step after the group's last
  int flags = 0;                                     ///< of the group's last parse
};

/// How the lanes parse a group.
enum class WarpParse {
  lane0,    ///< lane 0 parses, then hands each step to its lane (parsers with side effects)
  uniform,  ///< every lane runs the same parse on the same bytes (no hand-over needed)
};

/// Parses up to 32 steps: `parse(op, step)` (`op` = bytes produced before the step; lane 0 only,
/// or every lane for WarpParse::uniform) returns a status in the low byte and WarpStepFlags. A
/// failing status or kStepNone ends the group without a step; kStepLast or kStepEndGroup end it
/// after the step.
template <WarpParse kMode, class Parse>
__device__ inline WarpStepGroup warp_parse_group(uint64_t op, unsigned lane, Parse&& parse) {
  WarpStepGroup g;
  for (unsigned k = 0; k < kWarpSize; ++k) {
    WarpStep s;
    int flags = 0;
    if (kMode == WarpParse::uniform || lane == 0) {
      flags = parse(op, s);
      op += s.literal_length + s.match_length;
    }
    if (kMode == WarpParse::lane0) flags = __shfl_sync(kFullMask, flags, 0);
    g.flags = flags;
    g.status = static_cast<DeviceChunkStatus>(flags & 0xFF);
    if (g.status != DeviceChunkStatus::ok || (flags & kStepNone)) break;
    if (kMode == WarpParse::lane0) {
      s.literals = reinterpret_cast<const unsigned char*>(
          shfl64(reinterpret_cast<uintptr_t>(s.literals), 0));
      s.literal_length = shfl64(s.literal_length, 0);
      s.match_distance = shfl64(s.match_distance, 0);
      s.match_length = shfl64(s.match_length, 0);
    }
    if (lane == k) g.mine = s;
    g.count = k + 1;
    if (flags & (kStepLast | kStepEndGroup)) break;
  }
  return g;
}

/// A lane's position for every lane: one shuffle for 32-bit positions, two for 64-bit ones.
__device__ inline uint64_t shfl_position(uint64_t v, unsigned from) { return shfl64(v, from); }
__device__ inline uint32_t shfl_position(uint32_t v, unsigned from) {
  return __shfl_sync(kFullMask, v, from);
}

/// What warp_match_waves_held asks besides the group: `holds(source, source_end)` (per lane) is
/// true while bytes of that source are not final for a reason outside the group (another warp
/// still writes them); `wait()` (every lane) waits for more of them to become final;
/// `advance(at)` (every lane, at the start of each wave) tells that every byte of the group before
/// `at` is final. This one holds nothing.
struct NothingHeld {
  static constexpr bool kNever = true;
  template <class Position>
  __device__ bool holds(Position, Position) const {
    return false;
  }
  __device__ void wait() {}
  template <class Position>
  __device__ void advance(Position) {}
};

/// The waves of warp_copy_matches: `copy(ready)` copies the matches of the lanes with `ready`
/// (sources final); every lane calls it. match_at must not decrease with the lane (lanes without a
/// match pass a position at or past the matches before them), the matches' outputs must be
/// disjoint, and every byte before the lowest pending match must be final unless `hold` holds
/// it. Position: uint64_t, or uint32_t where every position and end fits. Ends with __syncwarp.
template <class Position, class Hold, class Copy>
__device__ inline void warp_match_waves_held(bool pending, Position match_at, Position length,
                                             Position distance, unsigned lane, Hold& hold,
                                             Copy&& copy) {
  const Position source = pending ? match_at - distance : 0;
  const Position source_end =
      pending ? (source + length < match_at ? source + length : match_at) : 0;
  const Position match_end = match_at + (pending ? length : 0);
  for (unsigned waiting; (waiting = __ballot_sync(kFullMask, pending)) != 0;) {
    // Ready at once: a source that ends before the lowest pending match starts.
    const Position lowest_pending_at = shfl_position(match_at, __ffs(waiting) - 1);
    if constexpr (!Hold::kNever) hold.advance(lowest_pending_at);
    bool ready = pending && source_end <= lowest_pending_at;
    if (__any_sync(kFullMask, pending && !ready)) {
      // Else exactly: below = the lanes whose match starts before source_end (all earlier than
      // this lane); the last pending one among them is the only one that may reach into the
      // source, as the matches' outputs are disjoint and in lane order.
      unsigned below = 0;
      for (unsigned half = kWarpSize / 2; half > 0; half /= 2) {
        if (shfl_position(match_at, below + half - 1) < source_end) below += half;
      }
      if (shfl_position(match_at, below) < source_end) ++below;
      const unsigned earlier = waiting & (below >= kWarpSize ? kFullMask : (1u << below) - 1);
      const unsigned j = earlier != 0 ? kWarpSize - 1 - __clz(earlier) : lane;
      const Position blocking_end = shfl_position(match_end, j);
      ready = pending && (earlier == 0 || blocking_end <= source);
    }
    if constexpr (!Hold::kNever) {
      ready = ready && !hold.holds(source, source_end);
      if (!__any_sync(kFullMask, ready)) {
        hold.wait();
        continue;
      }
    }
    copy(ready);
    __syncwarp();
    pending = pending && !ready;
  }
}

/// warp_match_waves_held with nothing held outside the group: the lowest pending match is always
/// ready, so every wave makes progress.
template <class Copy>
__device__ inline void warp_match_waves(bool pending, uint64_t match_at, uint64_t length,
                                        uint64_t distance, unsigned lane, Copy&& copy) {
  NothingHeld nothing;
  warp_match_waves_held(pending, match_at, length, distance, lane, nothing, copy);
}

/// Copies the match of every lane with `pending` (`length` bytes at out[match_at], from
/// `distance` back) in waves (warp_match_waves); every lane calls it. Ends with __syncwarp: the
/// warp sees every byte written.
template <int kRoundBytes = kLaneRoundBytes>
__device__ inline void warp_copy_matches(bool pending, uint64_t match_at, uint64_t length,
                                         uint64_t distance, unsigned char* out, unsigned lane) {
  warp_match_waves(pending, match_at, length, distance, lane, [&](bool ready) {
    warp_copy_items<kRoundBytes>(ready, out + match_at, out + (ready ? match_at - distance : 0),
                                 length, distance, lane);
  });
}

/// Executes a group's steps at out[op, ...) (every lane calls it); returns op past the group. Ends
/// with __syncwarp: the warp sees every byte written. kRoundBytes: as warp_copy_items.
template <int kRoundBytes = kLaneRoundBytes>
__device__ inline uint64_t warp_execute_group(const WarpStepGroup& g, unsigned char* out,
                                              uint64_t op, unsigned lane) {
  const WarpStep& mine = g.mine;
  const bool has = lane < g.count;
  const uint64_t length = has ? mine.literal_length + mine.match_length : 0;
  const uint64_t end = op + warp_inclusive_sum64(length, lane);
  const uint64_t match_at = end - length + (has ? mine.literal_length : 0);
  // Literals, all at once.
  warp_copy_items<kRoundBytes>(has && mine.literal_length > 0, out + (end - length), mine.literals,
                               mine.literal_length, UINT64_MAX, lane);
  __syncwarp();
  // Matches, in waves. match_at never decreases with the lane.
  warp_copy_matches<kRoundBytes>(has && mine.match_length > 0, match_at,
                                 has ? mine.match_length : 0, mine.match_distance, out, lane);
  return shfl64(end, kWarpSize - 1);
}

/// Decodes a stream of copy steps into out[0, ...): `next(op, step)` (run by every lane alike,
/// with `op` bytes produced before the step) parses the next step with every bounds check (literals
/// at in + step.literal_start) and returns its status; step.last marks the final step. All lanes
/// return the same result: the status of the first failing step and the bytes produced before
/// it, or ok and the decoded size.
template <class Next>
__device__ inline DecodeResult warp_decode_steps(const unsigned char* in, unsigned char* out,
                                                 unsigned lane, Next&& next) {
  uint64_t op = 0;
  for (;;) {
    const WarpStepGroup g =
        warp_parse_group<WarpParse::uniform>(op, lane, [&](uint64_t at, WarpStep& s) {
          CopyStep step;
          const DeviceChunkStatus status = next(at, step);
          s.literals = in + step.literal_start;
          s.literal_length = step.literal_length;
          s.match_distance = step.match_distance;
          s.match_length = step.match_length;
          return static_cast<int>(status) | (step.last ? kStepLast : 0);
        });
    op = warp_execute_group(g, out, op, lane);
    if (g.status != DeviceChunkStatus::ok) return {g.status, op};
    if (g.flags & kStepLast) return {DeviceChunkStatus::ok, op};
  }
}

/// Warp-cooperative blosclz decode (every check in blosclz_next). All lanes return the same
/// result.
__device__ inline DecodeResult warp_blosclz_decode(const unsigned char* in, uint64_t in_size,
                                                   unsigned char* out, uint64_t capacity,
                                                   unsigned lane) {
  BlosclzCursor cursor = blosclz_begin(in, in_size);
  if (cursor.ended) return {DeviceChunkStatus::ok, 0};
  return warp_decode_steps(in, out, lane, [&](uint64_t op, CopyStep& step) {
    return blosclz_next(in, in_size, cursor, op, capacity, step);
  });
}

}  // namespace cuzarr::gpu::detail
