// Huffman coding of Zstandard literals (RFC 8878, 4.2): the tree description (weights, either
// FSE-compressed or 4 bits each), the canonical decoding table built from the weights, and the
// decoding of one backward bitstream of literals.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zstd_bit_reader.hpp"
#include "codec/cuda/zstd_fse.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Longest Huffman code of a Zstandard literal (RFC 8878, 4.2.1: Max_Number_of_Bits <= 11).
inline constexpr unsigned kZstdMaxHuffmanBits = 11;
/// Accuracy log limit of the FSE table that compresses Huffman weights (RFC 8878, 4.2.1.2).
inline constexpr unsigned kZstdMaxWeightFseLog = 6;

struct ZstdHuffmanCell {
  uint8_t symbol;
  uint8_t bits;
};

/// A decoding table indexed by the next max_bits bits of the stream.
struct ZstdHuffmanTable {
  ZstdHuffmanCell cells[1u << kZstdMaxHuffmanBits];
  uint32_t max_bits;
};

/// Scratch for reading a tree description.
struct ZstdHuffmanScratch {
  uint8_t weights[256];
  ZstdFseCell weight_cells[1u << kZstdMaxWeightFseLog];
};

/// Decodes the FSE-compressed weights in[0, size) (RFC 8878, 4.2.1.2): a table description, then
/// a backward bitstream read by two interleaved states. Decoding stops when a state update reads
/// past the start of the stream: the other state then gives the last weight.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_huffman_read_fse_weights(
    const unsigned char* in, uint64_t size, ZstdHuffmanScratch& scratch, unsigned& count) {
  int16_t probs[kZstdMaxFseSymbols];
  unsigned symbols = 0, log = 0;
  uint64_t used = 0;
  DeviceChunkStatus s =
      zstd_fse_read_description(in, size, kZstdMaxWeightFseLog, 12, probs, symbols, log, used);
  if (s != DeviceChunkStatus::ok) return s;
  if (used >= size) return DeviceChunkStatus::corrupt_input;
  s = zstd_fse_build(probs, symbols, log, scratch.weight_cells);
  if (s != DeviceChunkStatus::ok) return s;
  ZstdBackwardBitReader r;
  s = r.init(in + used, size - used);
  if (s != DeviceChunkStatus::ok) return s;
  uint32_t state[2];
  state[0] = static_cast<uint32_t>(r.read(log));
  state[1] = static_cast<uint32_t>(r.read(log));
  if (r.overflow) return DeviceChunkStatus::corrupt_input;
  count = 0;
  for (unsigned which = 0;; which ^= 1) {
    if (count >= 255) return DeviceChunkStatus::corrupt_input;
    const ZstdFseCell cell = scratch.weight_cells[state[which]];
    scratch.weights[count++] = cell.symbol;
    state[which] = cell.baseline + static_cast<uint32_t>(r.read(cell.bits));
    if (r.overflow) {
      if (count >= 255) return DeviceChunkStatus::corrupt_input;
      scratch.weights[count++] = scratch.weight_cells[state[which ^ 1]].symbol;
      return DeviceChunkStatus::ok;
    }
  }
}

