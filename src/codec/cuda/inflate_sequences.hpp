// Batched execution of a deflate stream, for the CPU and the GPU: the decoder (inflate_next_to)
// fills an InflateBatch with up to kInflateBatchMatches matches, kInflateBatchLiterals literals
// and at most one stored block, and the batch is then written to the output in three phases
// whose work is independent within each phase, so that a GPU warp can spread it over its lanes:
//   1. the literals and the stored block (sources: the batch and the input);
//   2. the matches whose source lies entirely before the batch ("independent"), in any order;
//   3. the other matches, in stream order.
// A match reads only output before its own position: bytes before the batch (final), literals
// (phase 1), independent matches (phase 2) or earlier dependent matches (phase 3, in order), so
// every byte it reads is final when it runs.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kInflateBatchMatches = 32;
inline constexpr uint32_t kInflateBatchLiterals = 512;

/// A decoded stretch of output, not yet written. Positions are relative to `start`: a batch
/// spans at most 32 * 258 + 512 bytes before its stored block, which ends it.
struct InflateBatch {
  uint64_t start;  ///< output position of the batch's first byte
  uint64_t end;    ///< output position after the batch
  uint32_t literal_count;
  uint32_t match_count;
  uint64_t stored_in;      ///< input position of the stored block's bytes
  uint32_t stored_offset;  ///< its output position - start
  uint32_t stored_length;  ///< 0: no stored block
  bool end_of_stream;      ///< the stream ended with this batch
  unsigned char literals[kInflateBatchLiterals];
  uint16_t literal_offsets[kInflateBatchLiterals];  ///< output position - start
  uint32_t match_offset[kInflateBatchMatches];      ///< output position - start
  uint32_t match_length[kInflateBatchMatches];
  uint32_t match_distance[kInflateBatchMatches];
};

/// Collects inflate_next_to's literals in a batch.
struct InflateBatchSink {
  InflateBatch* batch;
  CUZARR_HOST_DEVICE bool full() const { return batch->literal_count == kInflateBatchLiterals; }
  CUZARR_HOST_DEVICE void put(uint64_t op, unsigned char byte) {
    batch->literals[batch->literal_count] = byte;
    batch->literal_offsets[batch->literal_count] = static_cast<uint16_t>(op - batch->start);
    ++batch->literal_count;
  }
};

/// Decodes the next batch of stream `s` (all checks of inflate_next_to: the status is the one
/// the step-by-step decoder gives at the same point).
CUZARR_HOST_DEVICE inline DeviceChunkStatus inflate_fill_batch(InflateStream& s,
                                                               InflateWorkspace& ws,
                                                               uint64_t capacity, InflateBatch& b) {
  b.start = s.op;
  b.end = s.op;
  b.literal_count = 0;
  b.match_count = 0;
  b.stored_length = 0;
  b.end_of_stream = false;
  InflateBatchSink sink{&b};
  while (b.match_count < kInflateBatchMatches) {
    InflateStep step;
    const DeviceChunkStatus status = inflate_next_to(s, ws, sink, capacity, step);
    if (status != DeviceChunkStatus::ok) return status;
    if (step.end) {
      b.end_of_stream = true;
      break;
    }
    if (step.distance != 0) {
      b.match_offset[b.match_count] = static_cast<uint32_t>(step.out_pos - b.start);
      b.match_length[b.match_count] = static_cast<uint32_t>(step.length);
      b.match_distance[b.match_count] = step.distance;
      ++b.match_count;
    } else if (step.length > 0) {  // a stored block ends the batch
      b.stored_in = step.in_pos;
      b.stored_offset = static_cast<uint32_t>(step.out_pos - b.start);
      b.stored_length = static_cast<uint32_t>(step.length);
      break;
    } else if (sink.full()) {
      break;
    }
  }
  b.end = s.op;
  return DeviceChunkStatus::ok;
}

/// Whether match m reads only output before the batch (phase 2).
CUZARR_HOST_DEVICE inline bool inflate_match_independent(const InflateBatch& b, uint32_t m) {
  return b.match_distance[m] >= uint64_t{b.match_offset[m]} + b.match_length[m];
}

/// Copies match m byte by byte (an overlapping match repeats what it has just written).
CUZARR_HOST_DEVICE inline void inflate_copy_match_serial(const InflateBatch& b, uint32_t m,
                                                         unsigned char* out) {
  unsigned char* dst = out + b.start + b.match_offset[m];
  const unsigned char* src = dst - b.match_distance[m];
  for (uint32_t t = 0; t < b.match_length[m]; ++t) dst[t] = src[t];
}

/// Writes a batch serially, phase by phase (the order the GPU warp follows).
CUZARR_HOST_DEVICE inline void inflate_write_batch_serial(const InflateBatch& b,
                                                          const unsigned char* in,
                                                          unsigned char* out) {
  for (uint32_t k = 0; k < b.literal_count; ++k)
    out[b.start + b.literal_offsets[k]] = b.literals[k];
  for (uint32_t t = 0; t < b.stored_length; ++t)
    out[b.start + b.stored_offset + t] = in[b.stored_in + t];
  for (uint32_t m = 0; m < b.match_count; ++m) {
    if (inflate_match_independent(b, m)) inflate_copy_match_serial(b, m, out);
  }
  for (uint32_t m = 0; m < b.match_count; ++m) {
    if (!inflate_match_independent(b, m)) inflate_copy_match_serial(b, m, out);
  }
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
