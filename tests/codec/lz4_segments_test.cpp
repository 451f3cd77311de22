// The parallel LZ4 encoder's format logic (lz4_segments.hpp) run by a host driver: segments
// encoded independently, planned and stitched into one block, which liblz4's LZ4_decompress_safe
// must decode byte-exact to the input, within LZ4_compressBound, over every input family and sizes
// around the segment boundaries.
#include "codec/cuda/lz4_segments.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include <vector>

#include "gpu_codec_inputs.hpp"
#include "lz4_segments_driver.hpp"

namespace cuzarr {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes encode_by_segments(const Bytes& in) {
  const Bytes block = test::lz4_encode_by_segments(in);
  EXPECT_FALSE(block.empty());
  return block;
}

void check_round_trip(const Bytes& in, const std::string& name) {
  const Bytes block = encode_by_segments(in);
  ASSERT_LE(block.size(), static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))))
      << name;
  ASSERT_LE(block.size(), gpu::lz4_encode_bound(in.size())) << name;
  Bytes back(in.size() + 1);
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()),
                                    reinterpret_cast<char*>(back.data()),
                                    static_cast<int>(block.size()), static_cast<int>(back.size()));
  ASSERT_EQ(n, static_cast<int>(in.size())) << name;
  back.resize(in.size());
  ASSERT_EQ(back, in) << name;
  // The project's own strict decoder agrees.
  Bytes again(in.size());
  const auto r = gpu::lz4_decode_block_serial(block.data(), block.size(), again.data(), in.size());
  ASSERT_EQ(r.status, gpu::DeviceChunkStatus::ok) << name;
  ASSERT_EQ(r.size, in.size()) << name;
}

TEST(Lz4Segments, StitchedBlocksDecodeWithLiblz4OnEveryFamily) {
  std::vector<size_t> sizes = test::small_sizes();
  for (size_t s :
       {size_t{65535}, size_t{65537}, size_t{65536 + 3}, size_t{65536 + 5}, size_t{65536 + 12},
        size_t{65536 + 13}, size_t{2 * 65536}, size_t{4} << 20, (size_t{4} << 20) + 7}) {
    sizes.push_back(s);
  }
  for (const auto& input : test::input_families(sizes)) check_round_trip(input.bytes, input.name);
}

// Runs straddling segment boundaries, matches right up to a boundary, a last segment of a few
// bytes after a compressible one, and match-free segments between compressible ones.
TEST(Lz4Segments, BoundariesAndMatchFreeSegments) {
  for (size_t tail : {size_t{0}, size_t{1}, size_t{4}, size_t{5}, size_t{11}, size_t{12},
                      size_t{13}, size_t{100}}) {
    Bytes zeros(2 * gpu::kLz4SegmentBytes + tail, 0);
    check_round_trip(zeros, "zeros + " + std::to_string(tail));
    Bytes mixed = test::random_input(3 * gpu::kLz4SegmentBytes + tail, static_cast<uint32_t>(tail));
    for (size_t k = 0; k < gpu::kLz4SegmentBytes; ++k) mixed[k] = static_cast<unsigned char>(k % 7);
    for (size_t k = 2 * gpu::kLz4SegmentBytes - 300; k < 2 * gpu::kLz4SegmentBytes + 300; ++k)
      mixed[k] = 'a';
    check_round_trip(mixed, "mixed + " + std::to_string(tail));
  }
}

TEST(Lz4Segments, CompressesCompressibleData) {
  const Bytes in = test::runs_input(1 << 20, 3);
  const Bytes block = encode_by_segments(in);
  EXPECT_LT(block.size(), in.size() / 4);
  const Bytes random = test::random_input(1 << 20, 4);
  EXPECT_LE(encode_by_segments(random).size(), gpu::lz4_encode_bound(random.size()));
}

TEST(Lz4Segments, PlansConsumeEveryInputByteOnce) {
  const Bytes in = test::smooth_uint16_input(5 * gpu::kLz4SegmentBytes + 77, 9);
  const uint64_t segments = gpu::lz4_segment_count(in.size());
  std::vector<gpu::Lz4SegmentSummary> summaries(segments);
  Bytes body(gpu::kLz4SegmentBodyCapacity);
  std::vector<uint16_t> table(gpu::kLz4SegmentHashEntries);
  for (uint64_t i = 0; i < segments; ++i) {
    const uint64_t begin = i * gpu::kLz4SegmentBytes;
    summaries[i] = gpu::lz4_encode_segment(
        in.data(), in.size(), begin, std::min<uint64_t>(in.size(), begin + gpu::kLz4SegmentBytes),
        body.data(), table.data());
  }
  std::vector<gpu::Lz4SegmentPlan> plans(segments);
  const auto end = gpu::lz4_plan_segments(summaries.data(), segments, in.size(), plans.data());
  uint64_t next_out = 0;
  for (uint64_t i = 0; i < segments; ++i) {
    EXPECT_EQ(plans[i].out_offset, next_out) << i;
    if (summaries[i].first_distance != 0) {
      next_out += gpu::lz4_literal_header_bytes(plans[i].literal_length) + plans[i].literal_length +
                  gpu::lz4_match_tail_bytes(summaries[i].first_length) + summaries[i].body_bytes;
    }
  }
  EXPECT_EQ(end.out_offset, next_out);
  EXPECT_EQ(end.literal_begin + end.literal_length, in.size());
}

}  // namespace
}  // namespace cuzarr
