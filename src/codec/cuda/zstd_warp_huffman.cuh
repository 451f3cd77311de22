// Warp-parallel decoding of a Zstandard block's Huffman literal streams (.cu files and the
// emulated-warp tests). A block has 1 or 4 independent streams (RFC 8878, 3.1.1.3.1.6); each
// stream gets 32 / count lanes, and each lane a contiguous range ("segment") of its bits.
//
// A lane cannot know where the first code of its segment starts: it depends on every code
// before it. Huffman codes resynchronise, though: decoding from a wrong bit position soon lands
// on a true code boundary, and from there on follows the true decoding. So:
//   1. every lane decodes its segment from its segment's first bit, counting symbols and noting
//      where it leaves the segment (its exit: the first code boundary at or past the segment's
//      end);
//   2. lane j compares that with the true start of its segment, lane j - 1's exit. When they
//      differ it decodes from the true start alongside its first decoding until both reach the
//      same position (then everything after agrees, so its exit stands and its count is
//      corrected) or the true decoding leaves the segment (then its exit and count are redone).
//      Lane 0 starts at the stream's start and is always right; a lane whose start changed makes
//      the next lane check again, until no start changes (at most one round per lane);
//   3. with every segment's true start and symbol count known (a prefix sum gives its place in
//      the output), every lane decodes its segment again and writes it, four symbols per store.
// Every lane decodes its segment about twice, instead of one lane decoding the whole stream. The
// checks are the serial decoder's (zstd_huffman_decode_stream): the stream is consumed exactly,
// gives exactly its number of literals, and no code is longer than the bits left; nothing is
// written before they pass.
#pragma once

#include <cstdint>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/zstd_huffman.hpp"
#include "codec/cuda/zstd_literals.hpp"

