// Split decoding of large LZ4 blocks: one block decoded by several teams of warps at once, so that
// a batch of few large chunks (2 and 4 MiB chunks of a 1 GiB batch: 512 or 256 blocks) keeps as
// many teams busy as a batch of 1 MiB chunks.
//   1. plan (a lane per part): the block's input is cut into `parts` parts, the first larger
//      (kLz4SplitFirstWeight); part k > 0 starts at a token found by parsing from its cut as if a
//      token started there (again one byte on after a sequence that cannot be one) until
//      kLz4SplitSyncBytes further. A wrong start joins the true chain of tokens within a few
//      hundred bytes on liblz4's blocks: both are walks over the same bytes, and once they share a
//      position they coincide.
//   2. parts (a team per part, lz4_warp_team_decode.cuh): part 0 decodes into the output, the
//      others into scratch with kLz4SplitGuard bytes before their start; every part stops at the
//      next part's start token, and records its output position there when its chain passes that
//      token (which proves the next start is on the true chain: part 0's chain is). A part k > 0
//      does not know the bytes before its start: a match byte whose source lies there, directly or
//      through earlier such bytes, is *tainted* and gets its root (the source position before the
//      part) instead of a value. On liblz4's blocks of a field of ratio 2.2 cut into 1 MiB parts,
//      about 2 % of a part's bytes are tainted, all in its first 200 to 500 KiB: sources reach at
//      most 64 KiB back, so taint dies out once a part has run far enough without it.
//   3. place and repair (the same team, once decoded; its thread block took a ticket when it
//      started, so it waits only for parts that started before it): part k > 0 copies its bytes to
//      their place once the parts before it have decoded, then each tainted byte takes its root's
//      value once the bytes its roots read are final (placed, and repaired when an earlier part's
//      taint reaches them); the last part gives the chunk's result. So the copies and repairs of
//      most parts run while other teams still decode.
// A chunk whose plan fails, whose part fails a check, whose chain misses the next start, whose
// taint reaches past kLz4SplitZone, or whose size or roots disagree with the block is left to the
// team decoder (handled = 0), which gives the serial decoder's status: statuses never depend on the
// split. (Parts placed before a later part failed may have written anywhere in the chunk's
// capacity; the team decoder then writes the output again.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/core/host_device.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu::detail {

/// The output a part covers, about: a chunk of capacity c is cut into c / kLz4SplitPartOutput
/// parts (at least 2, at most kLz4SplitMaxParts).
inline constexpr uint64_t kLz4SplitPartOutput = uint64_t{1} << 20;
inline constexpr unsigned kLz4SplitMaxParts = 8;
/// Part 0's share of the input, in sixteenths of each later part's: it marks no taint, so its team
/// runs faster. On an H200, 1 GiB batches of the quantized field at 4 / 2 MiB (bench/RESULTS.md,
/// "the first part larger"): equal parts 80.1 / 83.3 GB/s, 22 (1.375x) 84.5 / 93.3; with the marks
/// followed 8 at a time 19, 22 and 25 gave 88.4 / 96.6, 87.0 / 96.3 and 81.7 / 92.1; in a smaller
/// kernel 18, 20 and 22 gave 92.7 / 96.9, 94.2 / 99.2 and 95.4 / 102.0, and with the long copies
/// out of line 22, 23, 24 and 26 gave 98.9 / 105.6, 99.1 / 106.9, 97.7 / 105.9 and 94.7 / 103.3
/// ("long copies out of line").
inline constexpr uint64_t kLz4SplitFirstWeight = 22;
/// Where part k > 0 (of `parts`) of a block of `in_size` bytes is cut; its start is looked for from
/// there.
CUZARR_HOST_DEVICE inline uint32_t lz4_split_cut(uint32_t in_size, unsigned k, unsigned parts) {
  const uint64_t before = kLz4SplitFirstWeight + 16 * uint64_t{k - 1};
  const uint64_t total = kLz4SplitFirstWeight + 16 * uint64_t{parts - 1};
  return static_cast<uint32_t>(in_size * before / total);
}
/// Chunks decoding to fewer bytes than this take the team decoder.
inline constexpr uint64_t kLz4SplitMinCapacity = uint64_t{2} << 20;
/// Chunks whose block holds more than 2 / 3 of their capacity (ratio below 1.5, about
/// incompressible: long literal runs, where a wrong start rarely meets the true chain of few
/// tokens) or less than capacity / kLz4SplitMaxRatio (long runs, few tokens: the team decoder is
/// fast there, and a wrong start may wander through long length bytes) take the team decoder.
inline constexpr uint64_t kLz4SplitMaxRatio = 32;
/// Bytes before a part's own in its scratch: every match distance of LZ4 is below it.
inline constexpr uint32_t kLz4SplitGuard = 65536;
/// Positions of a part's scratch (guard included) below which its bytes may be tainted (taint past
/// it fails the chunk: liblz4's level-9 blocks of the quantized field taint whole parts).
inline constexpr uint32_t kLz4SplitZone = kLz4SplitGuard + (768u << 10);
/// Input bytes a part's start is parsed past its cut: the join check (step 2) catches a start off
/// the true chain, so this only makes such starts rarer. On an H200 512 instead of 2048 sped the
/// split up 1.01x to 1.02x (a shorter plan) and every chunk of the benchmark was still split
/// (bench/RESULTS.md, "place and repair in the part kernel").
inline constexpr uint32_t kLz4SplitSyncBytes = 512;

