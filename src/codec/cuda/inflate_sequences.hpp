// Batched execution of a deflate stream, for the CPU and the GPU. The decoder (inflate_next_to)
// fills an InflateBatch: the Huffman-coded literals in order, and *steps* in the shape of LZ4 and
// zstd sequences (a run of literals, then a match), up to kInflateBatchSteps steps and
// kInflateBatchLiterals literals, then at most one stored block, which ends the batch. The batch
// is then written to the output: step by step here (the CPU reference), or by a GPU warp 32 steps
// at a time (inflate_warp_decode.cuh: all literals of a group at once, then its matches in
// dependency waves). A match reads only output before its own position, which is final once the
// steps before it have run.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kInflateBatchSteps = 128;
inline constexpr uint32_t kInflateBatchLiterals = 1024;

/// One step of a batch packed in 64 bits: literal run length (bits 0..15), match length (16..31;
/// 0 for the trailing literals of a batch) and match distance (32..47).
struct InflateBatchStep {
  uint64_t packed;
  CUZARR_HOST_DEVICE static InflateBatchStep make(uint32_t literals, uint32_t length,
                                                  uint32_t distance) {
    return {uint64_t{literals} | uint64_t{length} << 16 | uint64_t{distance} << 32};
  }
  CUZARR_HOST_DEVICE uint32_t literal_length() const { return packed & 0xFFFFu; }
  CUZARR_HOST_DEVICE uint32_t match_length() const { return (packed >> 16) & 0xFFFFu; }
  CUZARR_HOST_DEVICE uint32_t match_distance() const { return (packed >> 32) & 0xFFFFu; }
};

/// A decoded stretch of output, not yet written: at most kInflateBatchSteps * 258 +
/// kInflateBatchLiterals bytes, then the stored block, if any.
struct InflateBatch {
  uint64_t start;          ///< output position of the batch's first byte
  uint64_t stored_in;      ///< input position of the stored block's bytes
  uint32_t stored_length;  ///< 0: no stored block (it follows the steps)
  uint32_t step_count;
  bool end_of_stream;  ///< the stream ended with this batch
  InflateBatchStep steps[kInflateBatchSteps];
  unsigned char literals[kInflateBatchLiterals];
};

/// Collects inflate_next_to's literals and matches in a batch. The counters live here (in
/// registers on the GPU) and are stored into the batch by `close`.
struct InflateBatchSink {
  InflateBatch* batch;
  uint32_t literals = 0;  ///< literals in the batch
  uint32_t run = 0;       ///< literals since the last match
  uint32_t steps = 0;
  /// One step is kept for the literals after the last match.
  CUZARR_HOST_DEVICE bool full() const {
    return literals == kInflateBatchLiterals || steps == kInflateBatchSteps - 1;
  }
  CUZARR_HOST_DEVICE void put(uint64_t, unsigned char byte) {
    batch->literals[literals++] = byte;
    ++run;
  }
  CUZARR_HOST_DEVICE bool take_match(uint64_t, uint32_t length, uint32_t distance) {
    batch->steps[steps++] = InflateBatchStep::make(run, length, distance);
    run = 0;
    return true;
  }
  /// Decodes literals and matches of the current Huffman block for as long as none of
  /// inflate_next_to's checks could fail: at least 16 input bytes ahead (no truncation, word-wide
  /// refills), room for a longest match in the output and in the batch, both codes in the primary
  /// tables, a valid length symbol and distance code, a distance within the output. It stops
  /// before any other symbol (end of block, a long code, anything invalid), which
  /// inflate_next_to then decodes with every check: the statuses are those of the careful path.
  CUZARR_HOST_DEVICE void decode_fast(InflateStream& s, const InflateWorkspace& ws,
                                      uint64_t capacity) {
    DeflateBitReader& bits = s.bits;
    constexpr uint32_t kFastMask = (1u << kHuffmanFastBits) - 1;
    constexpr uint32_t kDistanceMask = (1u << kDistanceFastBits) - 1;
    constexpr uint32_t kMaxMatch = 258;
    // Bits that the careful path buffered past the end of the input are zero padding: start only
    // where the buffer holds input bits alone.
    if (capacity < kMaxMatch || bits.pos + 16 > bits.size || s.op > capacity - kMaxMatch) return;
    // 32-bit counters from here: `produced` bytes since the call, at most `room` before any
    // symbol (every symbol then fits the output), distances up to `window` + produced.
    constexpr uint64_t kCounterCap = uint64_t{1} << 30;
    const uint64_t room_left = capacity - kMaxMatch - s.op, reach = s.op - s.window_start;
    const auto room = static_cast<uint32_t>(room_left < kCounterCap ? room_left : kCounterCap);
    const auto window = static_cast<uint32_t>(reach < kCounterCap ? reach : kCounterCap);
    uint32_t produced = 0;
    uint32_t run_start = literals - run;  // where the literals since the last match begin
    while (literals < kInflateBatchLiterals && produced <= room) {
      if (bits.count < kHuffmanFastBits) {
        if (bits.pos + 16 > bits.size) break;
        bits.refill_fast();
      }
      const uint32_t entry = ws.litlen.fast[bits.buffer & kFastMask];
      // A literal's entry is nonzero and below 256 << 4 (its length fields are 0).
      if (entry - 1u < (256u << 4) - 1u) {
        bits.consume(huffman_entry_bits(entry));
        batch->literals[literals++] = static_cast<unsigned char>(huffman_entry_symbol(entry));
        ++produced;
        continue;
      }
      const uint32_t symbol = huffman_entry_symbol(entry);
      if (entry == 0 || symbol == kDeflateEndOfBlock || symbol > 285) break;
      // RFC 1951, 3.2.5: the length's extra bits, the distance code, the distance's extra bits.
      // The buffer is refilled only when these need more bits than it holds; a refill keeps its
      // low bits, so `entry` and what was read from them stay valid.
      const uint32_t code_bits = huffman_entry_bits(entry);
      const uint32_t length_extra = huffman_entry_extra(entry);
      const uint32_t distance_at = code_bits + length_extra;  // where the distance code starts
      if (bits.count < distance_at + kDistanceFastBits) {
        if (bits.pos + 16 > bits.size) break;
        bits.refill_fast();
      }
      const uint32_t length =
          huffman_entry_base(entry) +
          static_cast<uint32_t>((bits.buffer >> code_bits) & ((1u << length_extra) - 1));
      const uint32_t distance_entry =
          ws.distance.fast[(bits.buffer >> distance_at) & kDistanceMask];
      const uint32_t distance_bits = huffman_entry_bits(distance_entry);
      if (distance_entry == 0 || huffman_entry_symbol(distance_entry) >= 30) break;
      const uint32_t distance_extra = huffman_entry_extra(distance_entry);
      const uint32_t match_bits = distance_at + distance_bits + distance_extra;  // <= 38
      if (bits.count < match_bits) {
        if (bits.pos + 16 > bits.size) break;
        bits.refill_fast();
      }
      const uint32_t distance =
          huffman_entry_base(distance_entry) +
          static_cast<uint32_t>((bits.buffer >> (distance_at + distance_bits)) &
                                ((1u << distance_extra) - 1));
      if (distance > window + produced) break;
      bits.consume(match_bits);
      batch->steps[steps++] = InflateBatchStep::make(literals - run_start, length, distance);
      run_start = literals;
      produced += length;
      if (steps == kInflateBatchSteps - 1) break;
    }
    s.op += produced;
    run = literals - run_start;
  }
  CUZARR_HOST_DEVICE void close() {
    if (run > 0) batch->steps[steps++] = InflateBatchStep::make(run, 0, 0);
    run = 0;
    batch->step_count = steps;
  }
};

