// The sequences section of a compressed Zstandard block (RFC 8878, 3.1.1.3.2): the number of
// sequences, the three code tables (predefined, RLE, FSE-compressed or repeated from the previous
// block), and the decoding of one sequence at a time from the backward bitstream, with the
// repeat-offset rules (RFC 8878, 3.1.2.5).
#pragma once

#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/zstd_bit_reader.hpp"
#include "codec/cuda/zstd_fse.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Largest codes: literal length 35, match length 52, offset 31 (RFC 8878, 3.1.1.3.2.1).
inline constexpr unsigned kZstdMaxLiteralLengthCode = 35;
inline constexpr unsigned kZstdMaxMatchLengthCode = 52;
inline constexpr unsigned kZstdMaxOffsetCode = 31;

/// The code tables a frame keeps from block to block (for the "repeat" mode).
struct ZstdSequenceTables {
  ZstdFseTable table[3];  ///< indexed by ZstdSequenceCode
  bool valid[3];
};

/// One decoded sequence: copy `literal_length` literals, then `match_length` bytes from `offset`
/// bytes back.
struct ZstdSequence {
  uint64_t literal_length;
  uint64_t match_length;
  uint64_t offset;
};

/// The repeat offset history of a frame (RFC 8878, 3.1.2.5), in three registers (no indexed
/// array, which a GPU thread would keep in local memory).
struct ZstdRepeatOffsets {
  uint64_t r0 = 1, r1 = 4, r2 = 8;

  /// The offset of a sequence from its Offset_Value and literal length, updating the history.
  /// Values 1..3 name repeat offsets, shifted by one when the literal length is 0 (the shifted
  /// value 3 means repeat offset 1 minus one); the offset used moves to the front. false when
  /// that offset is 0.
  CUZARR_HOST_DEVICE bool resolve(uint64_t offset_value, uint64_t literal_length,
                                  uint64_t& offset) {
    if (offset_value > 3) {
      offset = offset_value - 3;
      r2 = r1;
      r1 = r0;
      r0 = offset;
      return true;
    }
    const uint64_t index = offset_value - 1 + (literal_length == 0 ? 1 : 0);
    if (index == 0) {
      offset = r0;
      return true;
    }
    offset = index == 1 ? r1 : index == 2 ? r2 : r0 - 1;
    if (offset == 0) return false;
    if (index != 1) r2 = r1;
    r1 = r0;
    r0 = offset;
    return true;
  }
};

/// Literal length code -> baseline and extra bits (RFC 8878, 3.1.1.3.2.1.1).
CUZARR_HOST_DEVICE inline void zstd_literal_length_code(unsigned code, uint32_t& baseline,
                                                        unsigned& bits) {
  if (code < 16) {
    baseline = code;
    bits = 0;
  } else if (code < 20) {
    baseline = 16 + 2 * (code - 16);
    bits = 1;
  } else if (code < 22) {
    baseline = 24 + 4 * (code - 20);
    bits = 2;
  } else if (code < 24) {
    baseline = 32 + 8 * (code - 22);
    bits = 3;
  } else if (code == 24) {
    baseline = 48;
    bits = 4;
  } else {
    bits = code - 19;
    baseline = 1u << bits;
  }
}

/// Match length code -> baseline and extra bits (RFC 8878, 3.1.1.3.2.1.1).
CUZARR_HOST_DEVICE inline void zstd_match_length_code(unsigned code, uint32_t& baseline,
                                                      unsigned& bits) {
  if (code < 32) {
    baseline = code + 3;
    bits = 0;
  } else if (code < 36) {
    baseline = 35 + 2 * (code - 32);
    bits = 1;
  } else if (code < 38) {
    baseline = 43 + 4 * (code - 36);
    bits = 2;
  } else if (code < 40) {
    baseline = 51 + 8 * (code - 38);
    bits = 3;
  } else if (code < 42) {
    baseline = 67 + 16 * (code - 40);
    bits = 4;
  } else if (code == 42) {
    baseline = 99;
    bits = 5;
  } else {
    bits = code - 36;
    baseline = (1u << bits) + 3;
  }
}

