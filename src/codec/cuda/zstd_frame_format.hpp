// Zstandard frames (RFC 8878), decoded without heap memory for the CPU and the GPU: frames back
// to back, skippable frames, raw / RLE / compressed blocks, any window size, the optional content
// size and content checksum. Dictionaries are not supported (a frame naming one yields
// `unsupported`).
//
// The decoder is a state machine that turns the input into copy steps ("copy these literals,
// then this match") with every length, offset and table checked; the caller executes the steps
// in order, serially (zstd_decode_serial) or cooperatively (a GPU warp). All state that does not
// fit in registers lives in a caller-provided ZstdWorkspace.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/xxhash64.hpp"
#include "codec/cuda/zstd_literals.hpp"
#include "codec/cuda/zstd_sequences.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// The largest Window_Log decoded here: libzstd's (ZSTD_WINDOWLOG_MAX on 64-bit machines).
inline constexpr unsigned kZstdMaxWindowLog = 31;

inline constexpr uint32_t kZstdFrameMagic = 0xFD2FB528u;
/// Skippable frames: magic 0x184D2A50..0x184D2A5F, a 4-byte size, then that many bytes
/// (RFC 8878, 3.1.2).
inline constexpr uint32_t kZstdSkippableMagic = 0x184D2A50u;
inline constexpr uint32_t kZstdSkippableMask = 0xFFFFFFF0u;

/// Everything a frame decoder needs besides registers: the literal buffer and the entropy tables
/// kept from block to block (about 150 KiB).
struct ZstdWorkspace {
  ZstdLiteralState literals;
  ZstdSequenceTables sequences;
};

/// One step: either decode the block's Huffman literal streams (`huffman_streams` > 0: call
/// zstd_decode_literal_stream for each, in any order or at once), or copy `literal_length` bytes
/// from `literals`, then `match_length` bytes from `match_distance` bytes back, at out[op].
struct ZstdStep {
  const unsigned char* literals;
  uint64_t literal_length;
  uint64_t match_distance;
  uint64_t match_length;
  uint64_t op;
  uint32_t huffman_streams;
};

/// One sequence of a batch (ZstdFrameDecoder::next_sequences): `literal_length` bytes of the
/// block's literals from `literal_start`, then `match_length` bytes from `distance` bytes back.
/// Every field fits 32 bits: literals and matches stay within a block (at most 128 KiB), and an
/// offset code of at most 31 gives an offset below 2^32.
struct ZstdSequenceStep {
  uint32_t literal_start;
  uint32_t literal_length;
  uint32_t match_length;
  uint32_t distance;
};

/// The frame-level state machine. Call next() until it reports done or an error, executing each
/// step before the next call (the content checksum reads the output written so far).
struct ZstdFrameDecoder {
  enum class Phase : uint8_t { frame_start, block_start, sequences, block_end, frame_end };

  const unsigned char* in = nullptr;
  uint64_t in_size = 0;
  const unsigned char* out = nullptr;  ///< read only, for the checksum
  uint64_t capacity = 0;
  ZstdWorkspace* workspace = nullptr;
  bool verify_checksum = true;

  uint64_t ip = 0;  ///< input consumed
  uint64_t op = 0;  ///< output produced (by the steps returned so far)
  Phase phase = Phase::frame_start;
  bool any_frame = false;
  // The current frame.
  uint64_t frame_start = 0;
  uint64_t content_size = 0;
  bool has_content_size = false;
  bool has_checksum = false;
  bool last_block = false;
  uint64_t block_max = 0;
  uint64_t block_limit = 0;  ///< op may not pass this within the current block
  ZstdRepeatOffsets reps;
  // The current compressed block.
  ZstdLiterals literals;
  uint64_t literal_pos = 0;
  ZstdSequenceDecoder sequences;

  CUZARR_HOST_DEVICE void init(const unsigned char* input, uint64_t input_size,
                               const unsigned char* output, uint64_t output_capacity,
                               ZstdWorkspace* ws, bool verify) {
    in = input;
    in_size = input_size;
    out = output;
    capacity = output_capacity;
    workspace = ws;
    verify_checksum = verify;
  }

  /// Checks that n more bytes fit the block (corrupt_input) and the output (output_too_small).
  CUZARR_HOST_DEVICE DeviceChunkStatus room_for(uint64_t n) const {
    if (n > block_limit - op) return DeviceChunkStatus::corrupt_input;
    if (n > capacity - op) return DeviceChunkStatus::output_too_small;
    return DeviceChunkStatus::ok;
  }

