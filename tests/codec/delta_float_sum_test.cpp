// The wide sums and the step check of the GPU's speculative float delta decode
// (delta_float_sum.hpp), on the CPU: the double-double sum is exact where a double sum is not;
// on the delta encoding of smooth fields, the rounded prefix sums (taken in blocks, in the order
// of a parallel scan) pass every step check and equal numpy's serial running sum; where the
// differences round, a check fails at or before the first element that differs.
#include "codec/cuda/delta_float_sum.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "codec/cuda/delta_format.hpp"

namespace cuzarr {
namespace {

TEST(DeltaFloatSum, DoubleDoubleSumsExactlyWhereDoubleRounds) {
  using S = gpu::FloatSum<double>;
  const S sum = S::of(1e16).plus(S::of(1.0)).plus(S::of(-1e16));
  EXPECT_EQ(sum.rounded(), 1.0);
  EXPECT_EQ((1e16 + 1.0) + -1e16, 0.0);  // what a plain double sum gives
  // Grouping does not change an exact sum.
  const S left = S::of(0.1).plus(S::of(0.2)).plus(S::of(0.3));
  const S right = S::of(0.1).plus(S::of(0.2).plus(S::of(0.3)));
  EXPECT_EQ(gpu::float_bits(left.rounded()), gpu::float_bits(right.rounded()));
}

TEST(DeltaFloatSum, StepCheckIsNumpysAdditionBitForBit) {
  EXPECT_TRUE(gpu::delta_step_holds(-0.0f, -0.0f, -0.0f));
  EXPECT_FALSE(gpu::delta_step_holds(-0.0f, -0.0f, 0.0f));  // numpy keeps the sign of -0.0
  EXPECT_TRUE(gpu::delta_step_holds(1.0f, 0.5f, 1.5f));
  EXPECT_FALSE(gpu::delta_step_holds(1.0f, 0.5f, std::nextafter(1.5f, 2.0f)));
  EXPECT_TRUE(gpu::delta_step_holds(1e308, 1e308, static_cast<double>(INFINITY)));
}

// The speculative decode of `encoded` as the GPU takes it: prefix sums in blocks of `block`
// elements (each block summed on its own, then offset by the sum of the blocks before), rounded;
// `first_failed`: the first element whose step check fails (n when none).
template <class T>
std::vector<T> speculative_decode(const std::vector<T>& encoded, size_t block,
                                  size_t& first_failed) {
  using S = gpu::FloatSum<T>;
  const size_t n = encoded.size();
  std::vector<S> block_sums;
  for (size_t b = 0; b < n; b += block) {
    S s = S::zero();
    for (size_t k = b; k < std::min(n, b + block); ++k) s = s.plus(S::of(encoded[k]));
    block_sums.push_back(s);
  }
  std::vector<T> z(n);
  S carry = S::zero();
  for (size_t b = 0, j = 0; b < n; b += block, ++j) {
    S local = S::zero();
    for (size_t k = b; k < std::min(n, b + block); ++k) {
      local = local.plus(S::of(encoded[k]));
      z[k] = carry.plus(local).rounded();
    }
    carry = carry.plus(block_sums[j]);
  }
  first_failed = n;
  for (size_t k = 0; k < n && first_failed == n; ++k)
    if (!gpu::delta_step_holds(k == 0 ? -T{0} : z[k - 1], encoded[k], z[k])) first_failed = k;
  return z;
}

template <class T>
std::vector<T> smooth_field(size_t n, double slope) {
  std::vector<T> x(n);
  for (size_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(k);
    x[k] =
        static_cast<T>(250.0 + 80.0 * std::sin(t * 3e-4) + 2.5 * std::cos(t * 0.013) + slope * t);
  }
  return x;
}

template <class T>
std::vector<T> encode(const std::vector<T>& x) {
  std::vector<T> e(x.size());
  gpu::delta_encode_serial(reinterpret_cast<const unsigned char*>(x.data()),
                           reinterpret_cast<unsigned char*>(e.data()), x.size(),
                           sizeof(T) == 4 ? gpu::DeltaType::float32 : gpu::DeltaType::float64);
  return e;
}

template <class T>
std::vector<T> serial_decode(const std::vector<T>& e) {
  std::vector<T> z(e.size());
  gpu::delta_decode_serial(reinterpret_cast<const unsigned char*>(e.data()),
                           reinterpret_cast<unsigned char*>(z.data()), e.size(),
                           sizeof(T) == 4 ? gpu::DeltaType::float32 : gpu::DeltaType::float64);
  return z;
}

template <class T>
void check_smooth_fields_pass_every_check() {
  for (double slope : {0.0, 1e-3, -5e-4}) {  // the field stays positive
    SCOPED_TRACE(slope);
    const auto x = smooth_field<T>(200000, slope);
    const auto e = encode(x);
    for (size_t block : {size_t{8}, size_t{2048}, size_t{50000}}) {
      size_t failed = 0;
      const auto z = speculative_decode(e, block, failed);
      EXPECT_EQ(failed, e.size()) << "block " << block;
      const auto serial = serial_decode(e);
      ASSERT_EQ(std::memcmp(z.data(), serial.data(), z.size() * sizeof(T)), 0) << block;
    }
  }
}

TEST(DeltaFloatSum, SmoothFloat32FieldsPassEveryCheck) {
  check_smooth_fields_pass_every_check<float>();
}
TEST(DeltaFloatSum, SmoothFloat64FieldsPassEveryCheck) {
  check_smooth_fields_pass_every_check<double>();
}

template <class T>
void check_rounding_is_caught() {
  auto x = smooth_field<T>(100000, 0.0);
  for (size_t k = 60000; k < 60003; ++k) x[k] = static_cast<T>(-x[k] * 1e9 + 0.3);
  const auto e = encode(x);
  size_t failed = 0;
  const auto z = speculative_decode(e, 4096, failed);
  const auto serial = serial_decode(e);
  size_t first_difference = z.size();
  for (size_t k = 0; k < z.size(); ++k) {
    if (gpu::float_bits(z[k]) != gpu::float_bits(serial[k])) {
      first_difference = k;
      break;
    }
  }
  ASSERT_LT(first_difference, z.size()) << "the rounding left no trace: the test proves nothing";
  EXPECT_LE(failed, first_difference);
  // Up to the failed check the speculative values are numpy's.
  EXPECT_EQ(std::memcmp(z.data(), serial.data(), failed * sizeof(T)), 0);
}

TEST(DeltaFloatSum, RoundedDifferencesFailACheckNoLaterThanTheFirstWrongValue) {
  check_rounding_is_caught<float>();
  check_rounding_is_caught<double>();
}

}  // namespace
}  // namespace cuzarr
