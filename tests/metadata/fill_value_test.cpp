#include "cuzarr/metadata/fill_value.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

template <typename T>
std::vector<std::byte> bytes_of(T value) {
  std::vector<std::byte> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

template <typename T>
T value_of(const std::vector<std::byte>& bytes) {
  EXPECT_EQ(bytes.size(), sizeof(T));
  T value{};
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof(T)));
  return value;
}

std::vector<std::byte> concat(std::vector<std::byte> a, const std::vector<std::byte>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

DataType dt(const char* name) { return DataType::from_name(name); }

std::vector<std::byte> parse(const char* text, const char* dtype) {
  return parse_fill_value(json::parse(text), dt(dtype));
}

TEST(FillValue, Bool) {
  EXPECT_EQ(parse("true", "bool"), std::vector<std::byte>{std::byte{1}});
  EXPECT_EQ(parse("false", "bool"), std::vector<std::byte>{std::byte{0}});
  EXPECT_EQ(fill_value_to_json(std::vector<std::byte>{std::byte{1}}, dt("bool")), json(true));
  EXPECT_EQ(fill_value_to_json(std::vector<std::byte>{std::byte{0}}, dt("bool")), json(false));
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("0", "bool"), "fill_value", "bool",
                    "true or false");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"true\"", "bool"), "fill_value", "bool");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("null", "bool"), "fill_value");
}

template <typename T>
void check_integer_type(const char* name) {
  SCOPED_TRACE(name);
  const DataType type = dt(name);
  constexpr T lo = std::numeric_limits<T>::min();
  constexpr T hi = std::numeric_limits<T>::max();
  EXPECT_EQ(value_of<T>(parse_fill_value(json(lo), type)), lo);
  EXPECT_EQ(value_of<T>(parse_fill_value(json(hi), type)), hi);
  EXPECT_EQ(value_of<T>(parse_fill_value(json(42), type)), T{42});
  EXPECT_EQ(fill_value_to_json(bytes_of<T>(hi), type), json(hi));
  EXPECT_EQ(fill_value_to_json(bytes_of<T>(lo), type), json(lo));
  EXPECT_EQ(fill_value_to_json(bytes_of<T>(T{42}), type).dump(), "42");
  // One past either end of the range.
  if constexpr (sizeof(T) < 8) {
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      parse_fill_value(json(static_cast<int64_t>(lo) - 1), type), "fill_value",
                      name);
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      parse_fill_value(json(static_cast<int64_t>(hi) + 1), type), "fill_value",
                      name);
  } else if constexpr (std::is_signed_v<T>) {
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      parse_fill_value(json::parse("9223372036854775808"), type), name);
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      parse_fill_value(json::parse("-9223372036854775809"), type), name);
  } else {
    EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json(-1), type), name);
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      parse_fill_value(json::parse("18446744073709551616"), type), name);
  }
  // Not integers: fractions, exponents, strings, booleans.
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json::parse("1.5"), type), "fill_value",
                    name, "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json::parse("1.0"), type), "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json::parse("1e2"), type), "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json("1"), type), "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json(true), type), "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(json("NaN"), type), "integer");
}

TEST(FillValue, Integers) {
  check_integer_type<int8_t>("int8");
  check_integer_type<int16_t>("int16");
  check_integer_type<int32_t>("int32");
  check_integer_type<int64_t>("int64");
  check_integer_type<uint8_t>("uint8");
  check_integer_type<uint16_t>("uint16");
  check_integer_type<uint32_t>("uint32");
  check_integer_type<uint64_t>("uint64");
  EXPECT_EQ(value_of<int16_t>(parse("-300", "int16")), -300);
  EXPECT_EQ(value_of<uint64_t>(parse("18446744073709551615", "uint64")), UINT64_MAX);
}

TEST(FillValue, Float32) {
  EXPECT_EQ(value_of<float>(parse("1.5", "float32")), 1.5f);
  EXPECT_EQ(value_of<float>(parse("3", "float32")), 3.0f);  // an integer is a JSON number too
  EXPECT_EQ(value_of<float>(parse("-0.1", "float32")), -0.1f);
  EXPECT_EQ(value_of<uint32_t>(parse("\"NaN\"", "float32")), 0x7FC00000u);
  EXPECT_EQ(value_of<uint32_t>(parse("\"Infinity\"", "float32")), 0x7F800000u);
  EXPECT_EQ(value_of<uint32_t>(parse("\"-Infinity\"", "float32")), 0xFF800000u);
  EXPECT_EQ(value_of<uint32_t>(parse("\"0x3f800000\"", "float32")), 0x3F800000u);  // 1.0
  EXPECT_EQ(value_of<uint32_t>(parse("\"0x7fc00001\"", "float32")), 0x7FC00001u);  // NaN payload
  EXPECT_EQ(value_of<uint32_t>(parse("\"0xFFC00000\"", "float32")), 0xFFC00000u);  // negative NaN
  EXPECT_EQ(value_of<uint32_t>(parse("\"0x80000000\"", "float32")), 0x80000000u);  // -0
  EXPECT_EQ(value_of<float>(parse("3.4028234663852886e+38", "float32")),
            std::numeric_limits<float>::max());
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("1e39", "float32"), "fill_value", "float32",
                    "range");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7fc0000\"", "float32"), "fill_value",
                    "8 hex digits");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7fc000000\"", "float32"), "8 hex digits");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7fg00000\"", "float32"), "hex");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"7fc00000ab\"", "float32"), "hex");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"nan\"", "float32"), "\"NaN\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"inf\"", "float32"), "Infinity");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"1.5\"", "float32"), "float32");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("true", "float32"), "float32");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1.0]", "float32"), "float32");
}

