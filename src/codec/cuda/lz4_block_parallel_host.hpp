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

/// Decodes a raw LZ4 block like lz4_decode_block_serial, through the block-parallel passes when
/// the block qualifies (capacity at least `min_capacity`, within the path's limits), else
/// serially. Never reads past in[in_size) nor writes past out[capacity).
inline DecodeResult lz4_decode_block_parallel_host(const unsigned char* in, uint64_t in_size,
                                                   unsigned char* out, uint64_t capacity,
                                                   uint64_t min_capacity = kLz4BpMinCapacity,
                                                   Lz4BpReport* report = nullptr) {
  const uint64_t max_input = lz4_bp_max_input(capacity);
  const Lz4BpSlotLayout layout = lz4_bp_slot_layout(in_size <= max_input ? in_size : 0);
  std::vector<uint64_t> storage((layout.bytes + 7) / 8);
  const Lz4BpSlot slot = lz4_bp_slot(storage.data(), layout);
  lz4_bp_plan(in_size, capacity, min_capacity, in_size, slot);
  if (report) *report = Lz4BpReport{slot.plan->parallel != 0, slot.plan->segments, 0};
  if (!slot.plan->parallel) return lz4_decode_block_serial(in, in_size, out, capacity);
  const uint32_t n = slot.plan->segments;
  for (uint32_t k = 0; k < n; ++k) lz4_bp_parse_segment(in, in_size, slot, k);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_link_segment(slot, k);
  lz4_bp_stitch(in, in_size, slot);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_segment_bytes(slot, k);
  lz4_bp_scan(slot);
  for (uint32_t k = 0; k < n; ++k) lz4_bp_check_segment(in, in_size, capacity, slot, k);
  const DecodeResult r = lz4_bp_finish(slot);
  if (report) {
    report->reparsed = slot.plan->reparsed;
    report->reparsed_records = slot.plan->reparsed_records;
    for (uint32_t k = 0; k < n; ++k)
      report->records += slot.segments[k].end - slot.segments[k].first;
  }
  if (r.status != DeviceChunkStatus::ok) return r;
  for (uint32_t k = 0; k < n; ++k) lz4_bp_execute_literals_serial(in, in_size, slot, k, out);
  // Matches segment by segment in order, with the GPU's chase bound (a source the chase does not
  // settle lies in a complete earlier segment, as the GPU's waits ensure).
  for (uint32_t k = 0; k < n; ++k)
    lz4_bp_execute_matches_serial(in, in_size, slot, k, out, kLz4BpChaseSteps);
  return r;
}

}  // namespace cuzarr::gpu
