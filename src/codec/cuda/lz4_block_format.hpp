// The LZ4 block format (lz4's doc/lz4_Block_format.md), written once for the CPU and the GPU: a
// sequence parser that checks every length and offset against the input and output bounds, a
// serial decoder built on it, and a greedy single-pass encoder whose output liblz4's
// LZ4_decompress_safe accepts.
//
// A block is a list of sequences: token (literal length in the high nibble, match length - 4 in
// the low nibble; 15 means "more length bytes follow, each adding up to 255"), the literals, a
// 2-byte little-endian match offset (1..65535) and the optional extra match length bytes. The last
// sequence has literals only and ends exactly at the end of the input.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/little_endian.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// One decoding step: copy `literal_length` input bytes from `literal_start`, then (unless `last`)
/// `match_length` bytes from `match_distance` bytes back in the output. LZ4 sequences and
/// blosclz instructions both decode into such steps.
struct CopyStep {
  uint64_t literal_start = 0;
  uint64_t literal_length = 0;
  uint64_t match_distance = 0;
  uint64_t match_length = 0;
  bool last = false;
};

/// Where match byte t of a match of `distance` starting at output `op` comes from. A match may
/// overlap its own output (distance < length): the copied bytes then repeat with period
/// `distance`, so every byte can be read from output written before the match started.
CUZARR_HOST_DEVICE inline uint64_t match_source(uint64_t op, uint64_t distance, uint64_t t) {
  return op - distance + (distance >= t + 1 ? t : t % distance);
}

/// Parses the LZ4 sequence at in[ip], given `op` bytes already produced and room for `capacity`.
/// Advances ip past it. Returns corrupt_input for a truncated sequence, a zero or too far offset,
/// output_too_small when the sequence would write past `capacity`.
CUZARR_HOST_DEVICE inline DeviceChunkStatus lz4_parse_sequence(const unsigned char* in,
                                                               uint64_t in_size, uint64_t& ip,
                                                               uint64_t op, uint64_t capacity,
                                                               CopyStep& step) {
  if (ip >= in_size) return DeviceChunkStatus::corrupt_input;
  const unsigned token = in[ip++];
  uint64_t literals = token >> 4;
  if (literals == 15) {
    unsigned extra;
    do {
      if (ip >= in_size) return DeviceChunkStatus::corrupt_input;
      extra = in[ip++];
      literals += extra;
    } while (extra == 255);
  }
  if (literals > in_size - ip) return DeviceChunkStatus::corrupt_input;
  if (literals > capacity - op) return DeviceChunkStatus::output_too_small;
  step.literal_start = ip;
  step.literal_length = literals;
  ip += literals;
  op += literals;
  if (ip == in_size) {  // the last sequence: literals only
    step.last = true;
    step.match_distance = 0;
    step.match_length = 0;
    return DeviceChunkStatus::ok;
  }
  step.last = false;
  if (in_size - ip < 2) return DeviceChunkStatus::corrupt_input;
  const uint64_t distance = load_le16(in + ip);
  ip += 2;
  if (distance == 0 || distance > op) return DeviceChunkStatus::corrupt_input;
  uint64_t length = (token & 15u) + 4;
  if ((token & 15u) == 15) {
    unsigned extra;
    do {
      if (ip >= in_size) return DeviceChunkStatus::corrupt_input;
      extra = in[ip++];
      length += extra;
    } while (extra == 255);
  }
  if (length > capacity - op) return DeviceChunkStatus::output_too_small;
  step.match_distance = distance;
  step.match_length = length;
  return DeviceChunkStatus::ok;
}

/// The result of decoding one block: status and bytes produced.
struct DecodeResult {
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  uint64_t size = 0;
};

/// Serial LZ4 block decoder: never reads past in[in_size) nor writes past out[capacity).
CUZARR_HOST_DEVICE inline DecodeResult lz4_decode_block_serial(const unsigned char* in,
                                                               uint64_t in_size, unsigned char* out,
                                                               uint64_t capacity) {
  uint64_t ip = 0, op = 0;
  for (;;) {
    CopyStep step;
    const DeviceChunkStatus status = lz4_parse_sequence(in, in_size, ip, op, capacity, step);
    if (status != DeviceChunkStatus::ok) return {status, op};
    for (uint64_t t = 0; t < step.literal_length; ++t) out[op + t] = in[step.literal_start + t];
    op += step.literal_length;
    if (step.last) return {DeviceChunkStatus::ok, op};
    for (uint64_t t = 0; t < step.match_length; ++t) {
      out[op + t] = out[match_source(op, step.match_distance, t)];
    }
    op += step.match_length;
  }
}

// Encoder ----------------------------------------------------------------------------------------

