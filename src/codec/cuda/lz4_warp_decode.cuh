// Warp-cooperative decoding of one LZ4 block (lz4's doc/lz4_Block_format.md) with the token chain
// parsed 32 input positions at a time (.cu files only). Lane j reads the byte at ip + j as if a
// token started there and, when that token is "simple" (literals and the 2-byte offset inside the
// input, not the last sequence, offset not 0, each length nibble of 15 followed by one length
// byte below 255), where the next token would start. Following these links from ip (one shuffle
// per token) gives the true tokens of the window; their output positions come from a prefix sum,
// and the checks that need them (offset within the output so far, room in the output) are made
// per lane. The tokens before the first one that is not simple, or fails a check, join the group
// of steps; such a token is then parsed by lz4_parse_sequence (every lane alike), which reports
// exactly what the serial decoder reports. The group runs as in warp_copy_steps.cuh.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/warp_copy_steps.cuh"

namespace cuzarr::gpu::detail {

/// The link of a token that is not simple.
inline constexpr uint32_t kNoLink = 0xFFFFFFFFu;

/// Adds the next tokens of the block at in[ip] to `g` (lanes g.count, ...) until the group is
/// full, the block ends or a step fails. `ip` and `op` (bytes produced before ip's token) advance
/// past the steps added; every lane passes and gets the same values.
__device__ inline void warp_lz4_parse_group(const unsigned char* in, uint64_t in_size,
                                            uint64_t capacity, uint64_t& ip, uint64_t& op,
                                            unsigned lane, WarpStepGroup& g) {
  while (g.count < kWarpSize) {
    // Lane j: the token at p = ip + j, if it is simple.
    const uint64_t p = ip + lane;
    uint32_t link = kNoLink, literals = 0, match = 0, distance = 0, extended = 0;
    if (p < in_size) {
      const unsigned token = in[p];
      literals = token >> 4;
      match = token & 15u;
      uint64_t q = p + 1;
      bool simple = true;
      if (literals == 15) {  // one more length byte, below 255
        simple = q < in_size && in[q] != 255;
        if (simple) literals += in[q++];
        extended = 1;
      }
      if (simple && q + literals + 2 <= in_size) {
        distance = load_le16(in + q + literals);
        q += literals + 2;
        if (match == 15) {
          simple = q < in_size && in[q] != 255;
          if (simple) match += in[q++];
        }
        if (simple && distance != 0) link = static_cast<uint32_t>(q - ip);
      }
    }
    // Follow the chain from ip: the window's true tokens, in lane order.
    unsigned chain = 0;
    for (unsigned t = 0; t < kWarpSize;) {
      const unsigned next = __shfl_sync(kFullMask, link, t);
      if (next == kNoLink) break;
      chain |= 1u << t;
      t = next;
    }
    const bool on_chain = (chain >> lane) & 1u;
    const uint32_t length = on_chain ? literals + match + kLz4MinMatch : 0;
    uint32_t sum = length;  // inclusive prefix sum over the lanes (at most 32 x 544 bytes)
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      const uint32_t other = __shfl_up_sync(kFullMask, sum, d);
      if (lane >= d) sum += other;
    }
    const uint64_t before = op + (sum - length);  // bytes produced before this token
    const bool fails =
        on_chain && (literals + match + kLz4MinMatch > capacity - umin(capacity, before) ||
                     distance > before + literals);
    const unsigned failing = __ballot_sync(kFullMask, fails);
    if (failing != 0) chain &= (failing & (0u - failing)) - 1;  // the tokens before the first
    const unsigned room = kWarpSize - g.count;
    if (__popc(chain) > static_cast<int>(room)) chain &= (1u << __fns(chain, 0, room + 1)) - 1;
    const unsigned taken = __popc(chain);
    if (taken == 0) {
      // The token at ip is not simple (long lengths, the last sequence) or fails a check: the
      // scalar parser takes it, every lane alike.
      CopyStep step;
      const DeviceChunkStatus status = lz4_parse_sequence(in, in_size, ip, op, capacity, step);
      g.status = status;
      if (status != DeviceChunkStatus::ok) return;
      if (lane == g.count) {
        g.mine.literals = in + step.literal_start;
        g.mine.literal_length = step.literal_length;
        g.mine.match_distance = step.match_distance;
        g.mine.match_length = step.match_length;
      }
      ++g.count;
      op += step.literal_length + step.match_length;
      if (step.last) {
        g.flags = kStepLast;
        return;
      }
      continue;
    }
    // Lane g.count + r takes the chain's r-th token.
    const unsigned r = lane - g.count;
    const unsigned from = r < taken ? __fns(chain, 0, r + 1) : lane;
    const uint32_t got = __shfl_sync(kFullMask, distance | literals << 16 | extended << 31, from);
    const uint32_t got_match = __shfl_sync(kFullMask, match, from);
    if (r < taken) {
      g.mine.literals = in + ip + from + 1 + (got >> 31);
      g.mine.literal_length = (got >> 16) & 0x7FFFu;
      g.mine.match_distance = got & 0xFFFFu;
      g.mine.match_length = got_match + kLz4MinMatch;
    }
    const unsigned last = 31 - __clz(chain);
    ip += __shfl_sync(kFullMask, link, last);
    op += __shfl_sync(kFullMask, sum, last);
    g.count += taken;
  }
}

/// Warp-cooperative LZ4 block decode: every bounds check of lz4_parse_sequence, the same status
/// and size as lz4_decode_block_serial. All lanes return the same result.
__device__ inline DecodeResult warp_lz4_decode(const unsigned char* in, uint64_t in_size,
                                               unsigned char* out, uint64_t capacity,
                                               unsigned lane) {
  uint64_t ip = 0, op = 0, parsed = 0;
  for (;;) {
    WarpStepGroup g;
    warp_lz4_parse_group(in, in_size, capacity, ip, parsed, lane, g);
    op = warp_execute_group(g, out, op, lane);
    if (g.status != DeviceChunkStatus::ok) return {g.status, op};
    if (g.flags & kStepLast) return {DeviceChunkStatus::ok, op};
  }
}

}  // namespace cuzarr::gpu::detail
