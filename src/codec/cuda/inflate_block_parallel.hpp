// Block-parallel inflate: one large deflate stream (raw, zlib or a gzip member) decoded by many
// GPU warps at once (docs/gpu_deflate.md, "Block-parallel inflate"). A chunk's deflate data is
// cut into segments of `segment_bytes` input bytes, and:
//   1. plan (per chunk): the wrapper's header; segment 0 starts at the stream's first block;
//      every segment gets a region of the chunk's symbol scratch, kInflateBpRegionFactor times
//      its share of the capacity;
//   2. search (a warp per later segment): the first bit offset in the segment where a dynamic
//      block header starts (inflate_block_search.hpp). A segment without one is merged into the
//      segment before it;
//   3. decode (a warp per segment): decodes from the segment's first block up to the next
//      segment's (the rounds of inflate_warp_tokens.cuh) and writes its output as 16-bit
//      symbols into its region: a literal is its byte; a match byte copies its source symbol,
//      or, when the source lies before the segment (in bytes another warp decodes), becomes a
//      marker 256 + w for byte w of the 32 KiB window before the segment. A decoding that does
//      not arrive exactly at the next segment's start (a false candidate) or fails an input
//      check fails the chunk; one whose output outgrows its region overflows;
//   4. scan (per chunk): every segment's output offset; the output within the capacity; the
//      trailer where the wrapper needs one. A chunk with an overflowing segment goes two-pass:
//   5. count, then scan again, then write (a warp per segment, two-pass chunks only): the decode
//      of step 3 without writing, which gives each segment's exact output size, then again,
//      writing each segment's symbols at its final offset;
//   6. finish (a thread block per chunk): resolves the segments in order, markers from the
//      already resolved window before each (a parallel gather: the chain over segments carries
//      only that window), checks every distance against the output before it (RFC 1951, 3.2.5)
//      and the checksums.
// A chunk that fails anything is left to the warp-per-chunk decoder (inflate_warp_decode.cuh),
// whose status is the serial decoder's; what the path finishes is exactly the serial decoder's
// output. The plan and scan are CUZARR_HOST_DEVICE (one thread); the warp passes are in
// inflate_block_parallel.cuh. The state of a chunk lives in a slot of caller memory
// (inflate_bp_layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/inflate_format.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// Input bytes per segment. Each segment's block search scans about half a block (some 11 KiB of
/// input on the benchmark fields), mostly in registers; a 4 MiB chunk of the benchmark field is
/// about 26 segments. 128 KiB decoded 4 and 32 MiB chunks faster than 64 or 256 KiB (an H200,
/// docs/gpu_deflate.md).
inline constexpr uint64_t kInflateBpSegmentBytes = uint64_t{128} << 10;
/// By default, chunks decoding to at least this many bytes take the block-parallel path. On an
/// H200 with 1 GiB batches it decoded 1 MiB chunks 1.1x to 1.3x faster than a warp per chunk, and
/// 512 KiB chunks 1.3x to 1.5x slower (bench/RESULTS.md).
inline constexpr uint64_t kInflateBpMinCapacity = uint64_t{1} << 20;
/// In a batch of at most this many chunks, chunks from kInflateBpSmallBatchMinCapacity decode
/// block-parallel too: a warp per chunk leaves most SMs idle there. In a 64 MiB batch (128 chunks
/// of 512 KiB) block-parallel decoded 1.5x to 1.6x faster than a warp per chunk; 256 chunks of
/// 256 KiB 0.7x to 0.9x as fast (an H200, bench/RESULTS.md).
inline constexpr size_t kInflateBpSmallBatch = 128;
inline constexpr uint64_t kInflateBpSmallBatchMinCapacity = uint64_t{512} << 10;
/// block_parallel_from's default (inflate_block_parallel_from).
inline constexpr uint64_t kInflateBpAuto = UINT64_MAX - 1;

/// The capacity from which chunks decode block-parallel in a batch of `count` chunks:
/// block_parallel_from itself, unless it is kInflateBpAuto (then kInflateBpMinCapacity, or
/// kInflateBpSmallBatchMinCapacity in a batch of at most kInflateBpSmallBatch chunks).
inline uint64_t inflate_block_parallel_from(size_t count, uint64_t block_parallel_from) {
  if (block_parallel_from != kInflateBpAuto) return block_parallel_from;
  return count <= kInflateBpSmallBatch ? kInflateBpSmallBatchMinCapacity : kInflateBpMinCapacity;
}

