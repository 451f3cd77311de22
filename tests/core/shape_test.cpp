#include "cuzarr/core/shape.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(Shape, CheckedMul) {
  EXPECT_EQ(checked_mul(6, 7), 42);
  EXPECT_EQ(checked_mul(0, kMax), 0);
  EXPECT_EQ(checked_mul(kMax, 1), kMax);
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_THROW(checked_mul(kMax, 2), InvalidArgumentError);
  EXPECT_THROW(checked_mul(int64_t{1} << 32, int64_t{1} << 32), InvalidArgumentError);
  EXPECT_THROW(checked_mul(-1, 5), InvalidArgumentError);
  EXPECT_THROW(checked_mul(5, -1), InvalidArgumentError);
  try {
    checked_mul(kMax, 3, "chunk bytes");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("chunk bytes"), std::string::npos);
  }
}

TEST(Shape, CheckedAdd) {
  EXPECT_EQ(checked_add(2, 3), 5);
  EXPECT_EQ(checked_add(-2, 3), 1);
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
  EXPECT_THROW(checked_add(kMax, 1), InvalidArgumentError);
  EXPECT_THROW(checked_add(kMin, -1), InvalidArgumentError);
  try {
    checked_add(kMax, kMax, "offset");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos);
  }
}

TEST(Shape, ElementCount) {
  EXPECT_EQ(element_count(Shape{}), 1);
  EXPECT_EQ(element_count(Shape{2, 3, 4}), 24);
  EXPECT_EQ(element_count(Shape{5, 0, 7}), 0);
  EXPECT_EQ(element_count(Shape{0, kMax}), 0);
  EXPECT_THROW(element_count(Shape{int64_t{1} << 32, int64_t{1} << 32}), InvalidArgumentError);
  EXPECT_THROW(element_count(Shape{3, -1}), InvalidArgumentError);
}

TEST(Shape, ByteCount) {
  EXPECT_EQ(byte_count(Shape{2, 3}, 8), 48);
  EXPECT_EQ(byte_count(Shape{}, 4), 4);
  EXPECT_THROW(byte_count(Shape{int64_t{1} << 31, int64_t{1} << 31}, 4), InvalidArgumentError);
}

TEST(Shape, COrderStrides) {
  EXPECT_EQ(c_order_strides(Shape{2, 3, 4}, 8), (std::vector<int64_t>{96, 32, 8}));
  EXPECT_EQ(c_order_strides(Shape{5}, 2), (std::vector<int64_t>{2}));
  EXPECT_TRUE(c_order_strides(Shape{}, 4).empty());
  // A zero extent does not zero the strides of outer dimensions.
  EXPECT_EQ(c_order_strides(Shape{2, 0, 3}, 1), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_THROW(c_order_strides(Shape{kMax, 2, 2}, 8), InvalidArgumentError);
}

TEST(Shape, CeilDivAndToString) {
  EXPECT_EQ(ceil_div(0, 4), 0);
  EXPECT_EQ(ceil_div(8, 4), 2);
  EXPECT_EQ(ceil_div(9, 4), 3);
  EXPECT_EQ(shape_to_string(Shape{}), "[]");
  EXPECT_EQ(shape_to_string(Shape{3, 4}), "[3, 4]");
}

}  // namespace
}  // namespace cuzarr