  /// Parses a frame header at in[ip] (after the magic number; RFC 8878, 3.1.1.1).
  CUZARR_HOST_DEVICE DeviceChunkStatus read_frame_header() {
    if (ip >= in_size) return DeviceChunkStatus::corrupt_input;
    const unsigned descriptor = in[ip++];
    const unsigned fcs_flag = descriptor >> 6;
    const bool single_segment = (descriptor >> 5) & 1u;
    if ((descriptor >> 3) & 1u) return DeviceChunkStatus::corrupt_input;  // reserved bit
    has_checksum = (descriptor >> 2) & 1u;
    const unsigned dict_flag = descriptor & 3u;
    const unsigned dict_bytes = dict_flag == 3 ? 4 : dict_flag;
    // Frame_Content_Size takes 0/1 (flag 0: 1 byte only with Single_Segment), 2, 4 or 8 bytes.
    const unsigned fcs_bytes = fcs_flag == 0 ? (single_segment ? 1 : 0) : 1u << fcs_flag;
    const uint64_t needed = (single_segment ? 0 : 1) + dict_bytes + fcs_bytes;
    if (needed > in_size - ip) return DeviceChunkStatus::corrupt_input;
    uint64_t window = 0;
    if (!single_segment) {
      // Window_Size = 2^(10 + Exponent) + Mantissa / 8 of that (RFC 8878, 3.1.1.1.2).
      const unsigned w = in[ip++];
      // 3.1.1.1.2 lets a decoder refuse a frame that needs more memory than it allows: libzstd
      // refuses Window_Log above 31, so such a frame is left to the CPU library and its error.
      if (10 + (w >> 3) > kZstdMaxWindowLog) return DeviceChunkStatus::unsupported;
      const uint64_t base = uint64_t{1} << (10 + (w >> 3));
      window = base + (base / 8) * (w & 7u);
    }
    uint64_t dict_id = 0;
    for (unsigned i = 0; i < dict_bytes; ++i) dict_id |= uint64_t{in[ip + i]} << (8 * i);
    ip += dict_bytes;
    if (dict_id != 0) return DeviceChunkStatus::unsupported;
    uint64_t fcs = 0;
    for (unsigned i = 0; i < fcs_bytes; ++i) fcs |= uint64_t{in[ip + i]} << (8 * i);
    ip += fcs_bytes;
    if (fcs_bytes == 2) fcs += 256;  // the 2-byte field stores size - 256
    has_content_size = fcs_bytes > 0;
    content_size = fcs;
    if (single_segment) window = fcs;  // the window is the whole content
    // Block_Maximum_Size = min(Window_Size, 128 KiB) (RFC 8878, 3.1.1.2.4).
    block_max = window < kZstdMaxBlockSize ? window : kZstdMaxBlockSize;
    if (has_content_size && content_size > capacity - op) {
      return DeviceChunkStatus::output_too_small;
    }
    return DeviceChunkStatus::ok;
  }

  /// Starts a frame: repeat offsets and entropy tables do not carry over from a previous frame.
  CUZARR_HOST_DEVICE void reset_frame_state() {
    frame_start = op;
    reps = ZstdRepeatOffsets{};
    workspace->literals.huffman_valid = false;
    for (int k = 0; k < 3; ++k) workspace->sequences.valid[k] = false;
  }

