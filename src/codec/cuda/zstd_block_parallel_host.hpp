// The passes of zstd_block_parallel.hpp run serially on the CPU, in the order the GPU kernels run
// them: the reference the GPU path is tested against, and what the CPU tests check against
// libzstd. Host only (allocates its slot).
#pragma once

#include <memory>
#include <vector>

#include "codec/cuda/zstd_block_parallel.hpp"

namespace cuzarr::gpu {

/// Host memory for one chunk's block-parallel state (chunks of up to `capacity` bytes) and the
/// slot that points into it.
struct ZstdHostSlot {
  explicit ZstdHostSlot(uint64_t capacity)
      : layout(zstd_bp_slot_layout(capacity)),
        words((layout.bytes + 7) / 8),
        slot(zstd_bp_slot(words.data(), layout)) {}
  ZstdHostSlot(const ZstdHostSlot&) = delete;  // slot points into words
  ZstdHostSlot& operator=(const ZstdHostSlot&) = delete;
  ZstdSlotLayout layout;
  std::vector<uint64_t> words;
  ZstdSlot slot;
};

/// The passes after the plan, over `slot` (zstd_bp_plan has run and set block_parallel):
/// entropy, scan, literals, matches (in pieces of `piece_sequences` sequences, zstd_bp_pieces; 0:
/// kZstdPieceSequences), hash, finish. The slot's records stay for the caller.
inline DecodeResult zstd_bp_run_passes_host(const unsigned char* in, unsigned char* out,
                                            uint64_t capacity, const ZstdSlot& slot,
                                            bool verify_checksum = true,
                                            uint32_t piece_sequences = 0) {
  auto literal_tables = std::make_unique<ZstdLiteralTables>();
  auto sequence_tables = std::make_unique<ZstdSequenceTables>();
  for (uint32_t b = 0; b < slot.plan->block_count; ++b) {
    ZstdBlockRecord& rec = slot.blocks[b];
    if (rec.type == 2) zstd_bp_copy_literals(in, rec, slot.literals, 0, 1);
    ZstdHuffmanStreams streams;
    DeviceChunkStatus s =
        zstd_bp_prepare_literals(in, rec, *literal_tables, slot.literals, streams);
    for (unsigned k = 0; k < streams.count && s == DeviceChunkStatus::ok; ++k) {
      s = zstd_bp_decode_literal_stream(*literal_tables, streams, k, slot.literals);
    }
    rec.literal_status = s;
    // The GPU decodes the sequences beside the literals, whatever became of them; the scan
    // reports the literals' failure first.
    rec.status = zstd_bp_decode_sequences(in, rec, *sequence_tables, slot.sequences);
  }
  slot.plan->piece_sequences = piece_sequences;
  zstd_bp_scan(capacity, slot);
  for (uint32_t b = 0; b < slot.plan->executed_blocks; ++b) {
    slot.blocks[b].execute_status = zstd_bp_execute_literals_serial(in, slot, b, out);
    zstd_bp_index_block(slot, b, 0, 1);
  }
  // Matches block by block, last block first (and each block's pieces last first): any order
  // gives the same bytes, and this one sends every read of an earlier block's or piece's match
  // bytes through the source chase.
  for (uint32_t b = slot.plan->executed_blocks; b-- > 0;)
    zstd_bp_execute_matches_serial(slot, b, out);
  for (uint32_t f = 0; verify_checksum && f < slot.plan->frame_count; ++f) {
    if (!zstd_bp_frame_hashed(slot, f)) continue;
    ZstdFrameRecord& frame = slot.frames[f];
    uint64_t lanes[4];
    for (unsigned k = 0; k < 4; ++k) {
      lanes[k] = zstd_bp_xxh64_lane(out + frame.output_offset, frame.output_size, k);
    }
    frame.hash = zstd_bp_xxh64_combine(lanes, out + frame.output_offset, frame.output_size);
  }
  return zstd_bp_finish(in, slot, verify_checksum);
}

/// Decodes a Zstandard chunk like zstd_decode_serial, through the block-parallel passes when the
/// chunk qualifies (capacity at least `min_capacity`, within the budgets), else serially.
/// `block_parallel` (optional) tells which way it went. Never reads past in[in_size) nor writes
/// past out[capacity).
inline DecodeResult zstd_decode_block_parallel_host(
    const unsigned char* in, uint64_t in_size, unsigned char* out, uint64_t capacity,
    bool verify_checksum = true, bool* block_parallel = nullptr,
    uint64_t min_capacity = kZstdBlockParallelMinCapacity) {
  const ZstdHostSlot storage(capacity);
  const ZstdSlot& slot = storage.slot;
  zstd_bp_plan(in, in_size, capacity, slot, min_capacity);
  if (block_parallel) *block_parallel = slot.plan->block_parallel != 0;
  if (!slot.plan->block_parallel) {
    auto workspace = std::make_unique<ZstdWorkspace>();
    return zstd_decode_serial(in, in_size, out, capacity, *workspace, verify_checksum);
  }
  return zstd_bp_run_passes_host(in, out, capacity, slot, verify_checksum);
}

}  // namespace cuzarr::gpu