/// Decodes the sequences of one block, one at a time.
struct ZstdSequenceDecoder {
  ZstdBackwardBitReader bits;
  const ZstdFseTable* tables[3];
  uint32_t state[3];
  uint32_t remaining = 0;  ///< sequences not decoded yet

  /// Decodes the next sequence's codes: literal and match lengths, and the raw Offset_Value
  /// (1..3 name repeat offsets, larger values are offset + 3). corrupt_input when the bitstream
  /// runs out.
  CUZARR_HOST_DEVICE DeviceChunkStatus next_raw(uint64_t& literal_length, uint64_t& match_length,
                                                uint64_t& offset_value) {
    const ZstdFseCell ll = tables[0]->cells[state[0]];
    const ZstdFseCell of = tables[1]->cells[state[1]];
    const ZstdFseCell ml = tables[2]->cells[state[2]];
    // Extra bits come in the order offset, match length, literal length; then the states are
    // updated in the order literal length, match length, offset, except after the last sequence
    // (RFC 8878, 3.1.1.3.2.2 / 4.1).
    offset_value = (uint64_t{1} << of.symbol) + bits.read(of.symbol);
    uint32_t base = 0;
    unsigned extra = 0;
    zstd_match_length_code(ml.symbol, base, extra);
    match_length = base + bits.read(extra);
    zstd_literal_length_code(ll.symbol, base, extra);
    literal_length = base + bits.read(extra);
    if (--remaining > 0) {
      state[0] = ll.baseline + static_cast<uint32_t>(bits.read(ll.bits));
      state[2] = ml.baseline + static_cast<uint32_t>(bits.read(ml.bits));
      state[1] = of.baseline + static_cast<uint32_t>(bits.read(of.bits));
    }
    return bits.overflow ? DeviceChunkStatus::corrupt_input : DeviceChunkStatus::ok;
  }

  /// Decodes the next sequence and updates the repeat offsets `reps`. corrupt_input when the
  /// bitstream runs out or a repeat offset becomes 0.
  CUZARR_HOST_DEVICE DeviceChunkStatus next(ZstdSequence& seq, ZstdRepeatOffsets& reps) {
    uint64_t offset_value = 0;
    const DeviceChunkStatus s = next_raw(seq.literal_length, seq.match_length, offset_value);
    if (s != DeviceChunkStatus::ok) return s;
    return reps.resolve(offset_value, seq.literal_length, seq.offset)
               ? DeviceChunkStatus::ok
               : DeviceChunkStatus::corrupt_input;
  }

  /// After the last sequence, the bitstream must be consumed exactly.
  CUZARR_HOST_DEVICE bool finished_cleanly() const {
    return remaining == 0 && !bits.overflow && bits.remaining == 0;
  }
};

/// Sets up one code table from the compression mode (RFC 8878, 3.1.1.3.2.1: 0 predefined, 1 RLE,
/// 2 FSE-compressed, 3 repeat) with its description at in[0, size); `consumed`: bytes used.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_read_code_table(
    ZstdSequenceCode code, unsigned mode, const unsigned char* in, uint64_t size,
    ZstdSequenceTables& tables, uint64_t& consumed) {
  const int k = static_cast<int>(code);
  const unsigned max_symbol = code == ZstdSequenceCode::literal_length ? kZstdMaxLiteralLengthCode
                              : code == ZstdSequenceCode::offset       ? kZstdMaxOffsetCode
                                                                       : kZstdMaxMatchLengthCode;
  const unsigned max_log = code == ZstdSequenceCode::offset ? 8 : 9;
  consumed = 0;
  if (mode == 3) {
    return tables.valid[k] ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
  }
  tables.valid[k] = false;
  DeviceChunkStatus s = DeviceChunkStatus::ok;
  if (mode == 0) {
    s = zstd_fse_build_predefined(code, tables.table[k]);
  } else if (mode == 1) {
    if (size < 1 || in[0] > max_symbol) return DeviceChunkStatus::corrupt_input;
    zstd_fse_build_rle(in[0], tables.table[k]);
    consumed = 1;
  } else {
    int16_t probs[kZstdMaxFseSymbols];
    unsigned symbols = 0, log = 0;
    s = zstd_fse_read_description(in, size, max_log, max_symbol, probs, symbols, log, consumed);
    if (s != DeviceChunkStatus::ok) return s;
    if (consumed > size) return DeviceChunkStatus::corrupt_input;
    tables.table[k].log = log;
    s = zstd_fse_build(probs, symbols, log, tables.table[k].cells);
  }
  if (s == DeviceChunkStatus::ok) tables.valid[k] = true;
  return s;
}