  /// In the sequences phase with sequences left: decodes up to `max` of the block's sequences
  /// into steps[0, count), with every check of a step (a literal length within the literals, a
  /// match within the frame's output so far, the block's and the output's room).
  CUZARR_HOST_DEVICE DeviceChunkStatus next_sequences(ZstdSequenceStep* steps, uint32_t max,
                                                      uint32_t& count) {
    // The decoder's fields are copied into locals: the loop keeps them in registers.
    uint32_t n = 0;
    uint64_t o = op, lp = literal_pos;
    ZstdRepeatOffsets r = reps;
    const uint64_t literal_count = literals.size, start = frame_start, limit = block_limit,
                   cap = capacity;
    const DeviceChunkStatus s = sequences.decode(
        workspace->sequences, max, [&](uint32_t ll, uint32_t ml, uint32_t offset_value) {
          uint64_t offset = 0;
          if (!r.resolve(offset_value, ll, offset)) return DeviceChunkStatus::corrupt_input;
          if (ll > literal_count - lp) return DeviceChunkStatus::corrupt_input;
          // A match may reach back to the start of the frame, no further (no dictionary).
          if (offset > o + ll - start) return DeviceChunkStatus::corrupt_input;
          if (ml > limit - o || ll > limit - o - ml) return DeviceChunkStatus::corrupt_input;
          if (ll + ml > cap - o) return DeviceChunkStatus::output_too_small;
          steps[n++] =
              ZstdSequenceStep{static_cast<uint32_t>(lp), ll, ml, static_cast<uint32_t>(offset)};
          lp += ll;
          o += ll + ml;
          return DeviceChunkStatus::ok;
        });
    count = n;
    op = o;
    literal_pos = lp;
    reps = r;
    return s;
  }

  /// Produces the next step (returns ok with done = false), finishes (ok, done = true), or fails.
  CUZARR_HOST_DEVICE DeviceChunkStatus next(ZstdStep& step, bool& done) {
    done = false;
    for (;;) {
      switch (phase) {
        case Phase::frame_start: {
          if (ip == in_size) {
            done = true;  // an input holds one or more frames
            return any_frame ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
          }
          if (in_size - ip < 4) return DeviceChunkStatus::corrupt_input;
          const uint32_t magic = load_le32(in + ip);
          if ((magic & kZstdSkippableMask) == kZstdSkippableMagic) {
            if (in_size - ip < 8) return DeviceChunkStatus::corrupt_input;
            const uint64_t skip = load_le32(in + ip + 4);
            if (skip > in_size - ip - 8) return DeviceChunkStatus::corrupt_input;
            ip += 8 + skip;
            any_frame = true;
            continue;
          }
          if (magic != kZstdFrameMagic) return DeviceChunkStatus::corrupt_input;
          ip += 4;
          reset_frame_state();
          const DeviceChunkStatus s = read_frame_header();
          if (s != DeviceChunkStatus::ok) return s;
          phase = Phase::block_start;
          continue;
        }
        case Phase::block_start: {
          // Block header: 3 bytes little-endian: Last_Block, Block_Type (2 bits), Block_Size
          // (RFC 8878, 3.1.1.2.1).
          if (in_size - ip < 3) return DeviceChunkStatus::corrupt_input;
          const uint32_t header =
              uint32_t{in[ip]} | uint32_t{in[ip + 1]} << 8 | uint32_t{in[ip + 2]} << 16;
          ip += 3;
          last_block = header & 1u;
          const unsigned type = (header >> 1) & 3u;
          const uint64_t size = header >> 3;
          if (type == 3 || size > block_max) return DeviceChunkStatus::corrupt_input;
          block_limit = op + block_max;
          const Phase after = last_block ? Phase::frame_end : Phase::block_start;
          if (type == 0) {  // raw
            if (size > in_size - ip) return DeviceChunkStatus::corrupt_input;
            const DeviceChunkStatus s = room_for(size);
            if (s != DeviceChunkStatus::ok) return s;
            step = ZstdStep{in + ip, size, 0, 0, op, 0};
            ip += size;
            op += size;
            phase = after;
            if (size > 0) return DeviceChunkStatus::ok;
            continue;
          }
          if (type == 1) {  // RLE: one byte, repeated `size` times: a literal and a match at 1
            if (in_size - ip < 1) return DeviceChunkStatus::corrupt_input;
            const DeviceChunkStatus s = room_for(size);
            if (s != DeviceChunkStatus::ok) return s;
            step = ZstdStep{in + ip, size > 0 ? 1u : 0u, 1, size > 0 ? size - 1 : 0, op, 0};
            ip += 1;
            op += size;
            phase = after;
            if (size > 0) return DeviceChunkStatus::ok;
            continue;
          }
          // Compressed: literals section, then sequences section, filling the block exactly.
          if (size > in_size - ip || size == 0) return DeviceChunkStatus::corrupt_input;
          const uint64_t block_end = ip + size;
          uint64_t used = 0;
          DeviceChunkStatus s =
              zstd_read_literals(in + ip, size, block_max, workspace->literals, literals, used);
          if (s != DeviceChunkStatus::ok) return s;
          ip += used;
          s = zstd_read_sequences_header(in + ip, block_end - ip, workspace->sequences, sequences);
          if (s != DeviceChunkStatus::ok) return s;
          ip = block_end;
          literal_pos = 0;
          phase = Phase::sequences;
          if (workspace->literals.pending.count > 0) {  // the caller decodes them first
            step = ZstdStep{nullptr, 0, 0, 0, op, workspace->literals.pending.count};
            return DeviceChunkStatus::ok;
          }
          continue;
        }
        case Phase::sequences: {
          if (sequences.remaining == 0) {
            if (sequences.has_stream && !sequences.finished_cleanly()) {
              return DeviceChunkStatus::corrupt_input;
            }
            phase = Phase::block_end;
            continue;
          }
          const uint64_t at = op;
          ZstdSequenceStep seq;
          uint32_t count = 0;
          const DeviceChunkStatus s = next_sequences(&seq, 1, count);
          if (s != DeviceChunkStatus::ok) return s;
          step = ZstdStep{literals.data + seq.literal_start,
                          seq.literal_length,
                          seq.distance,
                          seq.match_length,
                          at,
                          0};
          return DeviceChunkStatus::ok;
        }
        case Phase::block_end: {  // the literals left after the last sequence
          const uint64_t rest = literals.size - literal_pos;
          const DeviceChunkStatus s = room_for(rest);
          if (s != DeviceChunkStatus::ok) return s;
          step = ZstdStep{literals.data + literal_pos, rest, 0, 0, op, 0};
          literal_pos = literals.size;
          op += rest;
          phase = last_block ? Phase::frame_end : Phase::block_start;
          if (rest > 0) return DeviceChunkStatus::ok;
          continue;
        }
        case Phase::frame_end: {
          if (has_content_size && op - frame_start != content_size) {
            return DeviceChunkStatus::corrupt_input;
          }
          if (has_checksum) {
            // Content_Checksum: the low 32 bits of XXH64 (seed 0) of the frame's decoded content,
            // little-endian (RFC 8878, 3.1.1).
            if (in_size - ip < 4) return DeviceChunkStatus::corrupt_input;
            if (verify_checksum) {
              const uint64_t h = xxh64(out + frame_start, op - frame_start);
              if (static_cast<uint32_t>(h) != load_le32(in + ip)) {
                return DeviceChunkStatus::checksum_mismatch;
              }
            }
            ip += 4;
          }
          any_frame = true;
          phase = Phase::frame_start;
          continue;
        }
      }
    }
  }
};