/// The parts a batch of chunks of at most `max_output` bytes is cut into; 0 when its chunks are too
/// small for the split.
unsigned lz4_split_parts(uint64_t max_output);

/// Scratch bytes for `count` chunks of at most `max_output` bytes (0 when lz4_split_parts is 0):
/// about 3 x max_output per chunk at 4 MiB (the parts' output with 1.5 x room, a mark and a root
/// per position of their zones), 4 bytes per chunk for `handled` and per part for its state.
size_t lz4_split_temp_bytes(size_t count, uint64_t max_output);

/// The smallest chunks the LZ4 launcher splits by itself: on an H200, 1 GiB batches of the
/// quantized field decoded 1.62x faster split at 4 MiB (99.2 against 61.2 GB/s) and 1.09x at 2 MiB
/// (106.2 against 97.8), for scratch of 3 and 2 GiB (bench/RESULTS.md, "long copies out of
/// line").
inline constexpr uint64_t kLz4SplitAutoFrom = uint64_t{2} << 20;
/// The most scratch the launcher takes for the split by itself (larger batches are not split).
inline constexpr uint64_t kLz4SplitMaxTemp = uint64_t{8} << 30;

/// Whether the LZ4 launcher splits a batch of `count` chunks of at most `max_output` bytes: chunks
/// of kLz4SplitAutoFrom or more, when every part's team fits on the GPU at once (the split is for
/// batches too few to fill it) and the scratch stays within kLz4SplitMaxTemp. It depends on the
/// batch and the device only, so that the scratch a caller sized with lz4_decode_temp_bytes is
/// the scratch the launcher then expects.
bool lz4_split_pays(size_t count, uint64_t max_output);

/// Decodes the chunks the split takes (statuses and sizes written for them) and sets handled[i] = 1
/// for those, 0 for the others, which the caller decodes otherwise. `numcodecs`: each input starts
/// with numcodecs.lz4's 4-byte size. `temp`: lz4_split_temp_bytes(count, max_output) bytes,
/// 16-byte aligned (as cudaMalloc gives); returns `handled` (in temp). lz4_split_parts(max_output)
/// must not be 0.
const uint32_t* lz4_split_decode_batch(const DeviceChunkBatch& batch, bool numcodecs,
                                       uint64_t max_output, void* temp, Stream stream);

}  // namespace cuzarr::gpu::detail
