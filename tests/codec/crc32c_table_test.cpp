// The CRC-32C pieces the GPU kernels use, checked on the CPU: the slicing-by-8 update against
// cuzarr::crc32c, and the GF(2) combination of independently computed pieces (the way a chunk is
// spread over many threads) for many split points.
#include "codec/cuda/crc32c_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "cuzarr/codec/crc32c.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

const gpu::Crc32cTables kTables = gpu::make_crc32c_tables();

uint32_t reference(const std::vector<unsigned char>& v) {
  return crc32c(std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size()));
}

TEST(Crc32cTable, KnownValue) {
  const char* text = "123456789";  // the CRC-32C check value (RFC 3720, appendix B.4)
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  EXPECT_EQ(~gpu::crc32c_update(~0u, p, 9, kTables.table), 0xE3069283u);
}

TEST(Crc32cTable, UpdateMatchesCpuCrc32cOnEveryFamily) {
  for (const auto& input : test::input_families(test::small_sizes())) {
    EXPECT_EQ(~gpu::crc32c_update(~0u, input.bytes.data(), input.bytes.size(), kTables.table),
              reference(input.bytes))
        << input.name;
  }
}

// crc32c(D) = ~( ~0 * x^(8|D|) xor XOR_i f(0, D_i) * x^(8 * after_i) ) for any split of D.
uint32_t combined(const std::vector<unsigned char>& v, const std::vector<size_t>& cuts) {
  uint32_t acc = gpu::crc32c_shift(~0u, v.size());
  size_t begin = 0;
  for (size_t k = 0; k <= cuts.size(); ++k) {
    const size_t end = k < cuts.size() ? cuts[k] : v.size();
    const uint32_t piece = gpu::crc32c_update(0, v.data() + begin, end - begin, kTables.table);
    acc ^= gpu::crc32c_shift(piece, v.size() - end);
    begin = end;
  }
  return ~acc;
}

TEST(Crc32cTable, PiecesCombineToTheWholeCrc) {
  std::mt19937 rng(3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{64}, size_t{1000}, size_t{100003}}) {
    const auto v = test::random_input(n, static_cast<uint32_t>(n));
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<size_t> cuts(rng() % 9);
      for (auto& c : cuts) c = n == 0 ? 0 : rng() % (n + 1);
      std::sort(cuts.begin(), cuts.end());
      ASSERT_EQ(combined(v, cuts), reference(v)) << n << " bytes, trial " << trial;
    }
  }
}

TEST(Crc32cTable, ShiftAppendsZeroBytes) {
  const std::vector<unsigned char> zeros(1000, 0);
  for (uint32_t r : {0u, 1u, 0xDEADBEEFu, ~0u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
      EXPECT_EQ(gpu::crc32c_shift(r, n), gpu::crc32c_update(r, zeros.data(), n, kTables.table));
    }
  }
}

// The GPU kernel's lane-interleaved scheme, run lane by lane on the CPU: the warp ranges, the fold
// by x^(8 * 248) per step, the lane shifts and the tail give the whole CRC for any warp count.
uint32_t lane_scheme(const std::vector<unsigned char>& v, uint64_t warps) {
  const uint64_t n = v.size();
  const uint32_t step_factor = gpu::crc32c_x_pow_8n(gpu::kCrc32cStepBytes - 8);
  uint32_t acc = 0;
  for (uint64_t w = 0; w < warps; ++w) {
    const auto range = gpu::crc32c_warp_range(n, w, warps);
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint32_t r = 0;
      for (uint64_t s = range.first; s < range.last; ++s) {
        const unsigned char* word = v.data() + s * gpu::kCrc32cStepBytes + 8 * lane;
        r = gpu::crc32c_update(s == range.first ? 0u : gpu::crc32c_multiply(r, step_factor), word,
                               8, kTables.table);
      }
      if (range.last > range.first)
        acc ^= gpu::crc32c_shift(r, gpu::crc32c_lane_shift(n, range.last, lane));
      if (range.owns_tail && lane == 0) {
        const uint64_t begin = n / gpu::kCrc32cStepBytes * gpu::kCrc32cStepBytes;
        acc ^= gpu::crc32c_update(0, v.data() + begin, n - begin, kTables.table);
      }
    }
  }
  return ~(gpu::crc32c_shift(~0u, n) ^ acc);
}

TEST(Crc32cTable, TheKernelsLaneSchemeGivesTheCrc) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{1000},
                   size_t{4096}, size_t{100003}, size_t{1 << 20}}) {
    const auto v = test::random_input(n, static_cast<uint32_t>(n) + 1);
    for (uint64_t warps : {1u, 2u, 3u, 8u, 64u, 2048u}) {
      ASSERT_EQ(lane_scheme(v, warps), reference(v)) << n << " bytes, " << warps << " warps";
    }
  }
}

TEST(Crc32cTable, ShiftByPowersEqualsShift) {
  const gpu::Crc32cPowers powers = gpu::make_crc32c_powers();
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    const auto r = static_cast<uint32_t>(rng());
    const uint64_t n = trial < 100 ? rng() % 100000 : rng();
    EXPECT_EQ(gpu::crc32c_shift_by_powers(r, n, powers.pow2), gpu::crc32c_shift(r, n)) << n;
  }
}

}  // namespace
}  // namespace cuzarr
