// The passes of lz4_block_parallel.hpp run serially on the CPU, in the order the GPU kernels run
// them: the reference the GPU path is tested against, and what the CPU tests check against
// liblz4. Host only (allocates its slot).
#pragma once

#include <cstdint>
#include <vector>

#include "codec/cuda/lz4_block_parallel.hpp"

namespace cuzarr::gpu {

/// What the block-parallel path did with one block.
struct Lz4BpReport {
  bool parallel = false;  ///< it took the path (else: the serial decoder)
  uint32_t segments = 0;
  uint32_t reparsed = 0;          ///< segments the stitch parsed again (speculation missed)
  uint64_t reparsed_records = 0;  ///< tokens those parses visited
  uint64_t records = 0;           ///< tokens of the true chain
};

/// Passes 1 to 7 (parse to finish) of a block that the plan in `slot` took, serially: the
/// block's verdict and decoded size, as lz4_decode_block_serial gives them.
inline DecodeResult lz4_bp_check_passes_host(const unsigned char* in, uint64_t in_size,
                                             uint64_t capacity, const Lz4BpSlot& slot) {
  const uint32_t n = slot.plan->segments;
  for (uint32_t k = 0; k < n; ++k) lz4_bp_parse_segment(in, in_size, slot, k);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_link_segment(slot, k);
  lz4_bp_stitch(in, in_size, slot);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_segment_bytes(slot, k);
  lz4_bp_scan(slot);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_check_segment(in, in_size, capacity, slot, k);
  return lz4_bp_finish(slot);
}

/// Decodes a raw LZ4 block like lz4_decode_block_serial, through the block-parallel passes when
/// the block qualifies (capacity at least `min_capacity`, within the path's limits), else
/// serially. Never reads past in[in_size) nor writes past out[capacity).
inline DecodeResult lz4_decode_block_parallel_host(const unsigned char* in, uint64_t in_size,
                                                   unsigned char* out, uint64_t capacity,
                                                   uint64_t min_capacity = kLz4BpMinCapacity,
                                                   Lz4BpReport* report = nullptr) {
  // Scratch only for a block that takes the path (its marks and origins grow with the capacity).
  const bool qualifies = lz4_bp_qualifies(in_size, capacity, min_capacity, in_size);
  const Lz4BpSlotLayout layout =
      lz4_bp_slot_layout(qualifies ? in_size : 0, qualifies ? capacity : 0);
  std::vector<uint64_t> storage((layout.bytes + 7) / 8);
  const Lz4BpSlot slot = lz4_bp_slot(storage.data(), layout);
  lz4_bp_plan(in_size, capacity, min_capacity, in_size, slot);
  if (report) *report = Lz4BpReport{slot.plan->parallel != 0, slot.plan->segments, 0};
  if (!slot.plan->parallel) return lz4_decode_block_serial(in, in_size, out, capacity);
  const uint32_t n = slot.plan->segments;
  const DecodeResult r = lz4_bp_check_passes_host(in, in_size, capacity, slot);
  if (report) {
    report->reparsed = slot.plan->reparsed;
    report->reparsed_records = slot.plan->reparsed_records;
    for (uint32_t k = 0; k < n; ++k)
      report->records += slot.segments[k].end - slot.segments[k].first;
  }
  if (r.status != DeviceChunkStatus::ok) return r;
  for (uint32_t k = 0; k < n; ++k) {
    if (slot.segments[k].piece_start) lz4_bp_execute_piece_serial(in, in_size, slot, k, out);
  }
  for (uint64_t p = 0; p < r.size; ++p) lz4_bp_resolve_byte(slot, out, p);
  return r;
}

}  // namespace cuzarr::gpu
