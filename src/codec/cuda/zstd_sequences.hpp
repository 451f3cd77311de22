// The sequences section of a compressed Zstandard block (RFC 8878, 3.1.1.3.2): the number of
// sequences, the three code tables (predefined, RLE, FSE-compressed or repeated from the previous
// block), and the decoding of runs of sequences from the backward bitstream, with the
// repeat-offset rules (RFC 8878, 3.1.2.5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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

/// The repeat-offset step of RFC 8878, 3.1.2.5, over a history r0, r1, r2 of values of type T:
/// an Offset_Value above 3 is an explicit offset (`explicit_offset(Offset_Value - 3)`); values
/// 1..3 name repeat offsets, shifted by one when the literal length is 0, and the shifted value 3
/// is repeat offset 1 minus one (`minus_one(r0, offset)`, false when that is known to be 0). The
/// offset used moves to the front. Constant indices only: an indexed array would live in a GPU
/// thread's local memory. false when the offset is 0 (the sequence is corrupt).
template <class T, class ExplicitOffset, class MinusOne>
CUZARR_HOST_DEVICE inline bool zstd_repeat_offset_step(T& r0, T& r1, T& r2, uint64_t offset_value,
                                                       uint64_t literal_length, T& offset,
                                                       ExplicitOffset explicit_offset,
                                                       MinusOne minus_one) {
  if (offset_value > 3) {
    offset = explicit_offset(offset_value - 3);
  } else {
    const uint64_t index = offset_value - 1 + (literal_length == 0 ? 1 : 0);
    if (index == 0) {  // repeat offset 1 stays in front
      offset = r0;
      return true;
    }
    if (index == 3) {
      if (!minus_one(r0, offset)) return false;
    } else {
      offset = index == 1 ? r1 : r2;
    }
    if (index == 1) {  // repeat offset 2 swaps with 1
      r1 = r0;
      r0 = offset;
      return true;
    }
  }
  r2 = r1;
  r1 = r0;
  r0 = offset;
  return true;
}

/// The repeat offset history of a frame (RFC 8878, 3.1.2.5), in three registers.
struct ZstdRepeatOffsets {
  uint64_t r0 = 1, r1 = 4, r2 = 8;

  /// The offset of a sequence from its Offset_Value and literal length, updating the history
  /// (zstd_repeat_offset_step). false when that offset is 0.
  CUZARR_HOST_DEVICE bool resolve(uint64_t offset_value, uint64_t literal_length,
                                  uint64_t& offset) {
    return zstd_repeat_offset_step(
        r0, r1, r2, offset_value, literal_length, offset, [](uint64_t v) { return v; },
        [](uint64_t first, uint64_t& o) {
          o = first - 1;
          return o != 0;
        });
  }
};

/// Literal length code (at most 35) -> baseline and extra bits (RFC 8878, 3.1.1.3.2.1.1), without
/// branches: codes 16..24 come from packed constants, codes from 25 on take code - 19 bits.
CUZARR_HOST_DEVICE inline void zstd_literal_length_code(uint32_t code, uint32_t& baseline,
                                                        uint32_t& bits) {
  // Codes 16..24: extra bits 1 1 1 1 2 2 3 3 4 (4 bits each), (baseline - 16) / 2 = 0 1 2 3 4 6
  // 8 12 16 (5 bits each).
  constexpr uint64_t kBits = 0x433221111ull;
  constexpr uint64_t kHalfBase = (0ull << 0) | (1ull << 5) | (2ull << 10) | (3ull << 15) |
                                 (4ull << 20) | (6ull << 25) | (8ull << 30) | (12ull << 35) |
                                 (16ull << 40);
  const uint32_t i = code >= 16 && code < 25 ? code - 16 : 0;  // the table's entry
  const uint32_t table_bits = static_cast<uint32_t>(kBits >> (4 * i)) & 15u;
  const uint32_t table_base = 16 + 2 * (static_cast<uint32_t>(kHalfBase >> (5 * i)) & 31u);
  const uint32_t high_bits = code - 19;
  bits = code < 16 ? 0 : code < 25 ? table_bits : high_bits;
  baseline = code < 16 ? code : code < 25 ? table_base : 1u << (high_bits & 31);
}

/// Match length code (at most 52) -> baseline and extra bits (RFC 8878, 3.1.1.3.2.1.1), without
/// branches: codes 32..42 come from packed constants, codes from 43 on take code - 36 bits.
CUZARR_HOST_DEVICE inline void zstd_match_length_code(uint32_t code, uint32_t& baseline,
                                                      uint32_t& bits) {
  // Codes 32..42: extra bits 1 1 1 1 2 2 3 3 4 4 5 (4 bits each), (baseline - 35) / 2 = 0 1 2 3
  // 4 6 8 12 16 24 (5 bits each) and 32 for code 42.
  constexpr uint64_t kBits = 0x54433221111ull;
  constexpr uint64_t kHalfBase = (0ull << 0) | (1ull << 5) | (2ull << 10) | (3ull << 15) |
                                 (4ull << 20) | (6ull << 25) | (8ull << 30) | (12ull << 35) |
                                 (16ull << 40) | (24ull << 45);
  const uint32_t i = code >= 32 && code < 43 ? code - 32 : 0;  // the table's entry
  const uint32_t table_bits = static_cast<uint32_t>(kBits >> (4 * i)) & 15u;
  const uint32_t half = i == 10 ? 32u : static_cast<uint32_t>(kHalfBase >> (5 * i)) & 31u;
  const uint32_t high_bits = code - 36;
  bits = code < 32 ? 0 : code < 43 ? table_bits : high_bits;
  baseline = code < 32 ? code + 3 : code < 43 ? 35 + 2 * half : (1u << (high_bits & 31)) + 3;
}

