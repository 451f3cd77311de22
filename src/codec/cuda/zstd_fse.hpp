// Finite State Entropy decoding tables (RFC 8878, 4.1): reading a table description
// (normalized probabilities), spreading the symbols over the table, and the predefined
// distributions of the sequence codes (RFC 8878, 3.1.1.3.2.2). Tables live in caller memory.
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zstd_bit_reader.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Largest accuracy log of any FSE table in a frame (literal and match lengths: 9).
inline constexpr unsigned kZstdMaxFseLog = 9;
/// Symbols an FSE description may describe at most (match length codes 0..52).
inline constexpr unsigned kZstdMaxFseSymbols = 64;

/// One decoding cell: the symbol, and how the next state is formed (baseline + `bits` bits).
/// Aligned to 4 bytes so that a cell is one load.
struct alignas(4) ZstdFseCell {
  uint16_t baseline;
  uint8_t symbol;
  uint8_t bits;
};

/// A decoding table of up to 2^kZstdMaxFseLog cells.
struct ZstdFseTable {
  ZstdFseCell cells[1u << kZstdMaxFseLog];
  uint32_t log;
};

/// Reads an FSE table description (RFC 8878, 4.1.1) from in[0, size): accuracy log (at most
/// `max_log`), then the probabilities of symbols 0.. (at most `max_symbol`), -1 meaning "less
/// than 1". Sets probs[0, symbol_count), `log` and the bytes used. corrupt_input when the
/// description is truncated, exceeds the limits or does not add up to 2^log.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_fse_read_description(
    const unsigned char* in, uint64_t size, unsigned max_log, unsigned max_symbol, int16_t* probs,
    unsigned& symbol_count, unsigned& log, uint64_t& consumed) {
  ZstdForwardBitReader r{in, size, 0};
  if (size == 0) return DeviceChunkStatus::corrupt_input;
  log = r.peek(4) + 5;
  r.skip(4);
  if (log > max_log) return DeviceChunkStatus::corrupt_input;
  int32_t remaining = (1 << log) + 1;  // probability points left, plus one
  int32_t threshold = 1 << log;
  unsigned bits = log + 1;
  unsigned symbol = 0;
  while (remaining > 1) {
    if (symbol > max_symbol) return DeviceChunkStatus::corrupt_input;
    // Values below `max` take bits - 1 bits, the others `bits` bits (RFC 8878, 4.1.1).
    const int32_t max = 2 * threshold - 1 - remaining;
    const uint32_t v = r.peek(bits);
    int32_t value;
    if (static_cast<int32_t>(v & (threshold - 1)) < max) {
      value = static_cast<int32_t>(v & (threshold - 1));
      r.skip(bits - 1);
    } else {
      value = static_cast<int32_t>(v & (2 * threshold - 1));
      if (value >= threshold) value -= max;
      r.skip(bits);
    }
    const int32_t prob = value - 1;
    if (prob > remaining - 1) return DeviceChunkStatus::corrupt_input;
    probs[symbol++] = static_cast<int16_t>(prob);
    remaining -= prob < 0 ? 1 : prob;
    if (prob == 0) {
      // A zero probability is followed by 2-bit repeat counts of further zeros; 3 means "3, and
      // another count follows".
      for (;;) {
        const uint32_t repeat = r.peek(2);
        r.skip(2);
        if (r.overran()) return DeviceChunkStatus::corrupt_input;
        for (uint32_t k = 0; k < repeat; ++k) {
          if (symbol > max_symbol) return DeviceChunkStatus::corrupt_input;
          probs[symbol++] = 0;
        }
        if (repeat != 3) break;
      }
    }
    while (remaining < threshold) {
      --bits;
      threshold >>= 1;
    }
    if (r.overran()) return DeviceChunkStatus::corrupt_input;
  }
  if (remaining != 1) return DeviceChunkStatus::corrupt_input;
  symbol_count = symbol;
  consumed = r.bytes_consumed();
  return DeviceChunkStatus::ok;
}