namespace cuzarr::gpu::detail {

/// Shortest segment a lane decodes (shorter streams use fewer lanes).
inline constexpr uint32_t kZstdMinSegmentBits = 64;

/// One lane's decoding of its segment: from bit position `from`, `count` symbols, leaving the
/// segment at `exit`; `underflow`: a code was longer than the bits left.
struct ZstdSegmentDecode {
  uint32_t from;
  uint32_t exit;
  uint32_t count;
  bool underflow;
};

/// Decodes from `from` until the position is at or below `end` (or a code underflows).
__device__ inline ZstdSegmentDecode zstd_decode_segment(const ZstdHuffmanTable& table,
                                                        ZstdHuffmanCursor c, uint32_t from,
                                                        uint32_t end) {
  ZstdSegmentDecode d{from, from, 0, false};
  c.seek(from);
  unsigned char symbol;
  while (c.pos > end) {
    if (!c.next(table, symbol)) {
      d.underflow = true;
      break;
    }
    ++d.count;
  }
  d.exit = c.pos;
  return d;
}

/// Step 2 for one lane: the decoding of the segment (start, end] from its true start `from`,
/// given `first`, the decoding from the segment's own start.
__device__ inline ZstdSegmentDecode zstd_resync_segment(const ZstdHuffmanTable& table,
                                                        const ZstdHuffmanCursor& stream,
                                                        const ZstdSegmentDecode& first,
                                                        uint32_t from, uint32_t end) {
  ZstdHuffmanCursor a = stream, b = stream;  // a: the true decoding, b: the first one again
  a.seek(from);
  b.seek(first.from);
  uint32_t a_count = 0, b_count = 0;
  bool b_dead = false;
  unsigned char symbol;
  while (a.pos > end && (b_dead || a.pos != b.pos)) {
    if (!b_dead && b.pos > a.pos) {  // b is behind: it never passes its own exit
      if (b.next(table, symbol)) {
        ++b_count;
      } else {
        b_dead = true;
      }
    } else if (a.next(table, symbol)) {
      ++a_count;
    } else {
      return ZstdSegmentDecode{from, a.pos, a_count, true};
    }
  }
  if (!b_dead && a.pos == b.pos && a.pos > end) {  // in step: the rest is the first decoding's
    return ZstdSegmentDecode{from, first.exit, a_count + (first.count - b_count), first.underflow};
  }
  return ZstdSegmentDecode{from, a.pos, a_count, false};
}

/// Decodes the Huffman streams `p` (count 0, 1 or 4) with table `table` into
/// area[p.offset[k], p.offset[k] + p.literals[k]) for each stream k. Every lane of the warp calls
/// it with the same arguments and gets the same status: ok, or corrupt_input (nothing written).
__device__ inline DeviceChunkStatus warp_zstd_decode_huffman(const ZstdHuffmanTable& table,
                                                             const ZstdHuffmanStreams& p,
                                                             unsigned char* area, unsigned lane) {
  if (p.count == 0) return DeviceChunkStatus::ok;
  const unsigned lanes = kWarpSize / p.count;  // lanes per stream
  const unsigned k = lane / lanes, j = lane % lanes;
  ZstdHuffmanCursor stream;
  stream.in = p.data[k];
  stream.size = static_cast<uint32_t>(p.size[k]);
  // The stream's bits: all but the last byte's end marker (RFC 8878, 4.1).
  bool bad = p.size[k] == 0 || p.size[k] > UINT32_MAX / 8 || stream.in[p.size[k] - 1] == 0;
  const uint32_t bits = bad ? 0 : (stream.size - 1) * 8 + zstd_highbit(stream.in[stream.size - 1]);
  const uint32_t segment = umax(kZstdMinSegmentBits, (uint64_t{bits} + lanes - 1) / lanes);
  const uint32_t start = bits - static_cast<uint32_t>(umin(bits, uint64_t{j} * segment));
  const uint32_t end = bits - static_cast<uint32_t>(umin(bits, uint64_t{j + 1} * segment));

  // 1. From the segment's own start.
  const ZstdSegmentDecode first = zstd_decode_segment(table, stream, start, end);
  // 2. Until every segment starts where the one before it left.
  ZstdSegmentDecode d = first;
  for (;;) {
    const uint32_t previous_exit = __shfl_up_sync(kFullMask, d.exit, 1);
    const bool redo = j > 0 && previous_exit != d.from;
    if (!__any_sync(kFullMask, redo)) break;
    if (redo) {
      d = previous_exit == first.from
              ? first
              : zstd_resync_segment(table, stream, first, previous_exit, end);
    }
  }
  // The stream's symbols and this segment's place among them.
  uint32_t before = d.count;  // becomes the inclusive prefix sum over the stream's lanes
  for (unsigned step = 1; step < lanes; step *= 2) {
    const uint32_t other = __shfl_up_sync(kFullMask, before, step);
    if (j >= step) before += other;
  }
  const unsigned last_lane = k * lanes + lanes - 1;
  const uint32_t total = __shfl_sync(kFullMask, before, last_lane);
  before -= d.count;
  bad = bad || d.underflow || total != p.literals[k];
  if (j == lanes - 1) bad = bad || d.exit != 0;  // consumed exactly
  if (__any_sync(kFullMask, bad)) return DeviceChunkStatus::corrupt_input;

  // 3. Write: bytes up to a 4-byte boundary, then four symbols per store.
  unsigned char* out = area + p.offset[k] + before;
  ZstdHuffmanCursor c = stream;
  c.seek(d.from);
  uint32_t i = 0;
  unsigned char s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; i < d.count && (reinterpret_cast<uintptr_t>(out + i) & 3u) != 0; ++i) {
    c.next(table, s0);
    out[i] = s0;
  }
  for (; i + 4 <= d.count; i += 4) {
    c.next(table, s0);
    c.next(table, s1);
    c.next(table, s2);
    c.next(table, s3);
    *reinterpret_cast<uint32_t*>(out + i) =
        uint32_t{s0} | uint32_t{s1} << 8 | uint32_t{s2} << 16 | uint32_t{s3} << 24;
  }
  for (; i < d.count; ++i) {
    c.next(table, s0);
    out[i] = s0;
  }
  return DeviceChunkStatus::ok;
}

}  // namespace cuzarr::gpu::detail