/// A decoding cell as one 32-bit word: baseline in bits 0..15, symbol 16..23, bits 24..31.
CUZARR_HOST_DEVICE inline uint32_t zstd_fse_cell_word(const ZstdFseCell* cells, uint32_t state) {
  static_assert(sizeof(ZstdFseCell) == 4 && offsetof(ZstdFseCell, baseline) == 0 &&
                offsetof(ZstdFseCell, symbol) == 2 && offsetof(ZstdFseCell, bits) == 3);
  uint32_t word;  // little-endian: the fields in the order of the struct
  memcpy(&word, cells + state, sizeof word);
  return word;
}

/// One sequence's codes as ZstdSequenceDecoder::chain leaves them: its extra bits lie just below
/// stream bit `extra_top` (offset's first, then match length's, then literal length's).
struct ZstdSequenceCodes {
  uint32_t extra_top;
  uint8_t literal_length_code;
  uint8_t match_length_code;
  uint8_t offset_code;
  uint8_t unused;
};

/// Bits [lo, lo + n) (n <= 31) of the stream at data[0, size), read forwards as a number.
CUZARR_HOST_DEVICE inline uint32_t zstd_stream_bits(const unsigned char* data, uint32_t size,
                                                    uint32_t lo, uint32_t n) {
  const uint64_t word = zstd_load_le64(data, size, lo / 8) >> (lo % 8);
  return static_cast<uint32_t>(word) & ((1u << n) - 1u);
}

/// A sequence's literal length, match length and Offset_Value from its codes and its extra bits
/// in the stream at data[0, size).
CUZARR_HOST_DEVICE inline void zstd_sequence_values(const unsigned char* data, uint32_t size,
                                                    const ZstdSequenceCodes& c,
                                                    uint32_t& literal_length,
                                                    uint32_t& match_length,
                                                    uint32_t& offset_value) {
  uint32_t ml_base = 0, ml_extra = 0, ll_base = 0, ll_extra = 0;
  zstd_match_length_code(c.match_length_code, ml_base, ml_extra);
  zstd_literal_length_code(c.literal_length_code, ll_base, ll_extra);
  uint32_t lo = c.extra_top - c.offset_code;
  offset_value = (1u << c.offset_code) + zstd_stream_bits(data, size, lo, c.offset_code);
  lo -= ml_extra;
  match_length = ml_base + zstd_stream_bits(data, size, lo, ml_extra);
  lo -= ll_extra;
  literal_length = ll_base + zstd_stream_bits(data, size, lo, ll_extra);
}

/// Decodes the sequences of one block (RFC 8878, 3.1.1.3.2.2): three FSE states over one backward
/// bitstream. `decode` runs a batch of sequences with the bit window and the states in registers;
/// `chain` follows the states only, leaving the extra bits to be read elsewhere.
struct ZstdSequenceDecoder {
  ZstdBackwardWindow bits;
  uint32_t state_ll = 0, state_of = 0, state_ml = 0;
  uint32_t remaining = 0;   ///< sequences not decoded yet
  bool has_stream = false;  ///< a sequences bitstream was started (count > 0)

  /// Starts `count` (> 0) sequences on the bitstream in[0, size) with tables `t`: reads the
  /// initial states (literal lengths, offsets, match lengths). corrupt_input for a bad stream.
  CUZARR_HOST_DEVICE DeviceChunkStatus start(const unsigned char* in, uint64_t size,
                                             const ZstdSequenceTables& t, uint32_t count) {
    has_stream = true;
    remaining = 0;
    const DeviceChunkStatus s = bits.init(in, size);
    if (s != DeviceChunkStatus::ok) return s;
    bits.ensure(27);
    state_ll = bits.read(t.table[0].log);
    state_of = bits.read(t.table[1].log);
    state_ml = bits.read(t.table[2].log);
    if (bits.pos < 0) return DeviceChunkStatus::corrupt_input;
    remaining = count;
    return DeviceChunkStatus::ok;
  }

