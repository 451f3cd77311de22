#include <algorithm>

#include "codec/cuda/kernel_support.cuh"
#include "codec/cuda/stream_fork.hpp"
#include "codec/cuda/warp_copy_steps.cuh"
#include "codec/cuda/zstd_block_parallel.hpp"
#include "codec/cuda/zstd_frame_format.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "codec/cuda/zstd_warp_decode.cuh"
#include "codec/cuda/zstd_warp_huffman.cuh"
#include "codec/cuda/zstd_warp_sequences.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;
using detail::warp_zstd_decode;

constexpr int kDecodeWarps = 4;  // warps per thread block
// Decoding warps at most, each with its workspace: one wave of 16 warps per SM on GPUs of up to
// 148 SMs (2048 left 4 of an H200's 132 SMs idle).
constexpr size_t kMaxDecodeWarps = 148 * 16;
// The warp kernel is held to 128 registers, 4 blocks (16 warps) per SM: on an H200 that measured
// faster than 168 registers without spills and 12 warps per SM (zstd level 3, 64 KiB chunks:
// 22.8 against 20.7 GB/s).
constexpr int kDecodeBlocksPerSm = 4;

size_t decode_workers(size_t count) { return std::min(count, kMaxDecodeWarps); }

/// Every warp takes the next chunk from `next_chunk` (zero at launch) when it is done with one:
/// chunks that decode slowly do not hold up the warps that drew easier ones.
__global__ void __launch_bounds__(kDecodeWarps* kWarpSize, kDecodeBlocksPerSm)
    zstd_decode_kernel(DeviceChunkBatch batch, ZstdWorkspace* workspaces, size_t workers,
                       bool verify, const uint32_t* handled, unsigned long long* next_chunk) {
  __shared__ ZstdSequenceCodes warp_codes[kDecodeWarps][kWarpSize];
  const size_t worker = blockIdx.x * size_t{kDecodeWarps} + threadIdx.x / kWarpSize;
  if (worker >= workers) return;
  const unsigned lane = threadIdx.x % kWarpSize;
  ZstdSequenceCodes* codes = warp_codes[threadIdx.x / kWarpSize];
  for (;;) {
    unsigned long long claimed = 0;
    if (lane == 0) claimed = atomicAdd(next_chunk, 1ull);
    const size_t chunk = __shfl_sync(kFullMask, claimed, 0);
    if (chunk >= batch.count) return;
    if (handled != nullptr && handled[chunk] != 0) continue;  // decoded block-parallel
    const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
    auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
    const DecodeResult r =
        warp_zstd_decode(in, batch.input_sizes[chunk], out, batch.output_capacities[chunk],
                         workspaces + worker, codes, verify, lane);
    if (lane == 0) {
      batch.statuses[chunk] = r.status;
      batch.output_sizes[chunk] = r.status == DeviceChunkStatus::ok ? r.size : 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Block-parallel path (zstd_block_parallel.hpp) for chunks larger than one block. The chunks go
// in rounds of at most `slots` chunks, one scratch slot each; per round: plan (a thread per
// chunk), block list, entropy (literals: a warp per block; sequences: a thread per block, in
// small rounds a warp per block), scan (a thread per chunk), block list,
// literals (a warp per block), matches (a warp per block, in ticket order, or a warp per frame in
// order: zstd_bp_in_order), frame list and hash
// (four lanes per frame), finish (a thread per chunk). Chunks the plan leaves to the
// serial decoder are marked in `handled` (0) and decoded by zstd_decode_kernel afterwards.

constexpr int kBpWarps = 4;           // warps per thread block of the block kernels
constexpr unsigned kBpBlocks = 2048;  // thread blocks of the block kernels (8192 warps)
constexpr uint64_t kBpRoundBytes = uint64_t{6} << 30;  // scratch of one round at most

static_assert(kBpWarps * (sizeof(ZstdLiteralTables) + sizeof(ZstdHuffmanStreams)) <= 48 * 1024,
              "the Huffman kernel's tables fit static shared memory");

uint64_t align256(uint64_t n) { return (n + 255) / 256 * 256; }

/// Chunks per round: all of them when their slots fit kBpRoundBytes.
size_t bp_slots(size_t count, uint64_t max_output) {
  const uint64_t slot = zstd_bp_slot_layout(max_output).bytes;
  return std::min<size_t>(count, std::max<uint64_t>(1, kBpRoundBytes / slot));
}

constexpr unsigned kBpSequenceThreads = 8;  // threads per thread block of the sequences kernel
constexpr uint32_t kBpMaxSequenceThreads = 32768;
/// Rounds whose slots hold fewer blocks of 128 KiB than this decode their sequences a warp per
/// block (H200, level 3, 1 MiB chunks: 256 MiB rounds at 15.6 GB/s a warp per block against 14.3
/// a thread per block; from 512 MiB on a thread per block is faster: bench/RESULTS.md).
constexpr uint64_t kBpThreadSequencesFrom = 4096;

/// Threads of the thread-per-block sequences kernel (one block's sequences at a time each, with
/// its own code tables): a thread per block of 128 KiB that a round's slots can hold, at most
/// kBpMaxSequenceThreads; 0 when the round is small enough for the warp-per-block kernel.
uint32_t bp_sequence_threads(size_t slots, uint64_t max_output) {
  const uint64_t blocks = slots * ((max_output + kZstdMaxBlockSize - 1) / kZstdMaxBlockSize);
  if (blocks < kBpThreadSequencesFrom) return 0;
  const uint64_t groups = (blocks + kBpSequenceThreads - 1) / kBpSequenceThreads;
  return static_cast<uint32_t>(
      std::min<uint64_t>(groups * kBpSequenceThreads, kBpMaxSequenceThreads));
}

/// The control area: handled[count], four list prefixes of slots + 1 entries, a ticket, the
/// sequences kernel's code tables.
struct BpControl {
  uint32_t* handled;
  uint32_t* entropy_prefix;
  uint32_t* execute_prefix;
  uint32_t* pieces_prefix;
  uint32_t* hash_prefix;
  uint32_t* ticket;
  ZstdSequenceTables* sequence_tables;  // one per thread of the thread-per-block sequences kernel
};

uint64_t bp_control_bytes(size_t count, size_t slots, uint64_t max_output) {
  return align256(count * 4) + 4 * align256((slots + 1) * 4) + 256 +
         align256(uint64_t{bp_sequence_threads(slots, max_output)} * sizeof(ZstdSequenceTables));
}

BpControl bp_control(unsigned char* base, size_t count, size_t slots) {
  BpControl c;
  c.handled = reinterpret_cast<uint32_t*>(base);
  base += align256(count * 4);
  c.entropy_prefix = reinterpret_cast<uint32_t*>(base);
  base += align256((slots + 1) * 4);
  c.execute_prefix = reinterpret_cast<uint32_t*>(base);
  base += align256((slots + 1) * 4);
  c.pieces_prefix = reinterpret_cast<uint32_t*>(base);
  base += align256((slots + 1) * 4);
  c.hash_prefix = reinterpret_cast<uint32_t*>(base);
  base += align256((slots + 1) * 4);
  c.ticket = reinterpret_cast<uint32_t*>(base);
  base += 256;
  c.sequence_tables = reinterpret_cast<ZstdSequenceTables*>(base);
  return c;
}

struct BpRound {
  DeviceChunkBatch batch;
  size_t first;  // first chunk of the round
  uint32_t n;    // chunks in the round
  unsigned char* slots;
  uint64_t slot_bytes;
  ZstdSlotLayout layout;
  uint64_t max_output;
  uint64_t min_capacity;       // block-parallel from this capacity on
  uint32_t in_order_permille;  // frames with this share of external match bytes: in order
  uint64_t stretch;            // the other frames' matches: in stretches of this many bytes
  uint64_t matches_warps;      // resident warps of the matches kernel
};

__device__ inline ZstdSlot bp_slot(const BpRound& r, uint32_t s) {
  return zstd_bp_slot(r.slots + s * r.slot_bytes, r.layout);
}

/// Plan, part 1 (a thread per chunk): the walk over frames and block headers.
__global__ void zstd_bp_plan_kernel(BpRound r) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= r.n) return;
  const size_t c = r.first + s;
  const ZstdSlot slot = bp_slot(r, s);
  const uint64_t capacity = r.batch.output_capacities[c];
  if (capacity > r.max_output) {  // the slot is too small: leave it to the serial decoder
    *slot.plan = ZstdChunkPlan{};
  } else {
    zstd_bp_plan_headers(reinterpret_cast<const unsigned char*>(r.batch.inputs[c]),
                         r.batch.input_sizes[c], capacity, slot, r.min_capacity);
  }
}

/// Plan, part 3 (a thread per chunk): the blocks linked in stream order; whether the chunk
/// decodes block-parallel goes to `handled`.
__global__ void zstd_bp_link_kernel(BpRound r, uint32_t* handled) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= r.n) return;
  const size_t c = r.first + s;
  const ZstdSlot slot = bp_slot(r, s);
  zstd_bp_plan_link(r.batch.output_capacities[c], slot);
  handled[c] = slot.plan->block_parallel;
}