/// Capacities stay below this (32-bit output offsets in the records and the match lists).
inline constexpr uint64_t kInflateBpMaxCapacity = uint64_t{1} << 31;
/// Lanes of a round (a warp).
inline constexpr uint32_t kInflateBpLanes = 32;
inline constexpr uint64_t kInflateBpNone = UINT64_MAX;
/// deflate's window (RFC 1951, 3.2.5: distances up to 32768): a segment's markers 256 + w stand
/// for byte w of the kInflateBpWindow bytes before it.
inline constexpr uint64_t kInflateBpWindow = 32768;
/// A segment's region holds this many times its share of the capacity (the capacity over the
/// chunk's segments): segments of one chunk rarely differ more in how much they expand.
inline constexpr uint64_t kInflateBpRegionFactor = 2;

/// What a segment's passes found.
struct InflateBpSegment {
  uint64_t start_bit;   ///< its first block header (kInflateBpNone: merged into the one before)
  uint64_t out_start;   ///< its first output byte (scan)
  uint64_t out_bytes;   ///< output bytes (decode or count)
  uint64_t stream_end;  ///< the last segment: the input byte after the deflate stream
  uint32_t failed;      ///< a pass failed on it: the chunk goes to the warp decoder
  uint32_t overflow;    ///< its output outgrew its region: the chunk goes two-pass
};

/// What the plan and the scan found for a chunk.
struct InflateBpChunk {
  uint64_t deflate_start;  ///< the input byte where the deflate stream starts
  uint64_t output_size;    ///< decoded bytes (scan)
  uint64_t stream_end;     ///< the input byte after the deflate stream (scan)
  uint64_t segment_bytes;
  uint64_t region;     ///< symbols of a segment's region (step 3)
  uint32_t segments;   ///< segments of the input after deflate_start (0: not taken)
  uint32_t parallel;   ///< the chunk takes (still) the path
  uint32_t two_pass;   ///< a segment overflowed its region: count, then write (step 5)
  uint32_t gzip;       ///< the member is gzip (else zlib, or raw deflate)
  uint32_t wrapped;    ///< a gzip or zlib trailer follows the stream
  uint32_t exact_end;  ///< the trailer must end the input (gzip; members of gzip_or_zlib)
  uint32_t crc;        ///< CRC-32 pieces combined (InflateBpChecksumPart)
  uint64_t adler_a;    ///< Adler-32 pieces' sums, not yet reduced mod 65521
  uint64_t adler_b;
};

/// A piece's share of the output's checksum: the raw CRC-32 register shifted to the output's end
/// (crc32_table.hpp), or the Adler-32 sums of the piece (adler32.hpp). Pieces combine by XOR and
/// by sums.
struct InflateBpChecksumPart {
  uint32_t crc = 0;
  uint32_t adler_a = 0;
  uint32_t adler_b = 0;
};

/// Sizes of a chunk's slot, for chunks of at most `max_output` decoded bytes.
struct InflateBpLayout {
  uint64_t segment_bytes = kInflateBpSegmentBytes;
  uint64_t max_output = 0;
  uint64_t max_input = 0;  ///< longer inputs do not take the path
  uint32_t max_segments = 0;
  uint64_t symbols = 0;  ///< symbols of scratch: kInflateBpRegionFactor x max_output
  uint64_t bytes = 0;    ///< the slot, a multiple of 256
};

CUZARR_HOST_DEVICE inline uint64_t inflate_bp_align(uint64_t n) { return (n + 255) / 256 * 256; }

