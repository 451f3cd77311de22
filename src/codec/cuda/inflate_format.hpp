// The deflate format (RFC 1951), decoded for the CPU and the GPU: stored, fixed-Huffman and
// dynamic-Huffman blocks, with every field checked against the input, the output written so far
// and the output capacity. No heap, no exceptions: the Huffman tables live in a caller-provided
// InflateWorkspace and all other state in an InflateStream.
//
// Decoding is a sequence of steps (inflate_next): the decoder writes Huffman-coded literals
// itself and hands back each copy (a match, or a stored block's bytes) as an InflateStep for the
// caller to execute, serially (inflate_run_serial) or with a whole GPU warp. Both run the same
// checks, so both give the same status on any input.
#pragma once

#include <cstdint>

#include "codec/cuda/deflate_bit_reader.hpp"
#include "codec/cuda/deflate_huffman.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint32_t kDeflateMaxLitLenCodes = 286;   ///< HLIT + 257 <= 286 (RFC 1951 3.2.7)
inline constexpr uint32_t kDeflateMaxDistanceCodes = 30;  ///< HDIST + 1 <= 30
inline constexpr uint32_t kDeflateEndOfBlock = 256;

/// Huffman tables and code lengths of the block being decoded (about 7.1 KiB: small enough for
/// GPU shared memory).
struct InflateWorkspace {
  HuffmanTable litlen;
  /// The code length code is needed only while the code lengths are read, before the distance
  /// code is built (RFC 1951 3.2.7), so both share the space.
  union {
    DistanceTable distance;
    CodeLengthTable code_lengths;
  };
  uint8_t lengths[288 + 32];  ///< HLIT + HDIST code lengths (fixed codes: 288 + 32)
  bool fixed_loaded;          ///< litlen / distance hold the fixed codes of RFC 1951 3.2.6
  /// Set by a caller that fills the primary tables of litlen and distance itself (a GPU warp,
  /// huffman_fill_fast): block headers then leave them to it and set `fast_tables_pending`.
  bool defer_fast_tables;
  bool fast_tables_pending;
};

enum class InflatePhase : uint8_t { block_header, huffman, done };

/// The position of a deflate stream's decoder.
struct InflateStream {
  DeflateBitReader bits;
  uint64_t op = 0;            ///< output bytes written
  uint64_t window_start = 0;  ///< distances may not reach before this output position
  InflatePhase phase = InflatePhase::block_header;
  bool final_block = false;
};

/// A copy for the caller to execute: `length` bytes at out[out_pos], from in[in_pos] (a stored
/// block, distance 0) or from `distance` bytes back in the output (a match; it may overlap its
/// own output, repeating with period `distance`). `end`: the stream has ended (length 0).
struct InflateStep {
  uint64_t out_pos = 0;
  uint64_t length = 0;
  uint64_t in_pos = 0;
  uint32_t distance = 0;
  bool end = false;
};

/// Starts decoding a deflate stream at in[start] into out[op..]; distances may reach back to
/// out[op], not before (a new gzip member or zlib stream does not see earlier ones).
CUZARR_HOST_DEVICE inline void inflate_begin(InflateStream& s, InflateWorkspace& ws,
                                             const unsigned char* in, uint64_t size, uint64_t start,
                                             uint64_t op) {
  s.bits.reset(in, size, start);
  s.op = op;
  s.window_start = op;
  s.phase = InflatePhase::block_header;
  s.final_block = false;
  ws.fixed_loaded = false;
  ws.defer_fast_tables = false;
  ws.fast_tables_pending = false;
}