enum class BpList { entropy, execute, pieces, hash };

/// Threads of the list kernel (one block; one warp scans the warps' totals).
constexpr unsigned kListThreads = 1024;
static_assert(kListThreads == kWarpSize * kWarpSize);

/// The list items of slot s (entropy: every planned block; execute: the blocks the scan kept;
/// pieces: their pieces, zstd_bp_pieces; hash: the frames that passed the scan).
__device__ inline uint32_t bp_list_items(const BpRound& r, uint32_t s, BpList list) {
  const ZstdChunkPlan& plan = *bp_slot(r, s).plan;
  if (!plan.block_parallel) return 0;
  return list == BpList::entropy   ? plan.block_count
         : list == BpList::execute ? plan.executed_blocks
         : list == BpList::pieces  ? plan.executed_pieces
                                   : plan.checked_frames;
}

/// prefix[s] = list items of the slots before s, prefix[n] = all of them; resets the ticket. One
/// block: each thread adds up a range of slots, a block-wide scan places the ranges.
__global__ void __launch_bounds__(kListThreads)
    zstd_bp_list_kernel(BpRound r, uint32_t* prefix, BpList list, uint32_t* ticket) {
  __shared__ uint32_t warp_totals[kListThreads / kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const uint32_t per = (r.n + kListThreads - 1) / kListThreads;
  const uint32_t begin = min(r.n, threadIdx.x * per), end = min(r.n, begin + per);
  uint32_t sum = 0;
  for (uint32_t s = begin; s < end; ++s) sum += bp_list_items(r, s, list);
  uint32_t inclusive = sum;  // within the warp
  for (unsigned d = 1; d < kWarpSize; d <<= 1) {
    const uint32_t other = __shfl_up_sync(kFullMask, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    uint32_t total = warp_totals[lane];
    for (unsigned d = 1; d < kWarpSize; d <<= 1) {
      const uint32_t other = __shfl_up_sync(kFullMask, total, d);
      if (lane >= d) total += other;
    }
    warp_totals[lane] = total;  // inclusive over the warps
  }
  __syncthreads();
  uint32_t running = inclusive - sum + (warp > 0 ? warp_totals[warp - 1] : 0);
  for (uint32_t s = begin; s < end; ++s) {
    prefix[s] = running;
    running += bp_list_items(r, s, list);
  }
  if (threadIdx.x == kListThreads - 1) {
    prefix[r.n] = running;
    *ticket = 0;
  }
}

/// The slot of list item t: the last s with prefix[s] <= t.
__device__ inline uint32_t bp_find_slot(const uint32_t* prefix, uint32_t n, uint32_t t) {
  uint32_t lo = 0, hi = n;  // prefix[lo] <= t < prefix[hi]
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (prefix[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// A block list's item: block `block` of a slot (its piece `piece` in the list of pieces, else
/// 0), whose chunk decodes from `in` into `out`.
struct BpListItem {
  ZstdSlot slot;
  uint32_t block;
  uint32_t piece;
  const unsigned char* in;
  unsigned char* out;
  __device__ ZstdBlockRecord& rec() const { return slot.blocks[block]; }
};

/// The block of a slot's executed blocks that holds its piece p: the last b with piece_first <= p.
__device__ inline uint32_t bp_piece_block(const ZstdSlot& slot, uint32_t p) {
  uint32_t lo = 0, hi = slot.plan->executed_blocks;  // piece_first[lo] <= p < piece_first[hi]
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (slot.blocks[mid].piece_first <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Item t of list `list` (whose prefix is `prefix`).
__device__ inline BpListItem bp_list_item(const BpRound& r, const uint32_t* prefix, uint32_t t,
                                          BpList list = BpList::execute) {
  const uint32_t s = bp_find_slot(prefix, r.n, t);
  const size_t chunk = r.first + s;
  BpListItem item{bp_slot(r, s), t - prefix[s], 0,
                  reinterpret_cast<const unsigned char*>(r.batch.inputs[chunk]),
                  reinterpret_cast<unsigned char*>(r.batch.outputs[chunk])};
  if (list == BpList::pieces) {
    const uint32_t p = item.block;
    item.block = bp_piece_block(item.slot, p);
    item.piece = p - item.slot.blocks[item.block].piece_first;
  }
  return item;
}

/// Plan, part 2 (a thread per walked block, the grid striding over the list): each compressed
/// block's section headers. A 32 MiB chunk's 256 blocks would take one thread some 5 ms one
/// after the other (H200), most of it in the FSE descriptions.
__global__ void zstd_bp_sections_kernel(BpRound r, const uint32_t* prefix) {
  const uint32_t total = prefix[r.n];
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const BpListItem item = bp_list_item(r, prefix, t);
    zstd_bp_plan_sections(item.in, item.rec());
  }
}

/// Calls body(item) for every item of a block list, a warp per item (every lane alike), the
/// warps of the grid striding over the list.
template <class Body>
__device__ inline void bp_for_each_item_by_warp(const BpRound& r, const uint32_t* prefix,
                                                Body&& body) {
  const unsigned warp = threadIdx.x / kWarpSize;
  const uint32_t total = prefix[r.n];
  for (uint32_t t = blockIdx.x * kBpWarps + warp; t < total; t += gridDim.x * kBpWarps) {
    body(bp_list_item(r, prefix, t));
  }
}

/// Claims items of list `list` from `ticket` (a warp at a time, every lane alike, when kByWarp;
/// else each thread for itself) and calls body(item) until the list is done: items go in list
/// order.
template <bool kByWarp, class Body>
__device__ inline void bp_for_each_claimed_item(const BpRound& r, const uint32_t* prefix,
                                                uint32_t* ticket, BpList list, Body&& body) {
  const uint32_t total = prefix[r.n];
  for (;;) {
    uint32_t t = 0;
    if (!kByWarp || threadIdx.x % kWarpSize == 0) t = atomicAdd(ticket, 1u);
    if (kByWarp) t = __shfl_sync(kFullMask, t, 0);
    if (t >= total) return;
    body(bp_list_item(r, prefix, t, list));
  }
}

/// Phase 2a, literals (a warp per block): raw and RLE literals copied into the literal area,
/// Huffman streams decoded there by the warp. Sets every block's literal_status.
__global__ void __launch_bounds__(kBpWarps* kWarpSize)
    zstd_bp_huffman_kernel(BpRound r, const uint32_t* prefix) {
  __shared__ ZstdLiteralTables tables[kBpWarps];
  __shared__ ZstdHuffmanStreams streams[kBpWarps];
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  bp_for_each_item_by_warp(r, prefix, [&](const BpListItem& item) {
    ZstdBlockRecord& rec = item.rec();
    unsigned char* literals = item.slot.literals;
    if (rec.type == 2) zstd_bp_copy_literals(item.in, rec, literals, lane, kWarpSize);
    DeviceChunkStatus status = DeviceChunkStatus::ok;
    if (lane == 0) {
      status = zstd_bp_prepare_literals(item.in, rec, tables[warp], literals, streams[warp]);
    }
    __syncwarp();  // the Huffman table and the stream locations are visible to the warp
    status = static_cast<DeviceChunkStatus>(__shfl_sync(kFullMask, static_cast<int>(status), 0));
    if (status == DeviceChunkStatus::ok) {
      status =
          detail::warp_zstd_decode_huffman(tables[warp].huffman, streams[warp], literals, lane);
    }
    if (lane == 0) rec.literal_status = status;
    __syncwarp();  // the tables are free for the next block
  });
}

/// Phase 2b, sequences (a thread per block): zstd_bp_decode_sequences for every block of fewer
/// than kZstdWarpSequencesFrom sequences (the warp kernel takes the others), each thread with its
/// own code tables (`tables`, in global memory: 6 KiB a thread would not fit
/// shared memory), claiming blocks from `next_block` until none are left. A block's FSE states
/// form one serial chain, so a block is one thread's work. Thread blocks of kBpSequenceThreads:
/// the threads of a warp finish their blocks at different times (level 3 on the bench's field:
/// from a few hundred to 9700 sequences a block, median 2600) and take different branches, so
/// fewer threads a warp decode faster (8: 1.10x against 32, bench/RESULTS.md).
__global__ void __launch_bounds__(kBpSequenceThreads)
    zstd_bp_sequences_kernel(BpRound r, const uint32_t* prefix, uint32_t* next_block,
                             ZstdSequenceTables* tables) {
  ZstdSequenceTables& mine = tables[blockIdx.x * blockDim.x + threadIdx.x];
  bp_for_each_claimed_item<false>(
      r, prefix, next_block, BpList::entropy, [&](const BpListItem& item) {
        ZstdBlockRecord& rec = item.rec();
        if (rec.sequence_count >= kZstdWarpSequencesFrom) return;
        rec.status = zstd_bp_decode_sequences(item.in, rec, mine, item.slot.sequences);
      });
}

/// Phase 2b for small rounds, sequences a warp per block (warp_zstd_bp_decode_sequences: lane 0
/// follows the FSE chain, the other lanes read the extra bits, check and write the records), the
/// code tables in shared memory. With few blocks, one block's chain is the pass's whole time, and
/// lane 0 alone follows it about 2.5 times faster than a thread that does everything. Only the
/// blocks of at least `min_sequences` sequences (0: every block).
__global__ void __launch_bounds__(kBpWarps* kWarpSize)
    zstd_bp_warp_sequences_kernel(BpRound r, const uint32_t* prefix, uint32_t min_sequences) {
  __shared__ ZstdSequenceTables tables[kBpWarps];
  __shared__ ZstdSequenceCodes codes[kBpWarps][kWarpSize];
  const unsigned warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  bp_for_each_item_by_warp(r, prefix, [&](const BpListItem& item) {
    ZstdBlockRecord& rec = item.rec();
    if (rec.sequence_count < min_sequences) return;
    const DeviceChunkStatus status = detail::warp_zstd_bp_decode_sequences(
        item.in, rec, tables[warp], item.slot.sequences, codes[warp], lane);
    if (lane == 0) rec.status = status;
    __syncwarp();  // the tables and codes are free for the next block
  });
}

/// The round's piece length (zstd_bp_round_piece_sequences of its block-parallel chunks'
/// sequences) into every such chunk's plan, before the scan. One block: each thread adds up a
/// range of slots, a block-wide sum joins them.
__global__ void __launch_bounds__(kListThreads) zstd_bp_piece_length_kernel(BpRound r) {
  __shared__ unsigned long long total;
  const uint32_t per = (r.n + kListThreads - 1) / kListThreads;
  const uint32_t begin = min(r.n, threadIdx.x * per), end = min(r.n, begin + per);
  unsigned long long sum = 0;
  for (uint32_t s = begin; s < end; ++s) {
    const ZstdChunkPlan& plan = *bp_slot(r, s).plan;
    if (plan.block_parallel) sum += plan.sequence_count;
  }
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  for (unsigned d = kWarpSize / 2; d > 0; d /= 2) sum += __shfl_down_sync(kFullMask, sum, d);
  if (threadIdx.x % kWarpSize == 0) atomicAdd(&total, sum);
  __syncthreads();
  const uint32_t length = zstd_bp_round_piece_sequences(total, r.matches_warps);
  for (uint32_t s = begin; s < end; ++s) bp_slot(r, s).plan->piece_sequences = length;
}

__global__ void zstd_bp_scan_kernel(BpRound r) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= r.n) return;
  const ZstdSlot slot = bp_slot(r, s);
  if (slot.plan->block_parallel) zstd_bp_scan(r.batch.output_capacities[r.first + s], slot);
}

/// Phase 4a for block b (zstd_bp_execute_literals_serial, by a warp): raw / RLE blocks, the
/// literals of a compressed block 32 sequences at a time, every offset checked; then the block's
/// entries of the position index (zstd_bp_index_block).
__device__ inline void bp_literals_block(const unsigned char* in, const ZstdSlot& slot, uint32_t b,
                                         unsigned char* out, unsigned lane) {
  ZstdBlockRecord& rec = slot.blocks[b];
  const uint64_t start = rec.output_offset;
  bool bad = false;
  if (rec.type == 0) {
    detail::cooperative_copy(out + start, in + rec.in_offset, rec.decoded_size, lane, kWarpSize);
  } else if (rec.type == 1) {
    const unsigned char v = in[rec.in_offset];
    for (uint64_t t = lane; t < rec.decoded_size; t += kWarpSize) out[start + t] = v;
  } else {
    const uint64_t frame_start = slot.frames[rec.frame].output_offset;
    const unsigned char* literals = slot.literals + rec.literal_offset;
    const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
    const uint32_t count = rec.sequence_tables ? rec.sequence_count : 0;
    uint64_t lp = 0, external = 0;
    for (uint32_t g = 0; g < count; g += kWarpSize) {
      const uint32_t i = g + lane;
      ZstdSeqRecord seq{0, 0, 0, 0};
      if (i < count) seq = seqs[i];
      const uint64_t ll = seq.literal_length, at = start + seq.match_at;
      const uint64_t ll_end = detail::warp_inclusive_sum64(ll, lane);
      const uint64_t my_lp = lp + ll_end - ll;
      uint64_t offset = 0;
      if (i < count) {
        if (zstd_bp_resolve_offset(seq, rec.start_reps, at, frame_start, offset) ==
            DeviceChunkStatus::ok) {
          external += zstd_bp_external_match_bytes(at, seq.match_length & kZstdSeqLengthMask,
                                                   offset, start);
        } else {
          bad = true;
        }
      }
      // Sequence after sequence, by the whole warp: literal runs are short, and lanes copying
      // their own runs store to 32 places at once (1.14x slower, bench/RESULTS.md).
      const uint32_t n = count - g < kWarpSize ? count - g : kWarpSize;
      for (uint32_t j = 0; j < n; ++j) {
        const uint64_t len = detail::shfl64(ll, j), from = detail::shfl64(my_lp, j);
        const uint64_t to = detail::shfl64(at - ll, j);
        for (uint64_t t = lane; t < len; t += kWarpSize) out[to + t] = literals[from + t];
      }
      lp += detail::shfl64(ll_end, kWarpSize - 1);
    }
    const uint64_t rest = rec.literal_size - lp;  // the literals after the last sequence
    const uint64_t tail = start + rec.decoded_size - rest;
    for (uint64_t t = lane; t < rest; t += kWarpSize) out[tail + t] = literals[lp + t];
    external = detail::shfl64(detail::warp_inclusive_sum64(external, lane), kWarpSize - 1);
    if (lane == 0) rec.external_bytes = static_cast<uint32_t>(external);
  }
  zstd_bp_index_block(slot, b, lane, kWarpSize);
  bad = __any_sync(kFullMask, bad);
  if (lane == 0)
    rec.execute_status = bad ? DeviceChunkStatus::corrupt_input : DeviceChunkStatus::ok;
}

__global__ void __launch_bounds__(kBpWarps* kWarpSize)
    zstd_bp_literals_kernel(BpRound r, const uint32_t* prefix) {
  const unsigned lane = threadIdx.x % kWarpSize;
  bp_for_each_item_by_warp(r, prefix, [&](const BpListItem& item) {
    bp_literals_block(item.in, item.slot, item.block, item.out, lane);
  });
}

/// Source chase steps before a match byte waits for the earlier block (or the reader's earlier
/// pieces) that write its source.
constexpr uint32_t kBpChaseSteps = 16;

/// Who reads bytes before its own in the matches pass: block `block`, whose own bytes (written in
/// order by the reading warp, or literals) start at `own_start`. A warp that runs a stretch of
/// blocks reads as each of them, with own_start at the stretch's start (piece 0); a warp that
/// runs piece `piece` of a block, with own_start at its zstd_bp_piece_range's: the bytes of the
/// block before it are final once the block's earlier pieces are done. Readers look up only bytes
/// before own_start, which a stretch's reader never finds in its own block (own_start is at or
/// before the block's start): only a piece's reader finds its own block there.
struct BpReader {
  uint32_t block;
  uint32_t piece;
  uint64_t own_start;
};

/// The pieces_done bits of the reader's earlier pieces.
__device__ inline uint32_t bp_earlier_pieces(const BpReader& reader) {
  return (1u << reader.piece) - 1;  // piece < kZstdMaxPieces = 32
}

/// Whether earlier pieces `mask` of block k are all done.
__device__ inline bool bp_pieces_done(const ZstdSlot& slot, uint32_t k, uint32_t mask) {
  const auto* bits = reinterpret_cast<const volatile uint32_t*>(&slot.blocks[k].pieces_done);
  return (*bits & mask) == mask;
}

/// The byte at q, before the reader's own bytes, after a long chain: read once the block (or the
/// reader's earlier pieces) that write it are done, through L2 (an L1 line may predate it).
__device__ inline unsigned char bp_wait_byte(const ZstdSlot& slot, const BpReader& reader,
                                             uint64_t q, const unsigned char* out) {
  const uint32_t b = reader.block;
  const uint32_t k =
      zstd_bp_block_at(slot, slot.frames[slot.blocks[b].frame].first_block, b + 1, q);
  if (k == b) {
    while (!bp_pieces_done(slot, b, bp_earlier_pieces(reader))) __nanosleep(64);
  } else {
    const volatile uint32_t* done = &slot.blocks[k].done;
    while (*done == 0) __nanosleep(64);
  }
  __threadfence();
  return __ldcg(out + q);
}

/// The block of the reader's frame, up to its own, that holds output position q; `hint` first.
__device__ inline uint32_t bp_earlier_block(const ZstdSlot& slot, const BpReader& reader,
                                            uint64_t q, const ZstdChaseHint& hint) {
  const uint32_t b = reader.block;
  const uint32_t first = slot.frames[slot.blocks[b].frame].first_block;
  if (hint.block >= first && hint.block <= b) {
    const ZstdBlockRecord& rec = slot.blocks[hint.block];
    if (rec.output_offset <= q && q - rec.output_offset < rec.decoded_size) return hint.block;
  }
  return zstd_bp_block_at(slot, first, b + 1, q);
}

/// Whether the bytes of block k (an earlier block, or the reader's own before its own bytes) are
/// final (read them through L2, as an L1 line may predate them); `end`: where they end.
__device__ inline bool bp_block_done(const ZstdSlot& slot, const BpReader& reader, uint32_t k,
                                     uint64_t& end) {
  const ZstdBlockRecord& rec = slot.blocks[k];
  if (k == reader.block) {
    end = reader.own_start;
    if (!bp_pieces_done(slot, k, bp_earlier_pieces(reader))) return false;
  } else {
    end = rec.output_offset + rec.decoded_size;
    if (*reinterpret_cast<const volatile uint32_t*>(&rec.done) == 0) return false;
  }
  __threadfence();
  return true;
}

/// The byte a match of the reader reads at q, before its own bytes: read at once when what writes
/// it is done, else chased to a literal (written by the literals kernel, never rewritten: a plain
/// load is right) or to the reader's own bytes, else bp_wait_byte.
__device__ inline unsigned char bp_earlier_byte(const ZstdSlot& slot, const BpReader& reader,
                                                uint64_t q, const unsigned char* out,
                                                ZstdChaseHint& hint) {
  uint64_t end = 0;
  if (bp_block_done(slot, reader, bp_earlier_block(slot, reader, q, hint), end)) {
    return __ldcg(out + q);
  }
  if (zstd_bp_chase_source(slot, reader.block, reader.own_start, q, kBpChaseSteps, hint)) {
    return out[q];
  }
  return bp_wait_byte(slot, reader, q, out);
}

/// Copies to out[to, to + n) the bytes at out[q, q + n), all before the reader's own bytes:
/// straight from a block (or earlier pieces) that is done, else by runs chased to literals
/// (zstd_bp_chase_run), one byte at a time where a chain is long.
__device__ inline void bp_copy_earlier(const ZstdSlot& slot, const BpReader& reader, uint64_t to,
                                       uint64_t q, uint64_t n, unsigned char* out,
                                       ZstdChaseHint& hint) {
  while (n > 0) {
    uint64_t from = q, run = n, end = 0;
    const uint32_t k = bp_earlier_block(slot, reader, q, hint);
    // The chase's first step looks for q's sequence in block k without searching for the block.
    if (hint.block != k) hint = ZstdChaseHint{k, UINT32_MAX};
    if (bp_block_done(slot, reader, k, end)) {
      run = detail::umin(n, end - q);
      for (uint64_t i = 0; i < run; ++i) out[to + i] = __ldcg(out + from + i);
    } else if (zstd_bp_chase_run(slot, reader.block, reader.own_start, from, kBpChaseSteps, hint,
                                 run)) {
      for (uint64_t i = 0; i < run; ++i) out[to + i] = out[from + i];
    } else {
      run = 1;
      out[to] = bp_wait_byte(slot, reader, from, out);
    }
    to += run;
    q += run;
    n -= run;
  }
}

/// Copies one match of the reader by its own lane, in order (an overlapping match reads the bytes
/// it has just written): bytes before the reader's own by runs (bp_copy_earlier), the others
/// straight.
__device__ inline void bp_lane_match(const ZstdSlot& slot, const BpReader& reader, uint64_t at,
                                     uint64_t ml, uint64_t offset, unsigned char* out,
                                     ZstdChaseHint& hint) {
  for (uint64_t t = 0; t < ml;) {
    const uint64_t q = at + t - offset;
    if (q < reader.own_start) {  // consecutive bytes before the reader's own, by runs
      const uint64_t n = detail::umin(ml - t, reader.own_start - q);
      bp_copy_earlier(slot, reader, at + t, q, n, out, hint);
      t += n;
    } else {
      out[at + t] = out[q];
      ++t;
    }
  }
}

/// Phase 4b for sequences [begin, end) of the reader's block (zstd_bp_execute_piece_matches_serial,
/// by a warp), after 4a for every block: 32 sequences at a time. Every byte from the reader's
/// `own_start` up to them is final. A group's matches run in waves (warp_match_waves: a match
/// runs once no pending match of the group writes its source). When they all read bytes from
/// `own_start` on, the lanes copy them as the warp decoders do (warp_copy_matches); otherwise a
/// ready match of up to kLaneItemBytes is copied by its lane with the bytes before `own_start`
/// chased by runs (bp_lane_match), a longer one by the whole warp, a byte a lane. The caller
/// publishes that they are done.
__device__ inline void bp_matches_run(const ZstdSlot& slot, const BpReader& reader, uint32_t begin,
                                      uint32_t end, unsigned char* out, unsigned lane) {
  const ZstdBlockRecord& rec = slot.blocks[reader.block];
  if (rec.type != 2 || rec.execute_status != DeviceChunkStatus::ok) return;
  const uint64_t block_end = rec.output_offset + rec.decoded_size;
  const uint64_t frame_start = slot.frames[rec.frame].output_offset;
  const uint64_t ordered_from = reader.own_start;
  const ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
  ZstdChaseHint hint;
  for (uint32_t g = begin; g < end; g += kWarpSize) {
    const uint32_t i = g + lane;
    ZstdSeqRecord seq{0, 0, 0, 0};
    if (i < end) seq = seqs[i];
    const uint64_t ml = seq.match_length & kZstdSeqLengthMask;
    // Lanes without a match sit at the block's end, past every match (warp_match_waves).
    const uint64_t at = i < end ? rec.output_offset + seq.match_at : block_end;
    uint64_t offset = 1;
    if (i < end) zstd_bp_resolve_offset(seq, rec.start_reps, at, frame_start, offset);
    const bool has_match = i < end && ml > 0;
    if (!__any_sync(kFullMask, has_match && at - offset < ordered_from)) {
      detail::warp_copy_matches(has_match, at, ml, offset, out, lane);
      continue;
    }
    detail::warp_match_waves(has_match, at, ml, offset, lane, [&](bool ready) {
      if (ready && ml <= detail::kLaneItemBytes) {
        bp_lane_match(slot, reader, at, ml, offset, out, hint);
      }
      unsigned long_ready = __ballot_sync(kFullMask, ready && ml > detail::kLaneItemBytes);
      while (long_ready != 0) {
        const unsigned j = __ffs(long_ready) - 1;
        long_ready &= long_ready - 1;
        const uint64_t len = detail::shfl64(ml, j), to = detail::shfl64(at, j);
        const uint64_t dist = detail::shfl64(offset, j);
        for (uint64_t t = lane; t < len; t += kWarpSize) {
          const uint64_t q = match_source(to, dist, t);
          out[to + t] = q < ordered_from ? bp_earlier_byte(slot, reader, q, out, hint) : out[q];
        }
      }
    });
  }
}

/// Phase 4b for block b whole, in a stretch that starts at `ordered_from` (bp_matches_run), then
/// publishes the block's `done`.
__device__ inline void bp_matches_block(const ZstdSlot& slot, uint32_t b, unsigned char* out,
                                        unsigned lane, uint64_t ordered_from) {
  ZstdBlockRecord& rec = slot.blocks[b];
  bp_matches_run(slot, BpReader{b, 0, ordered_from}, 0, zstd_bp_executed_sequences(rec), out, lane);
  __threadfence();  // every lane's bytes are visible device-wide before `done`
  __syncwarp();
  if (lane == 0) *reinterpret_cast<volatile uint32_t*>(&rec.done) = 1;
}

/// Phase 4b for piece p of block b (a block that is a stretch by itself, zstd_bp_pieces), then
/// publishes the piece's bit in `pieces_done`; the warp that sets the last bit publishes the
/// block's `done`.
__device__ inline void bp_matches_piece(const ZstdSlot& slot, uint32_t b, uint32_t p,
                                        unsigned char* out, unsigned lane) {
  ZstdBlockRecord& rec = slot.blocks[b];
  const uint32_t pieces = zstd_bp_pieces(rec, slot.plan->piece_sequences);
  const ZstdPieceRange range = zstd_bp_piece_range(slot, rec, p);
  if (range.begin < range.end) {
    bp_matches_run(slot, BpReader{b, p, range.own_start}, range.begin, range.end, out, lane);
  }
  __threadfence();  // every lane's bytes are visible device-wide before the piece's bit
  __syncwarp();
  if (lane == 0) {
    const uint32_t all = pieces >= 32 ? ~0u : (1u << pieces) - 1;
    const uint32_t was = atomicOr(&rec.pieces_done, 1u << p);
    if ((was | (1u << p)) == all) {
      __threadfence();  // the other pieces' bytes, seen through their bits, before `done`
      *reinterpret_cast<volatile uint32_t*>(&rec.done) = 1;
    }
  }
}

/// Whether frame f runs its matches in order (zstd_bp_in_order over its executed blocks, by the
/// warp; every lane gets the answer).
__device__ inline bool bp_frame_in_order(const BpRound& r, const ZstdSlot& slot, uint32_t f,
                                         unsigned lane) {
  const ZstdFrameRecord& frame = slot.frames[f];
  const uint32_t end = min(frame.first_block + frame.block_count, slot.plan->executed_blocks);
  uint64_t external = 0, bytes = 0;
  for (uint32_t k = frame.first_block + lane; k < end; k += kWarpSize) {
    external += slot.blocks[k].external_bytes;
    bytes += slot.blocks[k].decoded_size;
  }
  external = detail::shfl64(detail::warp_inclusive_sum64(external, lane), kWarpSize - 1);
  bytes = detail::shfl64(detail::warp_inclusive_sum64(bytes, lane), kWarpSize - 1);
  return zstd_bp_in_order(external, bytes, r.in_order_permille);
}

/// Whether block k of `frame` starts a stretch of `stretch` bytes (zstd_bp_stretch_head).
__device__ inline bool bp_stretch_head(const ZstdSlot& slot, const ZstdFrameRecord& frame,
                                       uint32_t k, uint64_t stretch) {
  const bool first = k == frame.first_block;
  const uint64_t previous = first ? 0 : slot.blocks[k - 1].output_offset - frame.output_offset;
  return zstd_bp_stretch_head(first, previous, slot.blocks[k].output_offset - frame.output_offset,
                              stretch);
}

/// Warps take pieces of blocks in list order (a ticket). A block that is a stretch by itself (a
/// frame not in order whose stretches are no longer than a block) runs a warp per piece
/// (bp_matches_piece). Otherwise the warp that takes the first piece of a stretch's first block
/// (the whole frame when it runs in order) runs the stretch's matches block after block: sources
/// in the stretch are final when read; those before it are read from a block that is done, or
/// chased, or waited for; the warps that take the stretch's other pieces move on. A piece or
/// stretch waits only for earlier pieces and stretches, whose first pieces running warps took
/// before it: the earliest unfinished one never waits, and every wait ends.
__global__ void __launch_bounds__(kBpWarps* kWarpSize)
    zstd_bp_matches_kernel(BpRound r, const uint32_t* prefix, uint32_t* ticket) {
  const unsigned lane = threadIdx.x % kWarpSize;
  bp_for_each_claimed_item<true>(r, prefix, ticket, BpList::pieces, [&](const BpListItem& item) {
    const ZstdSlot& slot = item.slot;
    const uint32_t f = slot.blocks[item.block].frame;
    const ZstdFrameRecord& frame = slot.frames[f];
    const uint64_t stretch = bp_frame_in_order(r, slot, f, lane) ? kZstdStretchWhole : r.stretch;
    if (!bp_stretch_head(slot, frame, item.block, stretch)) return;
    const uint32_t end = min(frame.first_block + frame.block_count, slot.plan->executed_blocks);
    if (stretch != kZstdStretchWhole &&
        (item.block + 1 == end || bp_stretch_head(slot, frame, item.block + 1, stretch))) {
      bp_matches_piece(slot, item.block, item.piece, item.out, lane);
      return;
    }
    if (item.piece != 0) return;
    const uint64_t ordered_from = slot.blocks[item.block].output_offset;
    uint32_t k = item.block;
    do {
      bp_matches_block(slot, k, item.out, lane, ordered_from);
      ++k;
    } while (k < end && !bp_stretch_head(slot, frame, k, stretch));
  });
}

/// Four lanes per frame (8 frames per warp): the XXH64 accumulators, then lane 0 of the four
/// combines them.
__global__ void zstd_bp_hash_kernel(BpRound r, const uint32_t* prefix) {
  const uint32_t total = prefix[r.n];
  const unsigned lane = threadIdx.x % kWarpSize, k = lane % 4;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
  const uint32_t warps = gridDim.x * blockDim.x / kWarpSize;
  for (uint32_t first = warp * 8; first < total; first += warps * 8) {
    const uint32_t t = first + lane / 4;
    ZstdFrameRecord* frame = nullptr;
    const unsigned char* data = nullptr;
    uint64_t v = 0;
    if (t < total) {
      const uint32_t s = bp_find_slot(prefix, r.n, t);
      const ZstdSlot slot = bp_slot(r, s);
      const uint32_t f = t - prefix[s];
      if (zstd_bp_frame_hashed(slot, f)) {
        frame = &slot.frames[f];
        data = reinterpret_cast<const unsigned char*>(r.batch.outputs[r.first + s]) +
               frame->output_offset;
        v = zstd_bp_xxh64_lane(data, frame->output_size, k);
      }
    }
    uint64_t lanes[4];
    for (unsigned j = 0; j < 4; ++j) {
      lanes[j] = __shfl_sync(kFullMask, static_cast<unsigned long long>(v), (lane & ~3u) + j);
    }
    if (k == 0 && frame != nullptr) {
      frame->hash = zstd_bp_xxh64_combine(lanes, data, frame->output_size);
    }
  }
}

__global__ void zstd_bp_finish_kernel(BpRound r, bool verify) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= r.n) return;
  const ZstdSlot slot = bp_slot(r, s);
  if (!slot.plan->block_parallel) return;
  const size_t c = r.first + s;
  const DecodeResult result =
      zstd_bp_finish(reinterpret_cast<const unsigned char*>(r.batch.inputs[c]), slot, verify);
  r.batch.statuses[c] = result.status;
  r.batch.output_sizes[c] = result.status == DeviceChunkStatus::ok ? result.size : 0;
}

/// Resident warps of the matches kernel on the current device (at most its grid's).
uint64_t bp_matches_warps() {
  return std::min<uint64_t>(
      uint64_t{kBpBlocks} * kBpWarps,
      detail::resident_blocks(zstd_bp_matches_kernel, kBpWarps * kWarpSize) * kBpWarps);
}

/// The warp kernel's workspaces, then its chunk counter.
uint64_t warp_path_bytes(size_t count) {
  return align256(decode_workers(count) * sizeof(ZstdWorkspace)) + 256;
}

}  // namespace

size_t zstd_decode_temp_bytes(size_t count) { return zstd_decode_temp_bytes(count, 0); }

uint32_t zstd_round_piece_sequences(uint64_t sequences) {
  return zstd_bp_round_piece_sequences(sequences, bp_matches_warps());
}

size_t zstd_decode_temp_bytes(size_t count, uint64_t max_output, uint64_t block_parallel_from) {
  if (count == 0) return 0;
  block_parallel_from = zstd_block_parallel_from(count, block_parallel_from);
  uint64_t bytes = warp_path_bytes(count);
  if (max_output >= block_parallel_from) {
    const size_t slots = bp_slots(count, max_output);
    bytes +=
        bp_control_bytes(count, slots, max_output) + slots * zstd_bp_slot_layout(max_output).bytes;
  }
  return bytes;
}

void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, uint64_t max_output,
                       void* temp, Stream stream, uint64_t block_parallel_from,
                       uint32_t in_order_permille, uint64_t stretch) {
  if (batch.count == 0) return;
  block_parallel_from = zstd_block_parallel_from(batch.count, block_parallel_from);
  const cudaStream_t s = detail::to_cuda(stream.native());
  auto* base = static_cast<unsigned char*>(temp);
  const uint32_t* handled = nullptr;
  if (max_output >= block_parallel_from) {
    const size_t slots = bp_slots(batch.count, max_output);
    const BpControl control = bp_control(base + warp_path_bytes(batch.count), batch.count, slots);
    handled = control.handled;
    BpRound r;
    r.batch = batch;
    r.slots =
        base + warp_path_bytes(batch.count) + bp_control_bytes(batch.count, slots, max_output);
    r.layout = zstd_bp_slot_layout(max_output);
    r.slot_bytes = r.layout.bytes;
    r.max_output = max_output;
    r.min_capacity = block_parallel_from;
    r.in_order_permille = in_order_permille;
    r.matches_warps = bp_matches_warps();
    const unsigned sequence_blocks = bp_sequence_threads(slots, max_output) / kBpSequenceThreads;
    // The serial per-chunk kernels (the plan's walk and link, scan, finish) go over a chunk's
    // blocks one after the other (the section headers and FSE table descriptions are read a
    // thread per block, between the walk and the link). A round whose
    // chunks fit in one wave of one-thread blocks gives each chunk a warp of its own, spread over
    // every SM, rather than 32 walks diverging in one warp on a few SMs (a 32 MiB chunk's walk is
    // 256 blocks long); larger rounds (small chunks, short walks) keep 128 chunks a block.
    const uint64_t one_thread_wave = detail::resident_blocks(zstd_bp_plan_kernel, 1);
    for (size_t first = 0; first < batch.count; first += slots) {
      r.first = first;
      r.n = static_cast<uint32_t>(std::min(slots, batch.count - first));
      r.stretch = stretch == kZstdStretchAuto ? zstd_bp_auto_stretch(r.n) : stretch;
      const unsigned chunk_threads = r.n <= one_thread_wave ? 1 : 128;
      const unsigned chunk_blocks = (r.n + chunk_threads - 1) / chunk_threads;
      zstd_bp_plan_kernel<<<chunk_blocks, chunk_threads, 0, s>>>(r);
      zstd_bp_list_kernel<<<1, kListThreads, 0, s>>>(r, control.entropy_prefix, BpList::entropy,
                                                     control.ticket);  // the walked blocks
      zstd_bp_sections_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(r, control.entropy_prefix);
      zstd_bp_link_kernel<<<chunk_blocks, chunk_threads, 0, s>>>(r, control.handled);
      zstd_bp_list_kernel<<<1, kListThreads, 0, s>>>(r, control.entropy_prefix, BpList::entropy,
                                                     control.ticket);  // the planned blocks
      if (sequence_blocks > 0) {
        // The sequences kernels (a thread per block: few warps, and its time is its longest
        // blocks' chains; a warp per block of many sequences) on high-priority forks, launched
        // first, so that their threads start at once and the Huffman kernel fills the rest of
        // the GPU beside them (H200, level 3, 64 KiB chunks: 1.11x; bench/RESULTS.md).
        detail::StreamFork long_fork(s, true);
        detail::StreamFork fork(s, true);
        zstd_bp_warp_sequences_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, long_fork.get()>>>(
            r, control.entropy_prefix, kZstdWarpSequencesFrom);
        zstd_bp_sequences_kernel<<<sequence_blocks, kBpSequenceThreads, 0, fork.get()>>>(
            r, control.entropy_prefix, control.ticket, control.sequence_tables);
        CUZARR_CUDA_CHECK(cudaGetLastError());
        zstd_bp_huffman_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(r,
                                                                          control.entropy_prefix);
        fork.join();
        long_fork.join();
      } else {
        zstd_bp_huffman_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(r,
                                                                          control.entropy_prefix);
        zstd_bp_warp_sequences_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(
            r, control.entropy_prefix, 0);
      }
      zstd_bp_piece_length_kernel<<<1, kListThreads, 0, s>>>(r);
      zstd_bp_scan_kernel<<<chunk_blocks, chunk_threads, 0, s>>>(r);
      zstd_bp_list_kernel<<<1, kListThreads, 0, s>>>(r, control.execute_prefix, BpList::execute,
                                                     control.ticket);
      zstd_bp_list_kernel<<<1, kListThreads, 0, s>>>(r, control.pieces_prefix, BpList::pieces,
                                                     control.ticket);
      zstd_bp_literals_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(r, control.execute_prefix);
      zstd_bp_matches_kernel<<<kBpBlocks, kBpWarps * kWarpSize, 0, s>>>(r, control.pieces_prefix,
                                                                        control.ticket);
      if (verify_checksum) {
        zstd_bp_list_kernel<<<1, kListThreads, 0, s>>>(r, control.hash_prefix, BpList::hash,
                                                       control.ticket);
        zstd_bp_hash_kernel<<<(r.n + 127) / 128, 128, 0, s>>>(r, control.hash_prefix);
      }
      zstd_bp_finish_kernel<<<chunk_blocks, chunk_threads, 0, s>>>(r, verify_checksum);
      CUZARR_CUDA_CHECK(cudaGetLastError());
    }
  }
  // At most one wave of warps (they stride over the chunks): a second, partial wave would leave
  // most of the GPU idle while it runs.
  const size_t workers = std::min<size_t>(
      decode_workers(batch.count),
      detail::resident_blocks(zstd_decode_kernel, kDecodeWarps * kWarpSize) * kDecodeWarps);
  const auto blocks = static_cast<unsigned>((workers + kDecodeWarps - 1) / kDecodeWarps);
  auto* next_chunk = reinterpret_cast<unsigned long long*>(
      base + align256(decode_workers(batch.count) * sizeof(ZstdWorkspace)));
  CUZARR_CUDA_CHECK(cudaMemsetAsync(next_chunk, 0, sizeof *next_chunk, s));
  zstd_decode_kernel<<<blocks, kDecodeWarps * kWarpSize, 0, s>>>(
      batch, reinterpret_cast<ZstdWorkspace*>(base), workers, verify_checksum, handled, next_chunk);
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

void zstd_decode_batch(const DeviceChunkBatch& batch, bool verify_checksum, void* temp,
                       Stream stream) {
  zstd_decode_batch(batch, verify_checksum, 0, temp, stream);
}

void zstd_decode_batch(const DeviceChunkBatch& batch, void* temp, Stream stream) {
  zstd_decode_batch(batch, true, 0, temp, stream);
}

}  // namespace cuzarr::gpu