/// Executes a step serially (the reference for cooperative executors).
CUZARR_HOST_DEVICE inline void zstd_execute_step_serial(const ZstdStep& step, unsigned char* out) {
  uint64_t op = step.op;
  for (uint64_t t = 0; t < step.literal_length; ++t) out[op + t] = step.literals[t];
  op += step.literal_length;
  for (uint64_t t = 0; t < step.match_length; ++t) {
    out[op + t] = out[match_source(op, step.match_distance, t)];
  }
}

/// Serial decoder of a Zstandard input (one or more frames, skippable frames) into
/// out[0, capacity): never reads past in[in_size) nor writes past out[capacity). Status:
/// corrupt_input (malformed, truncated, or no frame at all), output_too_small, unsupported (a
/// dictionary), checksum_mismatch (only when `verify_checksum`). On success `size` is the number
/// of bytes decoded.
CUZARR_HOST_DEVICE inline DecodeResult zstd_decode_serial(const unsigned char* in, uint64_t in_size,
                                                          unsigned char* out, uint64_t capacity,
                                                          ZstdWorkspace& workspace,
                                                          bool verify_checksum = true) {
  ZstdFrameDecoder decoder;
  decoder.init(in, in_size, out, capacity, &workspace, verify_checksum);
  for (;;) {
    ZstdStep step;
    bool done = false;
    const DeviceChunkStatus s = decoder.next(step, done);
    if (s != DeviceChunkStatus::ok) return {s, 0};
    if (done) return {DeviceChunkStatus::ok, decoder.op};
    for (unsigned k = 0; k < step.huffman_streams; ++k) {
      const DeviceChunkStatus h = zstd_decode_literal_stream(workspace.literals, k);
      if (h != DeviceChunkStatus::ok) return {h, 0};
    }
    zstd_execute_step_serial(step, out);
  }
}

}  // namespace cuzarr::gpu