namespace detail {

/// RFC 1951, 3.2.6: the fixed literal/length code (lengths 8, 9, 7, 8 over 0..143, 144..255,
/// 256..279, 280..287) and the fixed distance code (32 codes of 5 bits; 30 and 31 never occur in
/// valid data but take part in the code).
CUZARR_HOST_DEVICE inline void load_fixed_codes(InflateWorkspace& ws) {
  if (ws.fixed_loaded) return;
  CUZARR_NO_UNROLL
  for (uint32_t s = 0; s < 288; ++s) {
    ws.lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
  }
  const bool build_fast = !ws.defer_fast_tables;
  build_huffman(ws.litlen, ws.lengths, 288, false, HuffmanAlphabet::literal_length,
                build_fast ? kHuffmanFastBits : 0);
  CUZARR_NO_UNROLL
  for (uint32_t s = 0; s < 32; ++s) ws.lengths[s] = 5;
  build_huffman(ws.distance, ws.lengths, 32, false, HuffmanAlphabet::distance,
                build_fast ? kDistanceFastBits : 0);
  ws.fast_tables_pending = ws.defer_fast_tables;
  ws.fixed_loaded = true;
}

/// RFC 1951, 3.2.7: reads HLIT, HDIST, HCLEN, the code length code and the run-length coded
/// code lengths, and builds the block's two codes.
CUZARR_HOST_DEVICE inline DeviceChunkStatus read_dynamic_codes(InflateStream& s,
                                                               InflateWorkspace& ws) {
  DeflateBitReader& bits = s.bits;
  ws.fixed_loaded = false;  // the tables are about to change
  bits.refill();
  const uint32_t hlit = bits.bits(5) + 257;
  const uint32_t hdist = bits.bits(5) + 1;
  const uint32_t hclen = bits.bits(4) + 4;
  // 286..287 and 30..31 are not valid counts (they would code symbols that never occur); zlib
  // rejects them too.
  if (hlit > kDeflateMaxLitLenCodes || hdist > kDeflateMaxDistanceCodes)
    return DeviceChunkStatus::corrupt_input;
  constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  uint8_t cl_lengths[19];
  CUZARR_NO_UNROLL
  for (uint32_t k = 0; k < 19; ++k) cl_lengths[k] = 0;
  CUZARR_NO_UNROLL
  for (uint32_t k = 0; k < hclen; ++k) cl_lengths[kOrder[k]] = static_cast<uint8_t>(bits.bits(3));
  if (bits.overrun()) return DeviceChunkStatus::corrupt_input;
  // The code length code must be complete (no single-code exception, as in zlib).
  if (build_huffman(ws.code_lengths, cl_lengths, 19, false, HuffmanAlphabet::plain,
                    kCodeLengthFastBits) != HuffmanBuild::ok)
    return DeviceChunkStatus::corrupt_input;
  const uint32_t total = hlit + hdist;
  uint32_t i = 0;
  while (i < total) {
    bits.refill();
    // The code is complete with codes of at most 7 bits: every 7-bit entry holds one (an empty
    // code has none, and fails here).
    const uint32_t entry = ws.code_lengths.fast[bits.peek(kCodeLengthFastBits)];
    if (entry == 0) return DeviceChunkStatus::corrupt_input;
    bits.consume(huffman_entry_bits(entry));
    const uint32_t symbol = huffman_entry_symbol(entry);
    if (symbol < 16) {
      ws.lengths[i++] = static_cast<uint8_t>(symbol);
      continue;
    }
    uint8_t value = 0;
    uint32_t repeat;
    if (symbol == 16) {  // copy the previous length 3..6 times; there must be one
      if (i == 0) return DeviceChunkStatus::corrupt_input;
      value = ws.lengths[i - 1];
      repeat = 3 + bits.bits(2);
    } else if (symbol == 17) {  // 3..10 zeros
      repeat = 3 + bits.bits(3);
    } else {  // 18: 11..138 zeros
      repeat = 11 + bits.bits(7);
    }
    // The repeats run over the literal/length and distance lengths as one sequence, but never
    // past their end (3.2.7: "code lengths ... form a single sequence of HLIT + HDIST + 258").
    if (repeat > total - i) return DeviceChunkStatus::corrupt_input;
    for (uint32_t k = 0; k < repeat; ++k) ws.lengths[i++] = value;
  }
  if (bits.overrun()) return DeviceChunkStatus::corrupt_input;
  // A block without an end-of-block code could never end.
  if (ws.lengths[kDeflateEndOfBlock] == 0) return DeviceChunkStatus::corrupt_input;
  const bool build_fast = !ws.defer_fast_tables;
  if (build_huffman(ws.litlen, ws.lengths, hlit, true, HuffmanAlphabet::literal_length,
                    build_fast ? kHuffmanFastBits : 0) != HuffmanBuild::ok ||
      build_huffman(ws.distance, ws.lengths + hlit, hdist, true, HuffmanAlphabet::distance,
                    build_fast ? kDistanceFastBits : 0) != HuffmanBuild::ok) {
    return DeviceChunkStatus::corrupt_input;
  }
  ws.fast_tables_pending = ws.defer_fast_tables;
  ws.fixed_loaded = false;
  return DeviceChunkStatus::ok;
}

/// The end of the stream: its last bits must be in the input; the stream ends at a byte boundary.
CUZARR_HOST_DEVICE inline DeviceChunkStatus finish_stream(InflateStream& s, InflateStep& step) {
  if (s.bits.overrun()) return DeviceChunkStatus::corrupt_input;
  s.bits.align_to_byte();
  s.phase = InflatePhase::done;
  step.out_pos = s.op;
  step.length = 0;
  step.end = true;
  return DeviceChunkStatus::ok;
}

}  // namespace detail

