// Warp-cooperative decoding of one LZ4 block (lz4's doc/lz4_Block_format.md) with the token chain
// parsed 32 input positions at a time (.cu files only). Lane j reads the byte at ip + j as if a
// token started there and, when that token is "simple" (literals and the 2-byte offset inside the
// input, not the last sequence, offset not 0, each length nibble of 15 followed by one length
// byte below 255), where the next token would start. The true tokens of the window are the
// positions reachable from ip through these links, found by pointer doubling (four rounds: a
// simple token takes at least 3 bytes, so at most 11 start in a window). Their output positions
// come from a prefix sum, and the checks that need them (offset within the output so far, room
// in the output) are made per lane. The tokens before the first one that is not simple, or fails
// a check, go to the warp's queue of steps in shared memory; such a token is then parsed by
// lz4_parse_sequence (every lane alike), which reports exactly what the serial decoder reports.
// Whenever the queue holds 32 steps (or the block ends), the warp executes 32 of them as one
// group (warp_copy_steps.cuh); the rest stay queued.
#pragma once

#include <cstdint>
#include <cstring>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/warp_copy_steps.cuh"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu::detail {

/// The link of a token that is not simple.
inline constexpr uint32_t kNoLink = 0xFFFFFFFFu;
/// Input blocks the warp decoder takes: positions and window ends fit 32 bits (liblz4 writes at
/// most LZ4_compressBound(0x7E000000) bytes).
inline constexpr uint64_t kLz4WarpMaxInput = 0x80000000u;

/// How far ahead of the window the parser asks for input (H200: 1.01x to 1.04x faster than none,
/// L2 prefetches 1 KiB ahead slower; bench/RESULTS.md).
inline constexpr uint64_t kLz4PrefetchAhead = 256;

/// 8 bytes at an 8-byte-aligned address: one access on the GPU.
__host__ __device__ inline uint64_t load_aligned_u64(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint64_t*>(p);
#else
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
#endif
}
__host__ __device__ inline void store_aligned_u64(unsigned char* p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint64_t*>(p) = v;
#else
  std::memcpy(p, &v, 8);
#endif
}

/// The bytes of the input word at aligned offset `at` that lie in the input, one at a time (zero
/// elsewhere): lz4_load_input_word's rare path (a word at the input's ends). Out of line: unrolled
/// and inlined at every load it was about 670 instructions, 8 % of the split decoder's part kernel,
/// and with it out of line the split ran 1.02x to 1.04x faster on an H200 (bench/RESULTS.md, "the
/// input's edge bytes out of line").
__device__ CUZARR_NOINLINE inline uint64_t lz4_load_input_edge(const unsigned char* in,
                                                               uint32_t size, uint32_t shift,
                                                               uint64_t at) {
  uint64_t word = 0;
  for (unsigned t = 0; t < 8; ++t) {
    if (at + t >= shift && at + t - shift < size) word |= uint64_t{in[at + t - shift]} << (8 * t);
  }
  return word;
}

/// 8 bytes of the input at aligned offset `at` (offsets counted from the 8-byte-aligned address
/// `shift` bytes before `in`): one aligned load when they all lie in the input, else the bytes that
/// do (lz4_load_input_edge).
__device__ inline uint64_t lz4_load_input_word(const unsigned char* in, uint32_t size,
                                               uint32_t shift, uint64_t at) {
  if (at >= shift && at - shift + 8 <= size) return load_aligned_u64(in + (at - shift));
  return lz4_load_input_edge(in, size, shift, at);
}

/// How far past a window's ip the window parser reads: the token of lane 31, a literal length
/// byte, 269 literals, the 2-byte offset and a match length byte (longer runs take the scalar
/// parser, which reads global memory).
inline constexpr uint32_t kLz4WindowReach = kWarpSize + 1 + (15 + 254) + 2 + 1;

/// The window parser's input read straight from global memory, the line kLz4PrefetchAhead bytes
/// ahead of each window asked for in L1 (the one-warp decoder, many warps an SM).
struct Lz4DirectInput {
  const unsigned char* in;
  uint32_t size;

  /// Every lane, at the start of each window at ip.
  __device__ void prepare(uint32_t ip, unsigned lane) {
    if (lane == 0 && ip < size) prefetch_l1(in + umin(uint64_t{ip} + kLz4PrefetchAhead, size - 1));
  }
  /// The byte at pos (from the window's ip, below ip + kLz4WindowReach and size).
  __device__ unsigned byte(uint32_t pos) const { return in[pos]; }
};