/// The slot layout for chunks decoding to at most `max_output` bytes. Inputs up to max_output
/// plus stored blocks' overhead (5 bytes per 65535, RFC 1951 3.2.4) and 4 KiB of headers fit.
CUZARR_HOST_DEVICE inline InflateBpLayout inflate_bp_layout(
    uint64_t max_output, uint64_t segment_bytes = kInflateBpSegmentBytes) {
  InflateBpLayout l;
  l.segment_bytes = segment_bytes;
  l.max_output = max_output;
  l.max_input = max_output + max_output / 4096 + 4096;
  l.max_segments = static_cast<uint32_t>((l.max_input + segment_bytes - 1) / segment_bytes);
  l.symbols = kInflateBpRegionFactor * max_output;
  l.bytes = inflate_bp_align(sizeof(InflateBpChunk)) +
            inflate_bp_align(uint64_t{l.max_segments} * sizeof(InflateBpSegment)) +
            inflate_bp_align(l.symbols * sizeof(uint16_t));
  return l;
}

/// A chunk's slot: its plan, segments and the output as symbols.
struct InflateBpSlot {
  InflateBpChunk* chunk;
  InflateBpSegment* segments;
  uint16_t* symbols;
};

/// The slot at `base` (layout.bytes bytes, 256-byte aligned).
CUZARR_HOST_DEVICE inline InflateBpSlot inflate_bp_slot(void* base, const InflateBpLayout& l) {
  auto* p = static_cast<unsigned char*>(base);
  InflateBpSlot s;
  s.chunk = reinterpret_cast<InflateBpChunk*>(p);
  p += inflate_bp_align(sizeof(InflateBpChunk));
  s.segments = reinterpret_cast<InflateBpSegment*>(p);
  p += inflate_bp_align(uint64_t{l.max_segments} * sizeof(InflateBpSegment));
  s.symbols = reinterpret_cast<uint16_t*>(p);
  return s;
}

namespace detail {

/// parse_gzip_header's engine when the header CRC is not checked (the plan takes no chunk with
/// one).
struct NoHeaderCrc {
  CUZARR_HOST_DEVICE static constexpr uint32_t crc32(const unsigned char*, uint64_t) { return 0; }
};

}  // namespace detail

/// Step 1 for one chunk: takes it (chunk->parallel = 1) when its capacity is at least
/// `min_capacity` and below kInflateBpMaxCapacity, its input fits the layout, and its header
/// parses (a gzip header CRC, FHCRC, leaves the chunk to the warp decoder). Segment 0 starts at
/// the stream's first block; the others wait for the search.
CUZARR_HOST_DEVICE inline void inflate_bp_plan(const unsigned char* in, uint64_t size,
                                               uint64_t capacity, DeflateWrapper wrapper,
                                               uint64_t min_capacity, const InflateBpLayout& l,
                                               const InflateBpSlot& slot) {
  InflateBpChunk& c = *slot.chunk;
  c = InflateBpChunk{};
  c.segment_bytes = l.segment_bytes;
  if (capacity < min_capacity || capacity >= kInflateBpMaxCapacity || size > l.max_input ||
      capacity > l.max_output) {
    return;
  }
  uint64_t pos = 0;
  const bool gzip =
      wrapper == DeflateWrapper::gzip ||
      (wrapper == DeflateWrapper::gzip_or_zlib && size >= 2 && in[0] == 0x1F && in[1] == 0x8B);
  if (wrapper != DeflateWrapper::raw) {
    if (gzip) {
      if (size < kGzipFixedHeaderSize || (in[3] & kGzipFlagHeaderCrc) != 0) return;
      detail::NoHeaderCrc engine;
      if (parse_gzip_header(in, size, pos, false, engine) != DeviceChunkStatus::ok) return;
    } else if (parse_zlib_header(in, size, pos) != DeviceChunkStatus::ok) {
      return;
    }
  }
  if (pos >= size) return;
  c.deflate_start = pos;
  c.gzip = gzip ? 1 : 0;
  c.wrapped = wrapper != DeflateWrapper::raw ? 1 : 0;
  c.exact_end = wrapper == DeflateWrapper::gzip || wrapper == DeflateWrapper::gzip_or_zlib;
  c.segments = static_cast<uint32_t>((size - pos + l.segment_bytes - 1) / l.segment_bytes);
  c.region = l.symbols / c.segments;
  for (uint32_t k = 0; k < c.segments; ++k) {
    slot.segments[k] = InflateBpSegment{};
    slot.segments[k].start_bit = k == 0 ? pos * 8 : kInflateBpNone;
  }
  c.parallel = 1;
}