/// Where inflate_next puts Huffman-coded literals: straight into the output. Matches are returned
/// to the caller one by one.
struct InflateOutputSink {
  unsigned char* out;
  CUZARR_HOST_DEVICE static constexpr bool full() { return false; }
  /// No fast path: the step-by-step decoder is the reference.
  CUZARR_HOST_DEVICE static constexpr void decode_fast(InflateStream&, const InflateWorkspace&,
                                                       uint64_t) {}
  CUZARR_HOST_DEVICE void put(uint64_t op, unsigned char byte) { out[op] = byte; }
  CUZARR_HOST_DEVICE static constexpr bool take_match(uint64_t, uint32_t, uint32_t) {
    return false;
  }
};

/// Decodes up to the next copy: puts Huffman literals into `sink` (sink.put(op, byte), never at
/// or past `capacity`) and offers each checked match to it (sink.take_match(op, length,
/// distance): it fits the output and its distance stays within the stream's output). A match the
/// sink does not take, or a stored block (its bytes are in the input), is returned as `step`, and
/// s.op is advanced past it. Returns a step of length 0 (nothing to copy) when sink.full() before
/// a symbol. At the end of the stream returns a step with `end` set; afterwards s.bits.pos is the
/// first byte after the stream. Status: corrupt_input for a malformed or truncated stream,
/// output_too_small when the output would pass `capacity`.
template <class Sink>
CUZARR_HOST_DEVICE inline DeviceChunkStatus inflate_next_to(InflateStream& s, InflateWorkspace& ws,
                                                            Sink& sink, uint64_t capacity,
                                                            InflateStep& step) {
  DeflateBitReader& bits = s.bits;
  step.end = false;
  step.distance = 0;
  step.in_pos = 0;
  for (;;) {
    if (s.phase == InflatePhase::done) {
      step.out_pos = s.op;
      step.length = 0;
      step.end = true;
      return DeviceChunkStatus::ok;
    }
    if (s.phase == InflatePhase::block_header) {
      // RFC 1951, 3.2.3: BFINAL (1 bit), BTYPE (2 bits).
      bits.refill();
      s.final_block = bits.bits(1) != 0;
      const uint32_t type = bits.bits(2);
      if (bits.overrun()) return DeviceChunkStatus::corrupt_input;
      if (type == 0) {
        // 3.2.4: skip to a byte boundary, LEN and NLEN (its one's complement), LEN bytes.
        bits.consume(bits.count % 8);
        const uint32_t len = bits.bits(16);
        const uint32_t nlen = bits.bits(16);
        if (bits.overrun()) return DeviceChunkStatus::corrupt_input;
        if ((len ^ 0xFFFFu) != nlen) return DeviceChunkStatus::corrupt_input;
        bits.align_to_byte();
        const uint64_t at = bits.pos;
        if (len > bits.size - at) return DeviceChunkStatus::corrupt_input;  // truncated
        if (len > capacity - s.op) return DeviceChunkStatus::output_too_small;
        bits.reset(bits.in, bits.size, at + len);
        step.out_pos = s.op;
        step.length = len;
        step.in_pos = at;
        s.op += len;
        if (s.final_block) s.phase = InflatePhase::done;  // already byte-aligned
        return DeviceChunkStatus::ok;
      }
      if (type == 3) return DeviceChunkStatus::corrupt_input;  // reserved
      if (type == 1) {
        detail::load_fixed_codes(ws);
      } else {
        const DeviceChunkStatus status = detail::read_dynamic_codes(s, ws);
        if (status != DeviceChunkStatus::ok) return status;
      }
      s.phase = InflatePhase::huffman;
    }
    // 3.2.5: literal bytes, end of block, or <length, backward distance> pairs.
    for (;;) {
      if (sink.full()) {
        step.out_pos = s.op;
        step.length = 0;
        return DeviceChunkStatus::ok;
      }
      // The sink's fast path, if it has one, takes the symbols that cannot fail a check; the
      // code below decodes the one it stops before.
      sink.decode_fast(s, ws, capacity);
      if (sink.full()) continue;
      bits.ensure(kHuffmanMaxBits);  // refills only every few literals
      const int32_t symbol = huffman_decode(ws.litlen, bits);
      if (symbol < 0 || bits.overrun()) return DeviceChunkStatus::corrupt_input;
      if (symbol < 256) {
        if (s.op == capacity) return DeviceChunkStatus::output_too_small;
        sink.put(s.op++, static_cast<unsigned char>(symbol));
        continue;
      }
      if (symbol == kDeflateEndOfBlock) {
        if (s.final_block) return detail::finish_stream(s, step);
        s.phase = InflatePhase::block_header;
        break;
      }
      if (symbol > 285) return DeviceChunkStatus::corrupt_input;  // 286, 287: fixed code only
      // A length's extra bits, the distance code and its extra bits: at most 5 + 15 + 13 bits.
      bits.ensure(5 + kHuffmanMaxBits + 13);
      const uint32_t li = static_cast<uint32_t>(symbol) - 257;
      const uint32_t length = deflate_length_base(li) + bits.bits(deflate_length_extra(li));
      const int32_t dsym = huffman_decode(ws.distance, bits);
      if (dsym < 0 || dsym >= 30) return DeviceChunkStatus::corrupt_input;
      const uint32_t di = static_cast<uint32_t>(dsym);
      const uint32_t distance = deflate_distance_base(di) + bits.bits(deflate_distance_extra(di));
      if (bits.overrun()) return DeviceChunkStatus::corrupt_input;
      // A distance may not refer before the start of the stream's output (3.2.5: "up to 32768
      // bytes" back, within the data decoded so far).
      if (distance > s.op - s.window_start) return DeviceChunkStatus::corrupt_input;
      if (length > capacity - s.op) return DeviceChunkStatus::output_too_small;
      if (sink.take_match(s.op, length, distance)) {
        s.op += length;
        continue;
      }
      step.out_pos = s.op;
      step.length = length;
      step.distance = distance;
      s.op += length;
      return DeviceChunkStatus::ok;
    }
  }
}