/// The window parser's input staged in shared memory (a team's parser, one warp of few an SM,
/// whose every window waited on its dependent global loads: token, length byte, offset). Each lane
/// loads its 8 bytes of the next 256-byte piece into a register one piece before it stores them
/// into a ring of 1 KiB, so the load has about eight windows of short sequences to arrive, and the
/// window's reads (at most kLz4WindowReach bytes past ip, all staged) cost a shared-memory access
/// each. Ring offsets are counted from the 8-byte-aligned address at or before `in` (`shift` bytes
/// before it).
struct Lz4StagedInput {
  static constexpr uint32_t kRingBytes = 1024, kPieceBytes = 256, kAhead = 512;
  static_assert(kPieceBytes == 8 * kWarpSize && kAhead + kPieceBytes <= kRingBytes);
  static_assert(kAhead >= kLz4WindowReach);
  const unsigned char* in;
  uint32_t size;
  unsigned char* ring;  // kRingBytes, 8-byte aligned (shared memory on the GPU)
  uint32_t shift;       // in's address mod 8
  uint32_t staged_end;  // aligned offsets before it are staged (the last kRingBytes of them)
  uint64_t next;        // this lane's word of the piece at staged_end: loaded, not stored yet

  __device__ Lz4StagedInput(const unsigned char* in_, uint32_t size_, unsigned char* ring_)
      : in(in_),
        size(size_),
        ring(ring_),
        shift(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(in_) & 7u)),
        staged_end(0),
        next(0) {}  // the first prepare() stages from ip's piece: nothing is staged yet

  /// This lane's 8 bytes of the piece at aligned offset `piece`.
  __device__ uint64_t load_word(uint32_t piece, unsigned lane) const {
    return lz4_load_input_word(in, size, shift, uint64_t{piece} + 8u * lane);
  }

  /// Every lane, at the start of each window at ip: stages the pieces up to kAhead bytes past ip
  /// (or the input's end), and loads the one after them. A window that starts past the staged
  /// bytes (after a literal run of the scalar parser) restages from ip's piece. The pieces still
  /// missing (at most three) are loaded before any is stored, not one after the other. The ring's
  /// bytes overwritten lie more than kRingBytes - kAhead - kPieceBytes before ip, where the
  /// parser never reads.
  __device__ void prepare(uint32_t ip, unsigned lane) {
    const uint32_t at = ip + shift;
    const uint32_t want = at + kAhead < size + shift ? at + kAhead : size + shift;
    if (staged_end >= want) return;
    if (at >= staged_end) {
      staged_end = at & ~(kPieceBytes - 1);
      next = load_word(staged_end, lane);
    }
    const uint32_t pieces = (want - staged_end + kPieceBytes - 1) / kPieceBytes;  // 1 to 3
    const uint64_t second = pieces > 1 ? load_word(staged_end + kPieceBytes, lane) : 0;
    const uint64_t third = pieces > 2 ? load_word(staged_end + 2 * kPieceBytes, lane) : 0;
    const uint64_t after = load_word(staged_end + pieces * kPieceBytes, lane);
    __syncwarp();  // every lane's reads of the ring before any store
    store_word(staged_end, next, lane);
    if (pieces > 1) store_word(staged_end + kPieceBytes, second, lane);
    if (pieces > 2) store_word(staged_end + 2 * kPieceBytes, third, lane);
    staged_end += pieces * kPieceBytes;
    next = after;
    __syncwarp();  // every lane's stores before any lane's reads
  }
  /// Stores this lane's word of the piece at aligned offset `piece` into the ring.
  __device__ void store_word(uint32_t piece, uint64_t word, unsigned lane) {
    store_aligned_u64(ring + ((piece + 8u * lane) & (kRingBytes - 1)), word);
  }
  /// The byte at pos (from the window's ip, below ip + kLz4WindowReach and size: staged).
  __device__ unsigned byte(uint32_t pos) const { return ring[(pos + shift) & (kRingBytes - 1)]; }
};

/// One parsed sequence waiting in a warp's queue: literals at in[literal_at], its output from
/// out[output_at] (the low 32 bits of the position: exact for outputs below 4 GiB).
struct Lz4QueuedStep {
  uint32_t literal_at, literal_length, match_distance, match_length, output_at;
};