/// Numbers the segments of a round's chunks for the warps of the segment passes: first[i] is the
/// number of segments of chunks before chunk i, first[n] the round's total (an exclusive prefix
/// sum of InflateBpChunk::segments; chunks not taken have none). Warp w then takes the w-th
/// segment, so that the live warps are the first ones of the grid and fill whole thread blocks.
/// Numbered by chunk times the layout's max_segments, about a fifth of the warps of the
/// benchmark's 1 and 4 MiB batches had no segment, and those beside live warps in a block held
/// its shared memory and one of the SM's block slots.
CUZARR_HOST_DEVICE inline bool inflate_bp_numbered_segment(const uint32_t* first, uint32_t n,
                                                           uint64_t w, uint32_t& chunk,
                                                           uint32_t& k) {
  if (w >= first[n]) return false;
  uint32_t lo = 0, hi = n;  // first[lo] <= w < first[hi]
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (first[mid] <= w) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  chunk = lo;
  k = static_cast<uint32_t>(w - first[lo]);
  return true;
}

/// The input bits segment k >= 1 searches: [first, end).
CUZARR_HOST_DEVICE inline void inflate_bp_search_range(const InflateBpChunk& c, uint64_t size,
                                                       uint32_t k, uint64_t& first, uint64_t& end) {
  const uint64_t from = c.deflate_start + k * c.segment_bytes;
  const uint64_t to = from + c.segment_bytes < size ? from + c.segment_bytes : size;
  first = from * 8;
  end = to * 8;
}

/// The segment after k that holds a block start (c.segments when none does).
CUZARR_HOST_DEVICE inline uint32_t inflate_bp_next_segment(const InflateBpChunk& c,
                                                           const InflateBpSlot& slot, uint32_t k) {
  uint32_t next = k + 1;
  while (next < c.segments && slot.segments[next].start_bit == kInflateBpNone) ++next;
  return next;
}

/// Where segment k writes its symbols: its region (step 3), or, two-pass, its final offset.
CUZARR_HOST_DEVICE inline uint64_t inflate_bp_symbols_at(const InflateBpChunk& c,
                                                         const InflateBpSegment& s, uint32_t k) {
  return c.two_pass ? s.out_start : k * c.region;
}

/// Step 4 for one chunk (after the decode pass, and again after the count): offsets of every
/// segment's output. Drops the chunk from the path when a segment failed, the output passes
/// `capacity`, or the trailer does not fit: it must be in the input, and end it for gzip and
/// gzip_or_zlib (more members go to the warp decoder). A segment that overflowed its region
/// makes the chunk two-pass, its offsets left to the scan after the count.
CUZARR_HOST_DEVICE inline void inflate_bp_scan(uint64_t size, uint64_t capacity,
                                               const InflateBpSlot& slot) {
  InflateBpChunk& c = *slot.chunk;
  if (!c.parallel) return;
  uint64_t out = 0, stream_end = kInflateBpNone;
  bool overflow = false;
  for (uint32_t k = 0; k < c.segments; ++k) {
    InflateBpSegment& s = slot.segments[k];
    s.out_start = out;  // a merged segment starts where the next one does (inflate_bp_segment_of)
    if (s.start_bit == kInflateBpNone) continue;
    if (s.failed) {
      c.parallel = 0;
      return;
    }
    overflow = overflow || s.overflow;
    out += s.out_bytes;
    stream_end = s.stream_end;
  }
  if (overflow) {
    c.two_pass = 1;
    return;
  }
  const uint64_t trailer = !c.wrapped ? 0 : c.gzip ? kGzipTrailerSize : kZlibTrailerSize;
  const bool fits = stream_end != kInflateBpNone && stream_end <= size &&
                    trailer <= size - stream_end && (!c.exact_end || stream_end + trailer == size);
  if (!fits || out > capacity) {
    c.parallel = 0;
    return;
  }
  c.output_size = out;
  c.stream_end = stream_end;
}