inline constexpr uint64_t kLz4MinMatch = 4;
/// The last 5 bytes of a block are literals, and the last match starts at least 12 bytes before
/// the end (lz4_Block_format.md, "End of block conditions"); LZ4_decompress_safe relies on both.
inline constexpr uint64_t kLz4LastLiterals = 5;
inline constexpr uint64_t kLz4MatchStartLimit = 12;
inline constexpr uint64_t kLz4MaxDistance = 65535;
/// The encoder's hash table of recent positions, as liblz4's LZ4_compress_default keeps it on a
/// 64-bit machine (lz4.c, LZ4_compress_generic): blocks below kLz4SmallBlock bytes hash their
/// 4-byte sequences into 2^13 entries, larger blocks their 5-byte sequences into 2^12 entries.
/// With 5 bytes a candidate more often begins a longer match, so larger blocks take fewer short
/// matches: on the quantized uint16 field, 4 MiB blocks of about 386 000 sequences instead of
/// 511 000 with 4 bytes (ratio 2.23 instead of 2.15), which the GPU also decodes 1.16x to 1.22x
/// faster at 1 to 4 MiB (bench/RESULTS.md, "the encoder writes liblz4's blocks").
/// A small block's positions fit 16 bits: its 2^13 entries are the halves of the 2^12 words.
inline constexpr uint64_t kLz4SmallBlock = 65536 + 11;
inline constexpr uint32_t kLz4SmallHashLog = 13;
inline constexpr uint32_t kLz4HashLog = 12;
/// 32-bit words the caller provides for the table.
inline constexpr uint32_t kLz4HashEntries = 1u << kLz4HashLog;

/// The most bytes the encoder writes for `size` input bytes (LZ4_COMPRESSBOUND).
CUZARR_HOST_DEVICE constexpr uint64_t lz4_encode_bound(uint64_t size) {
  return size + size / 255 + 16;
}

/// The hash of the sequence at p: its 4 bytes for small blocks, else its 5 bytes.
CUZARR_HOST_DEVICE inline uint32_t lz4_hash(const unsigned char* p, bool small) {
  if (small) return (load_le32(p) * 2654435761u) >> (32 - kLz4SmallHashLog);
  const uint64_t five = (uint64_t{load_le32(p)} | uint64_t{p[4]} << 32) << 24;
  return static_cast<uint32_t>((five * 889523592379ull) >> (64 - kLz4HashLog));
}

/// Appends one sequence (literals src[anchor, anchor + literals), then a match unless
/// match_length == 0) at dst[op]; returns false when it does not fit `capacity`.
CUZARR_HOST_DEVICE inline bool lz4_emit_sequence(const unsigned char* literals_begin,
                                                 uint64_t literals, uint64_t distance,
                                                 uint64_t match_length, unsigned char* dst,
                                                 uint64_t& op, uint64_t capacity) {
  const uint64_t match_code = match_length == 0 ? 0 : match_length - kLz4MinMatch;
  const uint64_t needed =
      1 + (literals >= 15 ? (literals - 15) / 255 + 1 : 0) + literals +
      (match_length == 0 ? 0 : 2 + (match_code >= 15 ? (match_code - 15) / 255 + 1 : 0));
  if (needed > capacity - op) return false;
  unsigned char* token = dst + op++;
  *token = static_cast<unsigned char>((literals >= 15 ? 15u : literals) << 4);
  if (literals >= 15) {
    uint64_t rest = literals - 15;
    for (; rest >= 255; rest -= 255) dst[op++] = 255;
    dst[op++] = static_cast<unsigned char>(rest);
  }
  for (uint64_t t = 0; t < literals; ++t) dst[op + t] = literals_begin[t];
  op += literals;
  if (match_length == 0) return true;
  store_le16(dst + op, static_cast<uint32_t>(distance));
  op += 2;
  *token |= static_cast<unsigned char>(match_code >= 15 ? 15u : match_code);
  if (match_code >= 15) {
    uint64_t rest = match_code - 15;
    for (; rest >= 255; rest -= 255) dst[op++] = 255;
    dst[op++] = static_cast<unsigned char>(rest);
  }
  return true;
}