/// Decodes the next batch of stream `s` (all checks of inflate_next_to: the status is the one
/// the step-by-step decoder gives at the same point).
CUZARR_HOST_DEVICE inline DeviceChunkStatus inflate_fill_batch(InflateStream& s,
                                                               InflateWorkspace& ws,
                                                               uint64_t capacity, InflateBatch& b) {
  const uint64_t start = s.op;
  b.start = start;
  b.stored_length = 0;
  bool end_of_stream = false;
  InflateBatchSink sink{&b};
  for (;;) {
    InflateStep step;
    const DeviceChunkStatus status = inflate_next_to(s, ws, sink, capacity, step);
    if (status != DeviceChunkStatus::ok) return status;
    if (step.end) {
      end_of_stream = true;
      break;
    }
    // The sink takes every match, so a step with bytes is a stored block: it ends the batch.
    if (step.length > 0) {
      b.stored_in = step.in_pos;
      b.stored_length = static_cast<uint32_t>(step.length);
      break;
    }
    if (sink.full()) break;
  }
  sink.close();
  b.end_of_stream = end_of_stream;
  return DeviceChunkStatus::ok;
}

/// Writes a batch serially, step by step (matches byte by byte: an overlapping match repeats
/// what it has just written).
CUZARR_HOST_DEVICE inline void inflate_write_batch_serial(const InflateBatch& b,
                                                          const unsigned char* in,
                                                          unsigned char* out) {
  unsigned char* dst = out + b.start;
  const unsigned char* literals = b.literals;
  for (uint32_t k = 0; k < b.step_count; ++k) {
    const InflateBatchStep step = b.steps[k];
    for (uint32_t t = 0; t < step.literal_length(); ++t) *dst++ = *literals++;
    const unsigned char* src = dst - step.match_distance();
    for (uint32_t t = 0; t < step.match_length(); ++t) *dst++ = src[t];
  }
  for (uint32_t t = 0; t < b.stored_length; ++t) dst[t] = in[b.stored_in + t];
}

/// inflate_run_serial through batches (`batch`: scratch for one batch).
CUZARR_HOST_DEVICE inline InflateResult inflate_run_batched_serial(
    const unsigned char* in, uint64_t size, uint64_t start, unsigned char* out, uint64_t capacity,
    uint64_t op, InflateWorkspace& ws, InflateBatch& batch) {
  InflateStream s;
  inflate_begin(s, ws, in, size, start, op);
  for (;;) {
    const DeviceChunkStatus status = inflate_fill_batch(s, ws, capacity, batch);
    if (status != DeviceChunkStatus::ok) return {status, s.op, s.bits.consumed_bytes()};
    inflate_write_batch_serial(batch, in, out);
    if (batch.end_of_stream) return {DeviceChunkStatus::ok, s.op, s.bits.pos};
  }
}

}  // namespace cuzarr::gpu
