// The GPU CRC-32C kernels' wide lane scheme (crc32c_lanes.hpp: 16 bytes per lane and step,
// slicing-by-16, one fold by x^(8 * 496) per step), run lane by lane on the CPU against cuzarr's
// CPU crc32c, for many sizes and warp counts.
#include "codec/cuda/crc32c_lanes.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "codec/cuda/little_endian.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

uint32_t reference(const std::vector<unsigned char>& v) {
  return crc32c(std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size()));
}

const gpu::Crc32cWideTables& tables() {
  static const auto t = [] {
    auto p = std::make_unique<gpu::Crc32cWideTables>();
    gpu::make_crc32c_wide_tables(*p);
    return p;
  }();
  return *t;
}

TEST(Crc32cLanes, SixteenByteUpdateEqualsTheByteUpdate) {
  const gpu::Crc32cTables by8 = gpu::make_crc32c_tables();
  const auto v = test::random_input(16 * 100, 7);
  uint32_t r16 = 0x12345678u, r8 = 0x12345678u;
  for (size_t at = 0; at < v.size(); at += 16) {
    const unsigned char* p = v.data() + at;
    r16 = gpu::crc32c_update16(tables().table, r16, gpu::load_le32(p), gpu::load_le32(p + 4),
                               gpu::load_le32(p + 8), gpu::load_le32(p + 12));
    r8 = gpu::crc32c_update(r8, p, 16, by8.table);
    ASSERT_EQ(r16, r8) << at;
  }
}

TEST(Crc32cLanes, StepTablesMultiplyByTheStepPower) {
  const uint32_t factor = gpu::crc32c_x_pow_8n(gpu::kCrc32cWideStepBytes - 16);
  for (uint32_t r : {0u, 1u, 0x80000000u, 0xDEADBEEFu, 0xFFFFFFFFu, 0x01020304u}) {
    EXPECT_EQ(gpu::crc32c_times_wide_step(tables().step, r), gpu::crc32c_multiply(r, factor));
  }
}

// The kernel's accumulate(), lane by lane.
uint32_t lane_scheme(const std::vector<unsigned char>& v, uint64_t warps) {
  const uint64_t n = v.size();
  uint32_t acc = 0;
  for (uint64_t w = 0; w < warps; ++w) {
    const auto range = gpu::crc32c_wide_warp_range(n, w, warps);
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint32_t r = 0;
      for (uint64_t s = range.first; s < range.last; ++s) {
        const unsigned char* p = v.data() + s * gpu::kCrc32cWideStepBytes + 16 * lane;
        r = gpu::crc32c_update16(
            tables().table, s == range.first ? 0u : gpu::crc32c_times_wide_step(tables().step, r),
            gpu::load_le32(p), gpu::load_le32(p + 4), gpu::load_le32(p + 8),
            gpu::load_le32(p + 12));
      }
      if (range.last > range.first)
        acc ^= gpu::crc32c_shift(r, gpu::crc32c_wide_lane_shift(n, range.last, lane));
      if (range.owns_tail && lane == 0) {
        const uint64_t begin = n / gpu::kCrc32cWideStepBytes * gpu::kCrc32cWideStepBytes;
        acc ^= gpu::crc32c_update(0, v.data() + begin, n - begin, tables().table);
      }
    }
  }
  return ~(gpu::crc32c_shift(~0u, n) ^ acc);
}

TEST(Crc32cLanes, TheKernelsLaneSchemeGivesTheCrc) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{511}, size_t{512}, size_t{513}, size_t{1000},
                   size_t{4096}, size_t{65536}, size_t{100003}, size_t{1 << 20}}) {
    const auto v = test::random_input(n, static_cast<uint32_t>(n) + 1);
    for (uint64_t warps : {1u, 2u, 3u, 8u, 64u, 2048u, 32768u}) {
      ASSERT_EQ(lane_scheme(v, warps), reference(v)) << n << " bytes, " << warps << " warps";
    }
  }
}

TEST(Crc32cLanes, ExactlyOneWarpOwnsTheTail) {
  for (uint64_t n : {uint64_t{1}, uint64_t{700}, uint64_t{512 * 9 + 3}, uint64_t{1} << 20}) {
    for (uint64_t warps : {1u, 4u, 7u, 100u}) {
      int owners = 0;
      for (uint64_t w = 0; w < warps; ++w)
        owners += gpu::crc32c_wide_warp_range(n, w, warps).owns_tail;
      EXPECT_EQ(owners, n % gpu::kCrc32cWideStepBytes != 0 ? 1 : 0) << n << " " << warps;
    }
  }
}

}  // namespace
}  // namespace cuzarr
