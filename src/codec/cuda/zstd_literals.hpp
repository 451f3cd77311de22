// The literals section of a compressed Zstandard block (RFC 8878, 3.1.1.3.1): raw, RLE,
// Huffman-compressed (1 or 4 streams) or treeless (the previous block's Huffman table).
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zstd_huffman.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Block_Maximum_Size's upper bound (RFC 8878, 3.1.1.2.4): 128 KiB.
inline constexpr uint64_t kZstdMaxBlockSize = 128 * 1024;

/// Where a block's literals are: in the input (raw) or in the literal buffer.
struct ZstdLiterals {
  const unsigned char* data = nullptr;
  uint64_t size = 0;
};

/// The Huffman streams of a literals section, checked and located but not decoded yet: each
/// decodes independently (so up to four threads can share the work).
struct ZstdHuffmanStreams {
  uint32_t count;  ///< 0 (nothing to decode), 1 or 4
  const unsigned char* data[4];
  uint64_t size[4];
  uint64_t offset[4];    ///< where in the literal buffer stream k's literals go
  uint64_t literals[4];  ///< how many literals stream k decodes
};

/// What literal decoding keeps between blocks of a frame, and its buffer.
struct ZstdLiteralState {
  unsigned char buffer[kZstdMaxBlockSize];
  ZstdHuffmanTable huffman;
  ZstdHuffmanScratch scratch;
  ZstdHuffmanStreams pending;  ///< the current block's Huffman streams
  bool huffman_valid;          ///< a previous block of the frame defined a Huffman table
};

/// Decodes Huffman stream k (< state.pending.count) of the current block into the literal
/// buffer. corrupt_input when the stream is malformed or not consumed exactly.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_decode_literal_stream(ZstdLiteralState& state,
                                                                       unsigned k) {
  const ZstdHuffmanStreams& p = state.pending;
  return zstd_huffman_decode_stream(state.huffman, p.data[k], p.size[k], state.buffer + p.offset[k],
                                    p.literals[k]);
}

/// Reads the literals section at in[0, size) of a block of at most `block_max` decoded bytes.
/// `consumed`: the section's size. Raw and RLE literals are ready on return; Huffman-coded ones
/// are left in state.pending, to be decoded with zstd_decode_literal_stream before use (every
/// size is checked here already). corrupt_input for anything truncated or inconsistent, a
/// treeless section without an earlier table, or more literals than `block_max`.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_read_literals(const unsigned char* in,
                                                               uint64_t size, uint64_t block_max,
                                                               ZstdLiteralState& state,
                                                               ZstdLiterals& literals,
                                                               uint64_t& consumed) {
  state.pending.count = 0;
  if (size < 1) return DeviceChunkStatus::corrupt_input;
  const unsigned b0 = in[0];
  const unsigned type = b0 & 3u, size_format = (b0 >> 2) & 3u;
  if (type <= 1) {  // raw or RLE: Size_Format 00/10 -> 1 byte, 01 -> 2 bytes, 11 -> 3 bytes
    uint64_t header = 1, regenerated = b0 >> 3;
    if (size_format == 1) {
      header = 2;
      if (size < 2) return DeviceChunkStatus::corrupt_input;
      regenerated = (b0 >> 4) + (uint64_t{in[1]} << 4);
    } else if (size_format == 3) {
      header = 3;
      if (size < 3) return DeviceChunkStatus::corrupt_input;
      regenerated = (b0 >> 4) + (uint64_t{in[1]} << 4) + (uint64_t{in[2]} << 12);
    }
    if (regenerated > block_max) return DeviceChunkStatus::corrupt_input;
    if (type == 0) {
      if (regenerated > size - header) return DeviceChunkStatus::corrupt_input;
      literals = {in + header, regenerated};
      consumed = header + regenerated;
    } else {
      if (size - header < 1) return DeviceChunkStatus::corrupt_input;
      for (uint64_t i = 0; i < regenerated; ++i) state.buffer[i] = in[header];
      literals = {state.buffer, regenerated};
      consumed = header + 1;
    }
    return DeviceChunkStatus::ok;
  }
  // Compressed / treeless: Size_Format 00 -> 1 stream, 10-bit sizes, 3 bytes; 01 -> 4 streams,
  // 10 bits, 3 bytes; 10 -> 4 streams, 14 bits, 4 bytes; 11 -> 4 streams, 18 bits, 5 bytes.
  const unsigned streams = size_format == 0 ? 1 : 4;
  const unsigned header = size_format <= 1 ? 3 : size_format == 2 ? 4 : 5;
  const unsigned field = size_format <= 1 ? 10 : size_format == 2 ? 14 : 18;
  if (size < header) return DeviceChunkStatus::corrupt_input;
  uint64_t h = 0;
  for (unsigned i = header; i-- > 0;) h = (h << 8) | in[i];
  const uint64_t mask = (uint64_t{1} << field) - 1;
  const uint64_t regenerated = (h >> 4) & mask;
  uint64_t compressed = (h >> (4 + field)) & mask;
  if (regenerated > block_max) return DeviceChunkStatus::corrupt_input;
  if (compressed > size - header) return DeviceChunkStatus::corrupt_input;
  consumed = header + compressed;
  const unsigned char* payload = in + header;
  if (type == 2) {
    state.huffman_valid = false;
    uint64_t used = 0;
    const DeviceChunkStatus s =
        zstd_huffman_read_table(payload, compressed, state.huffman, state.scratch, used);
    if (s != DeviceChunkStatus::ok) return s;
    state.huffman_valid = true;
    payload += used;
    compressed -= used;
  } else if (!state.huffman_valid) {
    return DeviceChunkStatus::corrupt_input;  // treeless needs an earlier table in the frame
  }
  literals = {state.buffer, regenerated};
  ZstdHuffmanStreams& p = state.pending;
  if (streams == 1) {
    p.data[0] = payload;
    p.size[0] = compressed;
    p.offset[0] = 0;
    p.literals[0] = regenerated;
    p.count = 1;
    return DeviceChunkStatus::ok;
  }
  // Four streams: a jump table of three 2-byte sizes, then the streams; each of the first three
  // decodes (regenerated + 3) / 4 literals, the fourth the rest (RFC 8878, 3.1.1.3.1.6).
  if (compressed < 6) return DeviceChunkStatus::corrupt_input;
  p.size[0] = uint64_t{payload[0]} | uint64_t{payload[1]} << 8;
  p.size[1] = uint64_t{payload[2]} | uint64_t{payload[3]} << 8;
  p.size[2] = uint64_t{payload[4]} | uint64_t{payload[5]} << 8;
  const uint64_t total = p.size[0] + p.size[1] + p.size[2];
  if (total > compressed - 6) return DeviceChunkStatus::corrupt_input;
  p.size[3] = compressed - 6 - total;
  const uint64_t segment = (regenerated + 3) / 4;
  if (3 * segment > regenerated) return DeviceChunkStatus::corrupt_input;
  const unsigned char* stream = payload + 6;
  for (unsigned k = 0; k < 4; ++k) {
    p.data[k] = stream;
    p.offset[k] = k * segment;
    p.literals[k] = k < 3 ? segment : regenerated - 3 * segment;
    stream += p.size[k];
  }
  p.count = 4;
  return DeviceChunkStatus::ok;
}

}  // namespace cuzarr::gpu