/// The start of a Sequences_Section_Header (RFC 8878, 3.1.1.3.2.1): Number_of_Sequences in 1 to
/// 3 bytes, then, when it is not 0, the Symbol_Compression_Modes byte.
struct ZstdSequencesCount {
  uint64_t count = 0;  ///< Number_of_Sequences
  unsigned modes = 0;  ///< Symbol_Compression_Modes (count > 0)
  uint64_t size = 0;   ///< bytes read: the code tables start there
};

/// Reads the start of the sequences section at in[0, size). corrupt_input when it is truncated,
/// when its reserved mode bits are set, or when a section of no sequences is more than its one
/// byte.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_read_sequences_count(const unsigned char* in,
                                                                      uint64_t size,
                                                                      ZstdSequencesCount& h) {
  if (size < 1) return DeviceChunkStatus::corrupt_input;
  const unsigned b0 = in[0];
  if (b0 == 0) {  // no sequences: the section is this one byte
    h = {};
    h.size = 1;
    return size == 1 ? DeviceChunkStatus::ok : DeviceChunkStatus::corrupt_input;
  }
  if (b0 < 128) {
    h.count = b0;
    h.size = 1;
  } else if (b0 < 255) {
    if (size < 2) return DeviceChunkStatus::corrupt_input;
    h.count = ((b0 - 128) << 8) + uint64_t{in[1]};
    h.size = 2;
  } else {
    if (size < 3) return DeviceChunkStatus::corrupt_input;
    h.count = uint64_t{in[1]} + (uint64_t{in[2]} << 8) + 0x7F00;
    h.size = 3;
  }
  if (size - h.size < 1) return DeviceChunkStatus::corrupt_input;
  h.modes = in[h.size++];
  if ((h.modes & 3u) != 0) return DeviceChunkStatus::corrupt_input;  // reserved bits
  return DeviceChunkStatus::ok;
}

/// Reads the sequences section header and tables at in[0, size) (the rest of the block) and
/// starts `decoder` on its bitstream. corrupt_input for truncation, reserved bits, a repeat mode
/// without an earlier table, or bad tables.
CUZARR_HOST_DEVICE inline DeviceChunkStatus zstd_read_sequences_header(
    const unsigned char* in, uint64_t size, ZstdSequenceTables& tables,
    ZstdSequenceDecoder& decoder) {
  ZstdSequencesCount h;
  const DeviceChunkStatus counted = zstd_read_sequences_count(in, size, h);
  if (counted != DeviceChunkStatus::ok || h.count == 0) {
    decoder.remaining = 0;
    decoder.bits = ZstdBackwardBitReader{};
    return counted;
  }
  const uint64_t count = h.count;
  const unsigned modes = h.modes;
  uint64_t pos = h.size;
  const unsigned shift[3] = {6, 4, 2};  // literal length, offset, match length
  for (int k = 0; k < 3; ++k) {
    uint64_t used = 0;
    const DeviceChunkStatus s =
        zstd_read_code_table(static_cast<ZstdSequenceCode>(k), (modes >> shift[k]) & 3u, in + pos,
                             size - pos, tables, used);
    if (s != DeviceChunkStatus::ok) return s;
    pos += used;
  }
  DeviceChunkStatus s = decoder.bits.init(in + pos, size - pos);
  if (s != DeviceChunkStatus::ok) return s;
  for (int k = 0; k < 3; ++k) {
    decoder.tables[k] = &tables.table[k];
    decoder.state[k] = static_cast<uint32_t>(decoder.bits.read(tables.table[k].log));
  }
  if (decoder.bits.overflow) return DeviceChunkStatus::corrupt_input;
  decoder.remaining = static_cast<uint32_t>(count);
  return DeviceChunkStatus::ok;
}

}  // namespace cuzarr::gpu