/// Greedy LZ4 block encoder with a table of recent positions (`hash_table`, kLz4HashEntries
/// entries of scratch the caller provides), searching as liblz4's LZ4_compress_fast does with
/// `acceleration` (1: LZ4_compress_default, and so is 0, as in liblz4; its table, its hash, its
/// growing steps through data without matches), so that it takes the same matches. Returns the
/// encoded size, or 0 when it does not fit `capacity` (an empty input encodes to the single byte
/// 0). Inputs must be below 4 GiB.
CUZARR_HOST_DEVICE inline uint64_t lz4_encode_block(const unsigned char* src, uint64_t size,
                                                    unsigned char* dst, uint64_t capacity,
                                                    uint32_t* hash_table,
                                                    uint32_t acceleration = 1) {
  uint64_t op = 0, anchor = 0;
  if (acceleration == 0) acceleration = 1;  // a step of 0 would find the position itself
  if (size > kLz4MatchStartLimit) {
    const bool small = size < kLz4SmallBlock;
    // Every entry starts at position 0, the block's first byte, which the search then skips.
    for (uint32_t h = 0; h < kLz4HashEntries; ++h) hash_table[h] = 0;
    const uint64_t last_start = size - kLz4MatchStartLimit;  // matches start at or before this
    const uint64_t match_end_limit = size - kLz4LastLiterals;
    // Entry h of a small block's table: the 16-bit half h % 2 of word h / 2.
    const auto put = [&](uint32_t h, uint64_t ip) {
      if (!small) {
        hash_table[h] = static_cast<uint32_t>(ip);
        return;
      }
      const uint32_t shift = 16 * (h & 1u);
      uint32_t& word = hash_table[h >> 1];
      word = (word & ~(0xFFFFu << shift)) | static_cast<uint32_t>(ip) << shift;
    };
    // The candidate for position ip, which then takes its place in the table.
    const auto candidate_of = [&](uint64_t ip, uint64_t& candidate) {
      const uint32_t h = lz4_hash(src + ip, small);
      candidate = small ? (hash_table[h >> 1] >> (16 * (h & 1u))) & 0xFFFFu : hash_table[h];
      put(h, ip);
      return ip - candidate <= kLz4MaxDistance && load_le32(src + candidate) == load_le32(src + ip);
    };
    uint64_t ip = 1;
    for (;;) {
      // The search: the first step is 1, the next ones `acceleration`, growing by one every 64
      // positions without a match; a position is tried only while the next would still leave
      // room for a match.
      uint64_t from = 0;
      bool found = false;
      for (uint64_t probes = 0;; ++probes) {
        const uint64_t step = probes == 0 ? 1 : (64 * uint64_t{acceleration} + probes - 1) >> 6;
        if (ip + step > last_start + 1) break;
        if (candidate_of(ip, from)) {
          found = true;
          break;
        }
        ip += step;
      }
      if (!found) break;
      // The match also takes the equal bytes before it, back to the anchor.
      while (ip > anchor && from > 0 && src[ip - 1] == src[from - 1]) {
        --ip;
        --from;
      }
      for (;;) {
        uint64_t length = kLz4MinMatch;
        while (ip + length < match_end_limit && src[from + length] == src[ip + length]) ++length;
        if (!lz4_emit_sequence(src + anchor, ip - anchor, ip - from, length, dst, op, capacity)) {
          return 0;
        }
        ip += length;
        anchor = ip;
        if (ip > last_start) break;
        put(lz4_hash(src + ip - 2, small), ip - 2);
        // The position right after a match is tried on its own; a match there has no literals.
        if (!candidate_of(ip, from)) break;
      }
      if (ip > last_start) break;
      ++ip;
    }
  }
  if (!lz4_emit_sequence(src + anchor, size - anchor, 0, 0, dst, op, capacity)) return 0;
  return op;
}

// numcodecs.lz4 framing ------------------------------------------------------------------------

/// numcodecs.lz4 stores the decoded size as a 4-byte little-endian integer before one LZ4 block.
inline constexpr uint64_t kNumcodecsLz4HeaderSize = 4;

/// Serial numcodecs.lz4 decoder: the header's size must fit `capacity` and the block must decode
/// to exactly that size (an empty chunk, size 0, has no block to decode).
CUZARR_HOST_DEVICE inline DecodeResult numcodecs_lz4_decode_serial(const unsigned char* in,
                                                                   uint64_t in_size,
                                                                   unsigned char* out,
                                                                   uint64_t capacity) {
  if (in_size < kNumcodecsLz4HeaderSize) return {DeviceChunkStatus::corrupt_input, 0};
  const uint64_t size = load_le32(in);
  if (size > capacity) return {DeviceChunkStatus::output_too_small, 0};
  if (size == 0) return {DeviceChunkStatus::ok, 0};
  DecodeResult r = lz4_decode_block_serial(in + kNumcodecsLz4HeaderSize,
                                           in_size - kNumcodecsLz4HeaderSize, out, size);
  if (r.status == DeviceChunkStatus::output_too_small ||
      (r.status == DeviceChunkStatus::ok && r.size != size)) {
    r.status = DeviceChunkStatus::corrupt_input;  // the block disagrees with its header
  }
  return r;
}

}  // namespace cuzarr::gpu