/// The segment whose output holds byte p of a scanned chunk: the last one that starts at or before
/// p (merged segments start where the segment after them does, so it is never one of them).
CUZARR_HOST_DEVICE inline uint32_t inflate_bp_segment_of(const InflateBpSlot& slot, uint64_t p) {
  uint32_t lo = 0, hi = slot.chunk->segments;  // out_start[lo] <= p < out_start[hi]
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (slot.segments[mid].out_start <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Step 6 for byte p of a scanned chunk, in segment k: its symbol's byte, or for a marker the
/// byte it stands for, followed back through the segments before until a literal (each step goes
/// to an earlier segment). A marker for a byte before the output (RFC 1951, 3.2.5: a distance
/// past the bytes decoded so far; the decode passes check distances against the window only)
/// sets `good` to false.
CUZARR_HOST_DEVICE inline unsigned char inflate_bp_resolve_byte(const InflateBpSlot& slot,
                                                                uint64_t p, uint32_t k,
                                                                bool& good) {
  const InflateBpChunk& c = *slot.chunk;
  for (;;) {
    const InflateBpSegment& s = slot.segments[k];
    const uint16_t v = slot.symbols[inflate_bp_symbols_at(c, s, k) + (p - s.out_start)];
    if (v < 256) return static_cast<unsigned char>(v);
    const uint64_t w = v - 256u;  // byte w of the window before segment k
    if (s.out_start + w < kInflateBpWindow) {
      good = false;
      return 0;
    }
    p = s.out_start + w - kInflateBpWindow;
    // the last segment before k that starts at or before p (inflate_bp_segment_of): most
    // sources lie in the segment just before
    while (slot.segments[k].out_start > p) --k;
  }
}

/// Step 6 for the 8 bytes out[p, p + 8) of a scanned chunk (p + 8 <= its output size), as a
/// little-endian word; k: the segment of byte p, updated to that of byte p + 7. Eight symbols
/// of one segment without a marker are narrowed at once, anything else byte by byte.
CUZARR_HOST_DEVICE inline uint64_t inflate_bp_resolve_word(const InflateBpSlot& slot, uint64_t p,
                                                           uint32_t& k, bool& good) {
  const InflateBpChunk& c = *slot.chunk;
  const InflateBpSegment& s = slot.segments[k];
  uint64_t word = 0;
  if (p + 8 <= s.out_start + s.out_bytes) {
    const uint16_t* v = slot.symbols + inflate_bp_symbols_at(c, s, k) + (p - s.out_start);
    uint32_t markers = 0;
    for (int b = 0; b < 8; ++b) {
      markers |= v[b];
      word |= uint64_t{static_cast<unsigned char>(v[b])} << (8 * b);
    }
    if (markers < 256) return word;
    word = 0;
  }
  for (int b = 0; b < 8; ++b) {
    while (p + b >= slot.segments[k].out_start + slot.segments[k].out_bytes) ++k;
    word |= uint64_t{inflate_bp_resolve_byte(slot, p + b, k, good)} << (8 * b);
  }
  return word;
}

namespace detail {

/// Checksums known in advance, as member_trailer_holds's engine.
struct KnownChecksums {
  uint32_t crc;
  uint32_t adler;
  CUZARR_HOST_DEVICE uint32_t crc32(const unsigned char*, uint64_t) const { return crc; }
  CUZARR_HOST_DEVICE uint32_t adler32(const unsigned char*, uint64_t) const { return adler; }
};

}  // namespace detail

/// Step 6's last check for a resolved chunk: whether its trailer holds the checksums combined
/// from every piece's InflateBpChecksumPart (always, unless `verify` and the chunk is wrapped).
CUZARR_HOST_DEVICE inline bool inflate_bp_checksums_hold(const unsigned char* in, bool verify,
                                                         const InflateBpChunk& c) {
  if (!verify || !c.wrapped) return true;
  const uint64_t n = c.output_size;
  const detail::KnownChecksums sums{
      crc32_finish(c.crc, n), adler32_finish(static_cast<uint32_t>(c.adler_a % kAdlerModulus),
                                             static_cast<uint32_t>(c.adler_b % kAdlerModulus), n)};
  return member_trailer_holds(in + c.stream_end, c.gzip != 0, nullptr, n, sums);
}

}  // namespace cuzarr::gpu