  /// Decodes up to `max` more sequences, calling sink(literal_length, match_length, offset_value)
  /// for each (Offset_Value: 1..3 name repeat offsets, larger values are offset + 3); a sink
  /// status other than ok stops the run and is returned. corrupt_input when the bitstream runs
  /// out.
  template <class Sink>
  CUZARR_HOST_DEVICE DeviceChunkStatus decode(const ZstdSequenceTables& t, uint32_t max,
                                              Sink&& sink) {
    struct Values {
      uint32_t literal_length, match_length, offset_value;
    };
    return run(
        t, max,
        [](ZstdBackwardWindow& w, uint32_t cl, uint32_t co, uint32_t cm) {
          const uint32_t of_code = (co >> 16) & 0xFFu;  // at most 31: the table reader checks it
          uint32_t ml_base = 0, ml_extra = 0, ll_base = 0, ll_extra = 0;
          zstd_match_length_code((cm >> 16) & 0xFFu, ml_base, ml_extra);
          zstd_literal_length_code((cl >> 16) & 0xFFu, ll_base, ll_extra);
          // Extra bits come in the order offset, match length, literal length (at most 31 + 16,
          // then 16 bits).
          w.ensure(of_code + ml_extra);
          Values v;
          v.offset_value = (1u << of_code) + w.read(of_code);
          v.match_length = ml_base + w.read(ml_extra);
          w.ensure(ll_extra);
          v.literal_length = ll_base + w.read(ll_extra);
          return v;
        },
        [&](uint32_t, const Values& v) {
          return sink(v.literal_length, v.match_length, v.offset_value);
        });
  }

  /// The serial part of `decode` for up to `max` more sequences: the codes and the state
  /// updates, skipping the extra bits; emit(n, codes) for the n-th of the run.
  /// corrupt_input when the bitstream runs out.
  template <class Emit>
  CUZARR_HOST_DEVICE DeviceChunkStatus chain(const ZstdSequenceTables& t, uint32_t max,
                                             Emit&& emit) {
    return run(
        t, max,
        [](ZstdBackwardWindow& w, uint32_t cl, uint32_t co, uint32_t cm) {
          const ZstdSequenceCodes codes{
              static_cast<uint32_t>(w.pos), static_cast<uint8_t>(cl >> 16),
              static_cast<uint8_t>(cm >> 16), static_cast<uint8_t>(co >> 16), 0};
          uint32_t base = 0, ml_extra = 0, ll_extra = 0;
          zstd_match_length_code(codes.match_length_code, base, ml_extra);
          zstd_literal_length_code(codes.literal_length_code, base, ll_extra);
          w.pos -= static_cast<int32_t>(codes.offset_code + ml_extra + ll_extra);
          return codes;
        },
        [&](uint32_t n, const ZstdSequenceCodes& codes) {
          emit(n, codes);
          return DeviceChunkStatus::ok;
        });
  }

  /// After the last sequence, the bitstream must be consumed exactly.
  CUZARR_HOST_DEVICE bool finished_cleanly() const { return remaining == 0 && bits.pos == 0; }

 private:
  /// The loop of decode and chain, with the window and the states in registers: for each of up
  /// to `max` sequences the three cells, then extras(window, cells) takes the extra bits (reads
  /// or skips them) and returns what deliver(n, value) gets after the state updates (in the order
  /// literal length, match length, offset, except after the last sequence: RFC 8878,
  /// 3.1.1.3.2.2 / 4.1; at most 9 + 9 + 8 bits) and the bitstream's check; deliver's status
  /// other than ok stops the run.
  template <class Extras, class Deliver>
  CUZARR_HOST_DEVICE DeviceChunkStatus run(const ZstdSequenceTables& t, uint32_t max,
                                           Extras&& extras, Deliver&& deliver) {
    ZstdBackwardWindow w = bits;
    uint32_t sl = state_ll, so = state_of, sm = state_ml;
    uint32_t left = remaining;
    const ZstdFseCell* ll_cells = t.table[0].cells;
    const ZstdFseCell* of_cells = t.table[1].cells;
    const ZstdFseCell* ml_cells = t.table[2].cells;
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    for (uint32_t n = 0; n < max && left > 0; ++n) {
      const uint32_t cl = zstd_fse_cell_word(ll_cells, sl);
      const uint32_t co = zstd_fse_cell_word(of_cells, so);
      const uint32_t cm = zstd_fse_cell_word(ml_cells, sm);
      const auto value = extras(w, cl, co, cm);
      if (--left > 0) {
        w.ensure((cl >> 24) + (cm >> 24) + (co >> 24));
        sl = (cl & 0xFFFFu) + w.read(cl >> 24);
        sm = (cm & 0xFFFFu) + w.read(cm >> 24);
        so = (co & 0xFFFFu) + w.read(co >> 24);
      }
      if (w.pos < 0) {
        status = DeviceChunkStatus::corrupt_input;
        break;
      }
      status = deliver(n, value);
      if (status != DeviceChunkStatus::ok) break;
    }
    bits = w;
    state_ll = sl;
    state_of = so;
    state_ml = sm;
    remaining = left;
    return status;
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
    decoder = ZstdSequenceDecoder{};
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
  return decoder.start(in + pos, size - pos, tables, static_cast<uint32_t>(count));
}

}  // namespace cuzarr::gpu