/// A ring of parsed steps in shared memory (kSlots a power of two): step n in slots[n % kSlots].
template <unsigned kSlots>
struct Lz4StepRing {
  static_assert((kSlots & (kSlots - 1)) == 0);
  Lz4QueuedStep slots[kSlots];
};

/// Steps a warp's own queue holds: a group of 32, plus the most one window adds before it is full.
inline constexpr unsigned kLz4QueueSlots = 64;

/// The queue of one warp that parses and executes (1 KiB).
using Lz4StepQueue = Lz4StepRing<kLz4QueueSlots>;

/// Lane t's bit is set when lane t is reachable from lane 0 through the lanes' links (`next`: the
/// lane the link leads to, always a later one, or 32 or more for none), within 2^kRounds - 1 steps
/// (the window parser: position ip + t reachable from ip, at most 10 tokens on from it).
template <int kRounds = 4>
__device__ inline unsigned warp_reachable_lanes(unsigned next, unsigned lane) {
  unsigned reach = 1;  // lane 0: ip itself
  for (int round = 0;; ++round) {
    // Now `next` is the lane 2^round links ahead; reach holds the lanes within 2^round - 1 links.
    const bool reached = (reach >> lane) & 1u;
    reach |= __reduce_or_sync(kFullMask, reached && next < kWarpSize ? 1u << next : 0u);
    if (round == kRounds - 1) return reach;
    const unsigned further = __shfl_sync(kFullMask, next, next % kWarpSize);
    next = next < kWarpSize ? further : kWarpSize;
  }
}

/// Parses the block at input[ip] (Lz4DirectInput or Lz4StagedInput) into `queue` (slots tail, tail
/// + 1, ...) until at least `target` steps wait (`queued`), the block ends or a step fails; a call
/// adds at most target + 10 steps to `queued`. `ip` and `op` (bytes produced before ip's token)
/// advance past the steps queued; every lane passes and gets the same values. Returns the status of
/// the step that failed (ok when none did); `last` is set when the final sequence is queued.
template <class Input, unsigned kSlots>
__device__ inline DeviceChunkStatus warp_lz4_parse_steps(Input& input, uint64_t capacity,
                                                         uint32_t& ip, uint64_t& op, unsigned lane,
                                                         Lz4StepRing<kSlots>& queue, unsigned& tail,
                                                         unsigned& queued, bool& last,
                                                         unsigned target) {
  const unsigned char* const in = input.in;
  const uint32_t in_size = input.size;
  while (queued < target) {
    input.prepare(ip, lane);
    // Lane j: the token at p = ip + j, if it is simple.
    const uint32_t p = ip + lane;
    uint32_t link = kNoLink, literals = 0, match = 0, distance = 0, extended = 0;
    if (p < in_size) {
      const unsigned token = input.byte(p);
      literals = token >> 4;
      match = token & 15u;
      uint32_t q = p + 1;
      bool simple = true;
      if (literals == 15) {  // one more length byte, below 255
        const unsigned more = q < in_size ? input.byte(q) : 255u;
        simple = more != 255;
        if (simple) {
          literals += more;
          ++q;
        }
        extended = 1;
      }
      if (simple && q + literals + 2 <= in_size) {
        distance = input.byte(q + literals) | input.byte(q + literals + 1) << 8;
        q += literals + 2;
        if (match == 15) {
          const unsigned more = q < in_size ? input.byte(q) : 255u;
          simple = more != 255;
          if (simple) {
            match += more;
            ++q;
          }
        }
        if (simple && distance != 0) link = q - ip;
      }
    }
    // The window's true tokens: reachable from ip, with a link of their own.
    unsigned chain = warp_reachable_lanes(link < kWarpSize ? link : kWarpSize, lane) &
                     __ballot_sync(kFullMask, link != kNoLink);
    const bool on_chain = (chain >> lane) & 1u;
    const uint32_t length = on_chain ? literals + match + kLz4MinMatch : 0;
    uint32_t sum = length;  // inclusive prefix sum over the lanes (at most 32 x 544 bytes)
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      const uint32_t other = __shfl_up_sync(kFullMask, sum, d);
      if (lane >= d) sum += other;
    }
    // The checks in 32 bits: the output's room after op (no window fills 2^32 - 1 bytes), and op
    // itself up to 65535 (from there on no offset reaches before the start of the output).
    const auto room = static_cast<uint32_t>(umin(capacity - umin(capacity, op), 0xFFFFFFFFu));
    const auto near = static_cast<uint32_t>(umin(op, kLz4MaxDistance));
    const bool fails = on_chain && (sum > room || distance > near + (sum - length) + literals);
    const unsigned failing = __ballot_sync(kFullMask, fails);
    if (failing != 0) chain &= (failing & (0u - failing)) - 1;  // the tokens before the first
    if (chain == 0) {
      // The token at ip is not simple (long lengths, the last sequence) or fails a check: the
      // scalar parser takes it, every lane alike.
      CopyStep step;
      uint64_t at = ip;
      const DeviceChunkStatus status = lz4_parse_sequence(in, in_size, at, op, capacity, step);
      if (status != DeviceChunkStatus::ok) return status;
      if (lane == 0) {
        queue.slots[tail % kSlots] = {
            static_cast<uint32_t>(step.literal_start), static_cast<uint32_t>(step.literal_length),
            static_cast<uint32_t>(step.match_distance), static_cast<uint32_t>(step.match_length),
            static_cast<uint32_t>(op)};
      }
      ++tail;
      ++queued;
      ip = static_cast<uint32_t>(at);
      op += step.literal_length + step.match_length;
      if (step.last) {
        last = true;
        return DeviceChunkStatus::ok;
      }
      continue;
    }
    // The chain's r-th token goes to slot tail + r.
    if ((chain >> lane) & 1u) {
      const unsigned r = __popc(chain & ((1u << lane) - 1));
      queue.slots[(tail + r) % kSlots] = {p + 1 + extended, literals, distance,
                                          match + uint32_t{kLz4MinMatch},
                                          static_cast<uint32_t>(op) + (sum - length)};
    }
    const unsigned taken = __popc(chain);
    const unsigned end = 31 - __clz(chain);
    ip += __shfl_sync(kFullMask, link, end);
    op += __shfl_sync(kFullMask, sum, end);
    tail += taken;
    queued += taken;
  }
  return DeviceChunkStatus::ok;
}

