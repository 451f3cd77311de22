#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cuzarr/core/bfloat16.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/float8.hpp"

namespace cuzarr {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

struct Expected {
  DataTypeKind kind;
  // Bit patterns ml_dtypes gives 500, 1e10, inf, -inf, nan, -0.0, 0.1, 1.5, -2.5, 1e-6, max.
  uint8_t bits[11];
  double max;
};

// Reference values computed with ml_dtypes (numpy float64 -> float8 casts).
const Expected kExpected[] = {
    {DataTypeKind::float8_e4m3fn,
     {0x7f, 0x7f, 0x7f, 0xff, 0x7f, 0x80, 0x1d, 0x3c, 0xc2, 0x00, 0x7e},
     448},
    {DataTypeKind::float8_e4m3fnuz,
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x25, 0x44, 0xca, 0x00, 0x7f},
     240},
    {DataTypeKind::float8_e4m3b11fnuz,
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x3d, 0x5c, 0xe2, 0x00, 0x7f},
     30},
    {DataTypeKind::float8_e5m2,
     {0x60, 0x7c, 0x7c, 0xfc, 0x7e, 0x80, 0x2e, 0x3e, 0xc1, 0x00, 0x7b},
     57344},
    {DataTypeKind::float8_e5m2fnuz,
     {0x64, 0x80, 0x80, 0x80, 0x80, 0x00, 0x32, 0x42, 0xc5, 0x00, 0x7f},
     57344},
};

TEST(Float8, ConvertsLikeMlDtypes) {
  for (const auto& e : kExpected) {
    const double inputs[11] = {500.0, 1e10, kInf, -kInf, kNan, -0.0, 0.1, 1.5, -2.5, 1e-6, e.max};
    for (int i = 0; i < 11; ++i) {
      EXPECT_EQ(double_to_float8_bits(inputs[i], e.kind), e.bits[i])
          << DataType(e.kind).name() << " input " << inputs[i];
    }
    EXPECT_EQ(float8_bits_to_double(e.bits[10], e.kind), e.max) << DataType(e.kind).name();
  }
}

TEST(Float8, EveryPatternRoundTrips) {
  for (const auto& e : kExpected) {
    for (int b = 0; b < 256; ++b) {
      const double v = float8_bits_to_double(static_cast<uint8_t>(b), e.kind);
      if (std::isnan(v)) continue;
      EXPECT_EQ(double_to_float8_bits(v, e.kind), b) << DataType(e.kind).name() << " " << b;
    }
    EXPECT_TRUE(std::isnan(float8_bits_to_double(float8_canonical_nan_bits(e.kind), e.kind)));
  }
}

TEST(Float8, RoundsTiesToEven) {
  // e4m3fn around 1: spacing 0.125; 1.0625 lies halfway between 1 (even) and 1.125.
  EXPECT_EQ(double_to_float8_bits(1.0625, DataTypeKind::float8_e4m3fn), 0x38);
  EXPECT_EQ(double_to_float8_bits(1.1875, DataTypeKind::float8_e4m3fn), 0x3a);  // to 1.25 (even)
  // Smallest subnormal of e4m3fn is 2^-9; half of it rounds to zero, a bit more to 2^-9.
  EXPECT_EQ(double_to_float8_bits(std::ldexp(1.0, -10), DataTypeKind::float8_e4m3fn), 0x00);
  EXPECT_EQ(double_to_float8_bits(std::ldexp(1.5, -10), DataTypeKind::float8_e4m3fn), 0x01);
}

TEST(Float8, RejectsOtherKinds) {
  EXPECT_THROW(float8_bits_to_double(0, DataTypeKind::float32), InvalidArgumentError);
}

TEST(Bfloat16, ConvertsLikeMlDtypes) {
  // ml_dtypes: 500 -> 0x43fa, 1e10 -> 0x5015, 0.1 -> 0x3dcd, 1e-6 -> 0x3586, 1.5 -> 0x3fc0.
  EXPECT_EQ(double_to_bfloat16_bits(500.0), 0x43fa);
  EXPECT_EQ(double_to_bfloat16_bits(1e10), 0x5015);
  EXPECT_EQ(double_to_bfloat16_bits(0.1), 0x3dcd);
  EXPECT_EQ(double_to_bfloat16_bits(1e-6), 0x3586);
  EXPECT_EQ(double_to_bfloat16_bits(-2.5), 0xc020);
  EXPECT_EQ(double_to_bfloat16_bits(kInf), 0x7f80);
  EXPECT_EQ(double_to_bfloat16_bits(-kInf), 0xff80);
  EXPECT_EQ(double_to_bfloat16_bits(kNan), kBfloat16CanonicalNan);
  EXPECT_EQ(double_to_bfloat16_bits(1e300), 0x7f80);
  EXPECT_EQ(double_to_bfloat16_bits(3.3895313892515355e38), 0x7f7f);  // the largest finite
  EXPECT_EQ(bfloat16_bits_to_float(0x3fc0), 1.5f);
  // Halfway between 1 (0x3f80, even) and 1 + 2^-7: ties to even.
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
}

}  // namespace
}  // namespace cuzarr
