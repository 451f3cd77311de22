#include "cuzarr/core/float16.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace cuzarr {
namespace {

bool is_half_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

TEST(Float16, KnownValuesToFloat) {
  EXPECT_EQ(half_bits_to_float(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(half_bits_to_float(0x8000)));
  EXPECT_EQ(half_bits_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_bits_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_bits_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));         // smallest subnormal
  EXPECT_EQ(half_bits_to_float(0x03FF), 1023 * std::ldexp(1.0f, -24));  // largest subnormal
  EXPECT_EQ(half_bits_to_float(0x0400), std::ldexp(1.0f, -14));         // smallest normal
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_bits_to_float(0x7C00), INFINITY);
  EXPECT_EQ(half_bits_to_float(0xFC00), -INFINITY);
  EXPECT_EQ(std::bit_cast<uint32_t>(half_bits_to_float(0x7E00)), 0x7FC00000u);  // canonical NaN
  EXPECT_EQ(std::bit_cast<uint32_t>(half_bits_to_float(0xFD01)), 0xFFA02000u);  // payload kept
}

TEST(Float16, EveryHalfRoundTripsThroughFloatAndDouble) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = half_bits_to_float(h);
    ASSERT_EQ(float_to_half_bits(f), h) << std::hex << bits;
    // Widening a signalling NaN through the FPU would quiet it, so NaNs are widened bitwise.
    const double d = is_half_nan(h) ? std::bit_cast<double>((uint64_t{bits & 0x8000u} << 48) |
                                                            0x7FF0000000000000ull |
                                                            (uint64_t{bits & 0x3FFu} << 42))
                                    : static_cast<double>(f);
    ASSERT_EQ(double_to_half_bits(d), h) << std::hex << bits;
  }
}

TEST(Float16, RoundsToNearestEven) {
  const float tiny = std::ldexp(1.0f, -24);
  EXPECT_EQ(float_to_half_bits(0.1f), 0x2E66);
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie -> even (down)
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7C00);  // tie with infinity rounds to even: overflow
  EXPECT_EQ(float_to_half_bits(-1e10f), 0xFC00);
  EXPECT_EQ(float_to_half_bits(tiny / 2), 0x0000);  // tie -> even zero
  EXPECT_EQ(float_to_half_bits(tiny * 0.50001f), 0x0001);
  EXPECT_EQ(float_to_half_bits(tiny * 1.5f), 0x0002);     // tie between 1 and 2 -> 2
  EXPECT_EQ(float_to_half_bits(tiny * 1023.5f), 0x0400);  // largest subnormal rounds up to normal
  EXPECT_EQ(float_to_half_bits(-tiny / 4), 0x8000);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -140)), 0x0000);  // float subnormal
}

TEST(Float16, DoubleRoundsOnce) {
  // Just above the midpoint of 1 and the next half: rounding through float would land exactly on
  // the midpoint and then tie to even (1.0); rounding once gives the upper neighbour.
  const double above_midpoint = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float_to_half_bits(static_cast<float>(above_midpoint)), 0x3C00);
  EXPECT_EQ(double_to_half_bits(above_midpoint), 0x3C01);
  EXPECT_EQ(double_to_half_bits(1e300), 0x7C00);
  EXPECT_EQ(double_to_half_bits(1e-300), 0x0000);
  EXPECT_EQ(double_to_half_bits(-0.0), 0x8000);
}

TEST(Float16, NanStaysNan) {
  EXPECT_EQ(float_to_half_bits(std::bit_cast<float>(0x7FC00000u)), 0x7E00);
  // A payload only in low float bits would vanish; the result must still be a NaN.
  EXPECT_TRUE(is_half_nan(float_to_half_bits(std::bit_cast<float>(0x7F800001u))));
  EXPECT_TRUE(is_half_nan(double_to_half_bits(std::bit_cast<double>(0x7FF0000000000001ull))));
  EXPECT_EQ(float_to_half_bits(std::bit_cast<float>(0xFFA02000u)), 0xFD01);
  EXPECT_EQ(double_to_half_bits(std::bit_cast<double>(0x7FF8000000000000ull)), 0x7E00);
}

// Compares against a brute-force search for the nearest half over every finite half value.
TEST(Float16, RandomFloatsMatchNearestHalf) {
  std::vector<std::pair<double, uint16_t>> halves;  // non-negative finite halves, ascending
  for (uint16_t h = 0; h < 0x7C00; ++h) halves.emplace_back(half_bits_to_float(h), h);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> exponent(-27, 17);
  for (int i = 0; i < 200000; ++i) {
    const double magnitude = std::exp2(exponent(rng));
    const float f = static_cast<float>(magnitude);
    const double x = f;
    uint16_t expected;
    if (x >= 65520.0) {
      expected = 0x7C00;
    } else {
      auto upper = std::lower_bound(halves.begin(), halves.end(), std::make_pair(x, uint16_t{0}));
      if (upper != halves.end() && upper->first == x) {
        expected = upper->second;
      } else if (upper == halves.end()) {
        expected = 0x7BFF;  // between 65504 and the overflow threshold
      } else {
        auto lower = upper - 1;
        const double below = x - lower->first, above = upper->first - x;
        if (below < above) {
          expected = lower->second;
        } else if (above < below) {
          expected = upper->second;
        } else {
          expected = (lower->second & 1u) ? upper->second : lower->second;
        }
      }
    }
    ASSERT_EQ(float_to_half_bits(f), expected) << x;
    ASSERT_EQ(float_to_half_bits(-f), expected | 0x8000u) << x;
  }
}

}  // namespace
}  // namespace cuzarr