TEST(FillValue, Float64) {
  EXPECT_EQ(value_of<double>(parse("0.1", "float64")), 0.1);
  EXPECT_EQ(value_of<double>(parse("1e300", "float64")), 1e300);
  EXPECT_EQ(value_of<double>(parse("-9007199254740993", "float64")), -9007199254740992.0);
  EXPECT_EQ(value_of<double>(parse("18446744073709551615", "float64")), 18446744073709551616.0);
  EXPECT_EQ(value_of<uint64_t>(parse("\"NaN\"", "float64")), 0x7FF8000000000000ull);
  EXPECT_EQ(value_of<uint64_t>(parse("\"Infinity\"", "float64")), 0x7FF0000000000000ull);
  EXPECT_EQ(value_of<uint64_t>(parse("\"-Infinity\"", "float64")), 0xFFF0000000000000ull);
  EXPECT_EQ(value_of<uint64_t>(parse("\"0x7ff8000000000001\"", "float64")), 0x7FF8000000000001ull);
  EXPECT_EQ(value_of<double>(parse("\"0x4000000000000000\"", "float64")), 2.0);
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7fc00000\"", "float64"), "16 hex digits");
}

TEST(FillValue, Float16) {
  EXPECT_EQ(value_of<uint16_t>(parse("1.0", "float16")), 0x3C00);
  EXPECT_EQ(value_of<uint16_t>(parse("-2", "float16")), 0xC000);
  EXPECT_EQ(value_of<uint16_t>(parse("0.1", "float16")), 0x2E66);
  EXPECT_EQ(value_of<uint16_t>(parse("65504", "float16")), 0x7BFF);
  EXPECT_EQ(value_of<uint16_t>(parse("5.960464477539063e-08", "float16")),
            0x0001);  // smallest subnormal
  EXPECT_EQ(value_of<uint16_t>(parse("\"NaN\"", "float16")), 0x7E00);
  EXPECT_EQ(value_of<uint16_t>(parse("\"Infinity\"", "float16")), 0x7C00);
  EXPECT_EQ(value_of<uint16_t>(parse("\"-Infinity\"", "float16")), 0xFC00);
  EXPECT_EQ(value_of<uint16_t>(parse("\"0x7e01\"", "float16")), 0x7E01);
  EXPECT_EQ(value_of<uint16_t>(parse("\"0x3555\"", "float16")), 0x3555);
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("70000", "float16"), "fill_value", "float16",
                    "range");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7e0\"", "float16"), "4 hex digits");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0x7fc00000\"", "float16"), "4 hex digits");

  const DataType f16 = dt("float16");
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0x3C00), f16), json(1.0));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0x3555), f16), json(0.333251953125));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0x0001), f16), json(std::ldexp(1.0, -24)));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0x7E00), f16), json("NaN"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0x7E01), f16), json("0x7e01"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0xFE00), f16), json("0xfe00"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint16_t>(0xFC00), f16), json("-Infinity"));
}

TEST(FillValue, CanonicalFloatJson) {
  const DataType f32 = dt("float32"), f64 = dt("float64");
  EXPECT_EQ(fill_value_to_json(bytes_of<uint32_t>(0x7FC00000u), f32), json("NaN"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint32_t>(0x7FC00001u), f32), json("0x7fc00001"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint32_t>(0xFFC00000u), f32), json("0xffc00000"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint32_t>(0x7F800001u), f32),
            json("0x7f800001"));  // signalling
  EXPECT_EQ(fill_value_to_json(bytes_of<float>(INFINITY), f32), json("Infinity"));
  EXPECT_EQ(fill_value_to_json(bytes_of<float>(-INFINITY), f32), json("-Infinity"));
  EXPECT_EQ(fill_value_to_json(bytes_of<float>(1.5f), f32), json(1.5));
  EXPECT_EQ(fill_value_to_json(bytes_of<float>(0.0f), f32).dump(), "0.0");
  EXPECT_EQ(fill_value_to_json(bytes_of<double>(-0.0), f64).dump(), "-0.0");
  EXPECT_EQ(fill_value_to_json(bytes_of<double>(0.1), f64).dump(), "0.1");
  EXPECT_EQ(fill_value_to_json(bytes_of<uint64_t>(0x7FF8000000000000ull), f64), json("NaN"));
  EXPECT_EQ(fill_value_to_json(bytes_of<uint64_t>(0x7FF0000000000001ull), f64),
            json("0x7ff0000000000001"));
  EXPECT_EQ(fill_value_to_json(bytes_of<double>(-INFINITY), f64), json("-Infinity"));
  // float32 values are written exactly (as the double they equal), so they read back bit for bit.
  const float odd = 0.1f;
  EXPECT_EQ(value_of<float>(parse_fill_value(fill_value_to_json(bytes_of(odd), f32), f32)), odd);
}