/// Reads a Huffman tree description from in[0, size) and builds `table` (RFC 8878, 4.2.1).
/// `consumed`: bytes used. corrupt_input for truncated or inconsistent weights (a code longer
/// than 11 bits, or weights whose implied last weight is not a power of two).
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_huffman_read_table(const unsigned char* in,
                                                                    uint64_t size,
                                                                    ZstdHuffmanTable& table,
                                                                    ZstdHuffmanScratch& scratch,
                                                                    uint64_t& consumed) {
  if (size < 1) return DeviceChunkStatus::corrupt_input;
  const unsigned header = in[0];
  unsigned count = 0;
  if (header < 128) {  // FSE-compressed weights, `header` bytes
    if (header == 0 || header > size - 1) return DeviceChunkStatus::corrupt_input;
    const DeviceChunkStatus s = zstd_huffman_read_fse_weights(in + 1, header, scratch, count);
    if (s != DeviceChunkStatus::ok) return s;
    consumed = 1 + header;
  } else {  // header - 127 weights of 4 bits, the first in the high nibble
    count = header - 127;
    const uint64_t bytes = (count + 1) / 2;
    if (bytes > size - 1) return DeviceChunkStatus::corrupt_input;
    for (unsigned i = 0; i < count; ++i) {
      const unsigned byte = in[1 + i / 2];
      scratch.weights[i] = static_cast<uint8_t>(i % 2 == 0 ? byte >> 4 : byte & 15u);
    }
    consumed = 1 + bytes;
  }
  // The last symbol's weight is implied: the weights' 2^(w-1) must add up to a power of two
  // (RFC 8878, 4.2.1.3).
  uint32_t sum = 0;
  for (unsigned i = 0; i < count; ++i) {
    const unsigned w = scratch.weights[i];
    if (w > kZstdMaxHuffmanBits) return DeviceChunkStatus::corrupt_input;
    if (w > 0) sum += 1u << (w - 1);
  }
  if (sum == 0) return DeviceChunkStatus::corrupt_input;
  const unsigned max_bits = zstd_highbit(sum) + 1;
  if (max_bits > kZstdMaxHuffmanBits) return DeviceChunkStatus::corrupt_input;
  const uint32_t rest = (1u << max_bits) - sum;
  if ((rest & (rest - 1)) != 0) return DeviceChunkStatus::corrupt_input;
  scratch.weights[count] = static_cast<uint8_t>(zstd_highbit(rest) + 1);
  const unsigned symbols = count + 1;
  // Canonical codes: symbols of lower weight (longer codes) first, in symbol order within a
  // weight; a symbol of weight w covers 2^(w-1) cells of the 2^max_bits-cell table.
  uint32_t position = 0;
  for (unsigned w = 1; w <= max_bits; ++w) {
    const uint32_t span = 1u << (w - 1);
    const auto bits = static_cast<uint8_t>(max_bits + 1 - w);
    for (unsigned s = 0; s < symbols; ++s) {
      if (scratch.weights[s] != w) continue;
      for (uint32_t k = 0; k < span; ++k) {
        table.cells[position + k] = ZstdHuffmanCell{static_cast<uint8_t>(s), bits};
      }
      position += span;
    }
  }
  table.max_bits = max_bits;
  return position == (1u << max_bits) ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
}

/// Decodes symbols one at a time from any bit position of a Huffman-coded backward bitstream
/// in[0, size): `pos` is the number of bits not read yet, the next code ends at bit pos - 1.
/// Several threads can decode one stream from different places.
///
/// The stream is read as aligned 32-bit words (bytes outside the stream read as 0). The window
/// holds the word with the next unread bit and the word below it, so a code (at most 11 bits)
/// always lies inside it; the two words below the window are loaded ahead. When the window's
/// upper word is used up, the window moves down a word and one load is issued whose value is only
/// needed two moves (some 60 bits) later: the threads of a warp, whose windows move at different
/// symbols, no longer wait for one thread's load at almost every symbol.
struct ZstdHuffmanCursor {
  const unsigned char* in = nullptr;
  uint32_t size = 0;
  uint32_t pos = 0;
  uint32_t rel = 0;     ///< window bits below the next unread bit: (32, 64]
  int32_t word = 0;     ///< aligned index of the window's upper word
  uint64_t window = 0;  ///< words `word` (upper half) and `word` - 1
  uint32_t ahead[2]{};  ///< words `word` - 2 and `word` - 3