/// Builds the decoding table of `probs` (symbol_count entries adding up to 2^log, -1 counting
/// as 1) into `cells` (2^log of them): -1 symbols take the last cells, the others are spread
/// with step 5/8 * size + 3 over the remaining cells, and each cell's next-state rule follows
/// from how many cells its symbol has (RFC 8878, 4.1.1, "FSE table"). corrupt_input when the
/// spread does not return to cell 0 (probabilities that do not add up).
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_fse_build(const int16_t* probs,
                                                           unsigned symbol_count, unsigned log,
                                                           ZstdFseCell* cells) {
  if (symbol_count > kZstdMaxFseSymbols || log > kZstdMaxFseLog) {
    return DeviceChunkStatus::corrupt_input;
  }
  const uint32_t size = 1u << log;
  uint16_t next[kZstdMaxFseSymbols];
  int32_t high = static_cast<int32_t>(size) - 1;
  for (unsigned s = 0; s < symbol_count; ++s) {
    if (probs[s] == -1) {
      if (high < 0) return DeviceChunkStatus::corrupt_input;
      cells[high--].symbol = static_cast<uint8_t>(s);
      next[s] = 1;
    } else {
      next[s] = static_cast<uint16_t>(probs[s]);
    }
  }
  const uint32_t mask = size - 1, step = (size >> 1) + (size >> 3) + 3;
  uint32_t position = 0;
  uint32_t placed = 0;
  for (unsigned s = 0; s < symbol_count; ++s) {
    for (int32_t i = 0; i < probs[s]; ++i) {
      if (++placed > size) return DeviceChunkStatus::corrupt_input;
      cells[position].symbol = static_cast<uint8_t>(s);
      do {
        position = (position + step) & mask;
      } while (static_cast<int32_t>(position) > high);
    }
  }
  if (position != 0 || placed != static_cast<uint32_t>(high + 1)) {
    return DeviceChunkStatus::corrupt_input;
  }
  for (uint32_t u = 0; u < size; ++u) {
    const unsigned s = cells[u].symbol;
    const uint32_t n = next[s]++;
    const unsigned bits = log - zstd_highbit(n);
    cells[u].bits = static_cast<uint8_t>(bits);
    cells[u].baseline = static_cast<uint16_t>((n << bits) - size);
  }
  return DeviceChunkStatus::ok;
}

/// A one-symbol table (RLE mode): every state decodes `symbol` and reads no bits.
CUZARR_HOST_DEVICE inline void zstd_fse_build_rle(uint8_t symbol, ZstdFseTable& table) {
  table.log = 0;
  table.cells[0] = ZstdFseCell{0, symbol, 0};
}

/// Which sequence code an FSE table decodes.
enum class ZstdSequenceCode : int { literal_length = 0, offset = 1, match_length = 2 };

/// The predefined distributions (RFC 8878, 3.1.1.3.2.2), as characters '0' + probability + 1.
CUZARR_HOST_DEVICE inline const char* zstd_predefined_distribution(ZstdSequenceCode code,
                                                                   unsigned& count, unsigned& log) {
  switch (code) {
    case ZstdSequenceCode::literal_length:
      count = 36;
      log = 6;
      return "543333333333322233333333343222220000";
    case ZstdSequenceCode::offset:
      count = 29;
      log = 5;
      return "22222233322222222222222200000";
    default:
      count = 53;
      log = 6;
      return "25433333322222222222222222222222222222222222220000000";
  }
}

/// Builds the predefined table of `code` into `table`.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_fse_build_predefined(ZstdSequenceCode code,
                                                                      ZstdFseTable& table) {
  unsigned count = 0, log = 0;
  const char* text = zstd_predefined_distribution(code, count, log);
  int16_t probs[kZstdMaxFseSymbols];
  for (unsigned s = 0; s < count; ++s) probs[s] = static_cast<int16_t>(text[s] - '1');
  table.log = log;
  return zstd_fse_build(probs, count, log, table.cells);
}

}  // namespace cuzarr::gpu