TEST(FillValue, Complex) {
  const DataType c64 = dt("complex64"), c128 = dt("complex128");
  EXPECT_EQ(parse("[1.5, -2]", "complex64"), concat(bytes_of(1.5f), bytes_of(-2.0f)));
  EXPECT_EQ(parse(R"(["NaN", "0x7fc00001"])", "complex64"),
            concat(bytes_of<uint32_t>(0x7FC00000u), bytes_of<uint32_t>(0x7FC00001u)));
  EXPECT_EQ(parse(R"([1e300, "-Infinity"])", "complex128"),
            concat(bytes_of(1e300), bytes_of(-INFINITY * 1.0)));
  EXPECT_EQ(parse(R"(["0x3ff0000000000000", 0])", "complex128"),
            concat(bytes_of(1.0), bytes_of(0.0)));
  EXPECT_EQ(fill_value_to_json(concat(bytes_of(1.5f), bytes_of<uint32_t>(0x7FC00001u)), c64),
            json::parse(R"([1.5, "0x7fc00001"])"));
  EXPECT_EQ(
      fill_value_to_json(concat(bytes_of(0.0), bytes_of<uint64_t>(0x7FF8000000000000ull)), c128),
      json::parse(R"([0.0, "NaN"])"));
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1.0]", "complex64"), "fill_value", "complex64",
                    "[real, imaginary]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1.0, 2.0, 3.0]", "complex128"),
                    "[real, imaginary]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("1.0", "complex64"), "[real, imaginary]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"([1.0, "x"])", "complex64"), "complex64",
                    "[1.0,\"x\"]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"([1.0, "0x3ff0000000000000"])", "complex64"),
                    "8 hex digits");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1e39, 0]", "complex64"), "range");
}

TEST(FillValue, Raw) {
  EXPECT_EQ(parse("[255]", "r8"), std::vector<std::byte>{std::byte{255}});
  EXPECT_EQ(parse("[1, 0, 3]", "r24"),
            (std::vector<std::byte>{std::byte{1}, std::byte{0}, std::byte{3}}));
  EXPECT_EQ(fill_value_to_json(std::vector<std::byte>{std::byte{9}, std::byte{200}}, dt("r16")),
            json::parse("[9, 200]"));
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1, 2]", "r24"), "fill_value", "r24",
                    "3 integers");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[256]", "r8"), "[0, 255]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[-1]", "r8"), "[0, 255]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[1.0]", "r8"), "[0, 255]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[18446744073709551615]", "r8"), "[0, 255]");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("0", "r8"), "r8");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("\"0xff\"", "r8"), "r8");
}

TEST(FillValue, EveryTypeRoundTrips) {
  const std::pair<const char*, const char*> cases[] = {
      {"bool", "true"},
      {"int8", "-128"},
      {"int16", "-3"},
      {"int32", "2147483647"},
      {"int64", "-9223372036854775808"},
      {"uint8", "255"},
      {"uint16", "65535"},
      {"uint32", "7"},
      {"uint64", "18446744073709551615"},
      {"float16", "0.5"},
      {"float16", "\"0x7c01\""},
      {"float32", "\"NaN\""},
      {"float32", "-1e-45"},
      {"float64", "\"-Infinity\""},
      {"float64", "2.5e-310"},
      {"complex64", "[1.0, \"Infinity\"]"},
      {"complex128", "[\"0x7ff4000000000000\", -0.0]"},
      {"r8", "[0]"},
      {"r40", "[1, 2, 3, 4, 5]"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(std::string(name) + " " + text);
    const DataType type = dt(name);
    const auto bytes = parse_fill_value(json::parse(text), type);
    ASSERT_EQ(bytes.size(), type.size());
    const json written = fill_value_to_json(bytes, type);
    EXPECT_EQ(parse_fill_value(written, type), bytes);
    EXPECT_EQ(fill_value_to_json(parse_fill_value(written, type), type), written);
  }
}

TEST(FillValue, ToJsonChecksSize) {
  EXPECT_ERROR_WITH(InvalidArgumentError, fill_value_to_json(bytes_of<uint16_t>(1), dt("int32")),
                    "int32", "4 bytes");
}

}  // namespace
}  // namespace cuzarr