/// inflate_next_to writing literals straight to out.
CUZARR_HOST_DEVICE inline DeviceChunkStatus inflate_next(InflateStream& s, InflateWorkspace& ws,
                                                         unsigned char* out, uint64_t capacity,
                                                         InflateStep& step) {
  InflateOutputSink sink{out};
  return inflate_next_to(s, ws, sink, capacity, step);
}

/// Executes a step serially (the GPU kernels run it with a warp).
CUZARR_HOST_DEVICE inline void inflate_execute_serial(const InflateStep& step,
                                                      const unsigned char* in, unsigned char* out) {
  unsigned char* dst = out + step.out_pos;
  if (step.distance == 0) {
    const unsigned char* src = in + step.in_pos;
    for (uint64_t t = 0; t < step.length; ++t) dst[t] = src[t];
  } else {
    // Byte by byte: an overlapping match repeats the bytes it has just written.
    const unsigned char* src = dst - step.distance;
    for (uint64_t t = 0; t < step.length; ++t) dst[t] = src[t];
  }
}

/// The result of decoding: status, output bytes produced in total and the input position after
/// the decoded data.
struct InflateResult {
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  uint64_t size = 0;
  uint64_t consumed = 0;
};

/// Decodes the deflate stream at in[start] into out[op..capacity) serially.
CUZARR_HOST_DEVICE inline InflateResult inflate_run_serial(const unsigned char* in, uint64_t size,
                                                           uint64_t start, unsigned char* out,
                                                           uint64_t capacity, uint64_t op,
                                                           InflateWorkspace& ws) {
  InflateStream s;
  inflate_begin(s, ws, in, size, start, op);
  for (;;) {
    InflateStep step;
    const DeviceChunkStatus status = inflate_next(s, ws, out, capacity, step);
    if (status != DeviceChunkStatus::ok) return {status, s.op, s.bits.consumed_bytes()};
    if (step.end) return {DeviceChunkStatus::ok, s.op, s.bits.pos};
    inflate_execute_serial(step, in, out);
  }
}

}  // namespace cuzarr::gpu