/// Takes `count` (at most 32) steps of `queue` from slot `head` as a group (lane k: step k). Every
/// lane calls it; the slots are free again when it returns (ends with __syncwarp).
template <unsigned kSlots>
__device__ inline WarpStepGroup warp_lz4_take_steps(const unsigned char* in,
                                                    const Lz4StepRing<kSlots>& queue, unsigned head,
                                                    unsigned count, unsigned lane) {
  WarpStepGroup g;
  g.count = count;
  if (lane < count) {
    const Lz4QueuedStep s = queue.slots[(head + lane) % kSlots];
    g.mine.literals = in + s.literal_at;
    g.mine.literal_length = s.literal_length;
    g.mine.match_distance = s.match_distance;
    g.mine.match_length = s.match_length;
  }
  __syncwarp();
  return g;
}

/// Warp-cooperative LZ4 block decode: every bounds check of lz4_parse_sequence, the same status
/// and size as lz4_decode_block_serial (blocks of kLz4WarpMaxInput bytes or more: unsupported).
/// `queue` is the warp's own (shared memory on the GPU; Lz4StepQueue, or a larger ring). All lanes
/// return the same result. kRoundBytes: the bytes of a lane's copy round (warp_copy_items).
template <unsigned kSlots, int kRoundBytes = kLaneRoundBytes>
__device__ inline DecodeResult warp_lz4_decode(const unsigned char* in, uint64_t in_size,
                                               unsigned char* out, uint64_t capacity, unsigned lane,
                                               Lz4StepRing<kSlots>& queue) {
  static_assert(kSlots >= kLz4QueueSlots);
  if (in_size >= kLz4WarpMaxInput) return {DeviceChunkStatus::unsupported, 0};
  Lz4DirectInput input{in, static_cast<uint32_t>(in_size)};
  uint32_t ip = 0;
  uint64_t op = 0, parsed = 0;
  unsigned head = 0, tail = 0, queued = 0;
  bool last = false;
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  for (;;) {
    if (status == DeviceChunkStatus::ok && !last) {
      status = warp_lz4_parse_steps(input, capacity, ip, parsed, lane, queue, tail, queued, last,
                                    kWarpSize);
    }
    if (queued == 0) return {status, op};
    __syncwarp();  // the queued steps are visible to every lane
    const unsigned count = queued < kWarpSize ? queued : kWarpSize;
    op = warp_execute_group<kRoundBytes>(warp_lz4_take_steps(in, queue, head, count, lane), out, op,
                                         lane);
    head += count;
    queued -= count;
  }
}

}  // namespace cuzarr::gpu::detail