  /// Starts decoding at bit position p (<= the stream's bits).
  CUZARR_HOST_DEVICE void seek(uint32_t p) {
    pos = p;
    // Aligned space: stream byte i is byte i + skew of word 0.
    const uint32_t at = p + 8 * skew();
    word = (static_cast<int32_t>(at) - 1) >> 5;  // holds bit at - 1 (word -1 when at is 0)
    rel = at - 32 * static_cast<uint32_t>(word - 1);
    window = uint64_t{load(word)} << 32 | load(word - 1);
    ahead[0] = load(word - 2);
    ahead[1] = load(word - 3);
  }
  /// The table cell of the next code (pos > 0); bits below the stream's start read as 0.
  CUZARR_HOST_DEVICE ZstdHuffmanCell peek(const ZstdHuffmanTable& table) const {
    const uint32_t max_bits = table.max_bits;
    return table.cells[static_cast<uint32_t>(window >> (rel - max_bits)) & ((1u << max_bits) - 1)];
  }
  /// Decodes the next symbol (pos > 0); false, consuming nothing, when its code is longer than
  /// the bits left.
  CUZARR_HOST_DEVICE bool next(const ZstdHuffmanTable& table, unsigned char& symbol) {
    const ZstdHuffmanCell cell = peek(table);
    if (cell.bits > pos) return false;
    pos -= cell.bits;
    rel -= cell.bits;
    if (rel <= 32) {  // the upper word is used up: move down a word
      window = window << 32 | ahead[0];
      ahead[0] = ahead[1];
      --word;
      ahead[1] = load(word - 3);
      rel += 32;
    }
    symbol = cell.symbol;
    return true;
  }

 private:
  CUZARR_HOST_DEVICE uint32_t skew() const {
    return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(in) & 3u);
  }
  /// Aligned word q: stream bytes [4q - skew, 4q - skew + 4), little-endian, 0 outside the stream.
  CUZARR_HOST_DEVICE uint32_t load(int32_t q) const {
    const int64_t first = int64_t{4} * q - skew();
#if defined(__CUDA_ARCH__)
    if (first >= 0 && first + 4 <= int64_t{size})
      return __ldg(reinterpret_cast<const unsigned int*>(in + first));
#endif
    uint32_t v = 0;
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t at = first + i;
      if (at >= 0 && at < int64_t{size}) v |= uint32_t{in[at]} << (8 * i);
    }
    return v;
  }
};

/// Decodes `count` literals from the backward bitstream in[0, size) into out; the stream must be
/// consumed exactly (corrupt_input otherwise).
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_huffman_decode_stream(
    const ZstdHuffmanTable& table, const unsigned char* in, uint64_t size, unsigned char* out,
    uint64_t count) {
  ZstdBackwardBitReader r;
  const DeviceChunkStatus s = r.init(in, size);
  if (s != DeviceChunkStatus::ok) return s;
  const unsigned max_bits = table.max_bits;
  const uint32_t mask = (1u << max_bits) - 1;
  uint64_t i = 0;
  // Fast part: the 8 bytes that end with the byte of the next unread bit hold at least 57 unread
  // bits, enough for 57 / max_bits symbols before the next load (the same lookups as below,
  // without a bounded load per symbol).
  while (i < count) {
    const uint64_t top = (r.remaining + 7) / 8;  // bytes [0, top) hold the unread bits
    if (top < 8) break;
    const uint64_t window = zstd_load_le64(in, size, top - 8);
    const uint64_t base = (top - 8) * 8;  // the stream bit of the window's bit 0
    uint64_t avail = r.remaining - base;
    while (avail >= max_bits && i < count) {
      const ZstdHuffmanCell cell =
          table.cells[static_cast<uint32_t>(window >> (avail - max_bits)) & mask];
      avail -= cell.bits;
      out[i++] = cell.symbol;
    }
    r.remaining = base + avail;
  }
  for (; i < count; ++i) {
    const ZstdHuffmanCell cell = table.cells[r.peek(max_bits)];
    if (cell.bits > r.remaining) return DeviceChunkStatus::corrupt_input;
    r.remaining -= cell.bits;
    out[i] = cell.symbol;
  }
  return r.remaining == 0 ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
}

}  // namespace cuzarr::gpu
