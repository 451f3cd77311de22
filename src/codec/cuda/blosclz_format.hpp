// The blosclz format as c-blosc 1.x decodes it (blosc/blosclz.c, blosclz_decompress), written once
// for the CPU and the GPU. The stream is a list of instructions; the first byte's top 3 bits are a
// level marker and ignored. ctrl < 32: ctrl + 1 literal bytes follow. ctrl >= 32: a match of
// (ctrl >> 5) + 2 bytes (7 in the top bits: 9 + the following length bytes, each adding up to 255)
// at distance ((ctrl & 31) << 8) + next byte + 1; when that byte is 255 and ctrl & 31 == 31, a
// 16-bit big-endian distance follows and the distance is that value + 8192. Every instruction is
// followed by the next ctrl byte; a stream that ends right after a match's bytes ends there
// WITHOUT copying that match (c-blosc breaks out of its loop before the copy), and c-blosc's
// caller then rejects the block as too short.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Parser state between blosclz instructions.
struct BlosclzCursor {
  uint64_t ip = 0;     ///< next input byte
  unsigned ctrl = 0;   ///< the pending instruction byte
  bool ended = false;  ///< no instruction left
};

/// Starts parsing `in_size` bytes; an empty stream decodes to nothing.
CUZARR_HOST_DEVICE inline BlosclzCursor blosclz_begin(const unsigned char* in, uint64_t in_size) {
  BlosclzCursor cursor;
  if (in_size == 0) {
    cursor.ended = true;
    return cursor;
  }
  cursor.ctrl = in[0] & 31u;
  cursor.ip = 1;
  return cursor;
}

/// Parses the pending instruction into `step` (literals only, or a match only) given `op` bytes
/// produced and room for `capacity`; sets step.last when the stream ends after it. A match that
/// ends the stream is returned with match_length 0 (not copied, as c-blosc does). Returns
/// corrupt_input for anything c-blosc's decoder rejects.
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosclz_next(const unsigned char* in, uint64_t in_size,
                                                         BlosclzCursor& c, uint64_t op,
                                                         uint64_t capacity, CopyStep& step) {
  step = CopyStep{};
  if (c.ctrl >= 32) {
    uint64_t length = (c.ctrl >> 5) - 1;
    uint64_t distance = uint64_t{c.ctrl & 31u} << 8;
    if (length == 6) {
      unsigned code;
      do {
        if (c.ip + 1 >= in_size) return DeviceChunkStatus::corrupt_input;
        code = in[c.ip++];
        length += code;
      } while (code == 255);
    } else if (c.ip + 1 >= in_size) {
      return DeviceChunkStatus::corrupt_input;
    }
    const unsigned code = in[c.ip++];
    length += 3;
    if (code == 255 && distance == (31u << 8)) {
      if (c.ip + 1 >= in_size) return DeviceChunkStatus::corrupt_input;
      distance = (uint64_t{in[c.ip]} << 8 | in[c.ip + 1]) + 8191 + 1;
      c.ip += 2;
    } else {
      distance += code + 1;
    }
    if (length > capacity - op) return DeviceChunkStatus::corrupt_input;
    if (distance > op) return DeviceChunkStatus::corrupt_input;
    if (c.ip >= in_size) {  // the stream ends before the match is copied
      c.ended = true;
      step.last = true;
      return DeviceChunkStatus::ok;
    }
    c.ctrl = in[c.ip++];
    step.match_distance = distance;
    step.match_length = length;
    return DeviceChunkStatus::ok;
  }
  const uint64_t literals = c.ctrl + 1;
  if (literals > capacity - op) return DeviceChunkStatus::corrupt_input;
  if (literals > in_size - c.ip) return DeviceChunkStatus::corrupt_input;
  step.literal_start = c.ip;
  step.literal_length = literals;
  c.ip += literals;
  if (c.ip >= in_size) {
    c.ended = true;
    step.last = true;
    return DeviceChunkStatus::ok;
  }
  c.ctrl = in[c.ip++];
  return DeviceChunkStatus::ok;
}

/// Serial blosclz decoder: the bytes produced (compare with the expected size), or corrupt_input.
CUZARR_HOST_DEVICE inline DecodeResult blosclz_decode_serial(const unsigned char* in,
                                                             uint64_t in_size, unsigned char* out,
                                                             uint64_t capacity) {
  BlosclzCursor c = blosclz_begin(in, in_size);
  uint64_t op = 0;
  while (!c.ended) {
    CopyStep step;
    const DeviceChunkStatus status = blosclz_next(in, in_size, c, op, capacity, step);
    if (status != DeviceChunkStatus::ok) return {status, op};
    for (uint64_t t = 0; t < step.literal_length; ++t) out[op + t] = in[step.literal_start + t];
    op += step.literal_length;
    for (uint64_t t = 0; t < step.match_length; ++t) {
      out[op + t] = out[match_source(op, step.match_distance, t)];
    }
    op += step.match_length;
  }
  return {DeviceChunkStatus::ok, op};
}

}  // namespace cuzarr::gpu
