// The segment-parallel LZ4 encoder (lz4_segments.hpp) run serially on the host, segment after
// segment, as the GPU kernels run it in parallel: the CPU tests check its blocks with liblz4, the
// GPU tests compare the kernels' blocks with it byte for byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "codec/cuda/lz4_segments.hpp"

namespace cuzarr::test {

inline std::vector<unsigned char> lz4_encode_by_segments(const std::vector<unsigned char>& in) {
  const uint64_t size = in.size();
  const uint64_t segments = gpu::lz4_segment_count(size);
  std::vector<gpu::Lz4SegmentSummary> summaries(segments);
  std::vector<std::vector<unsigned char>> bodies(
      segments, std::vector<unsigned char>(gpu::kLz4SegmentBodyCapacity));
  std::vector<uint16_t> table(gpu::kLz4SegmentHashEntries);
  for (uint64_t i = 0; i < segments; ++i) {
    const uint64_t begin = i * gpu::kLz4SegmentBytes;
    const uint64_t end = std::min<uint64_t>(size, begin + gpu::kLz4SegmentBytes);
    summaries[i] =
        gpu::lz4_encode_segment(in.data(), size, begin, end, bodies[i].data(), table.data());
  }
  std::vector<gpu::Lz4SegmentPlan> plans(segments);
  const gpu::Lz4StitchEnd end =
      gpu::lz4_plan_segments(summaries.data(), segments, size, plans.data());
  std::vector<unsigned char> out(end.block_bytes, 0xEE);
  for (uint64_t i = 0; i < segments; ++i) {
    gpu::lz4_write_segment(in.data(), summaries[i], plans[i], bodies[i].data(), out.data());
  }
  gpu::lz4_write_end(in.data(), end, out.data());
  return out;
}

}  // namespace cuzarr::test
