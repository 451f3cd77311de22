#include "cuzarr/metadata/v2_fill_value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using K = DataTypeKind;
using json = nlohmann::json;

std::vector<std::byte> bytes_of(std::string_view text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

template <typename T>
T as(const std::vector<std::byte>& bytes) {
  T value;
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

TEST(V2FillValue, NullIsTheZeroOfTheType) {
  EXPECT_EQ(parse_v2_fill_value(nullptr, DataType(K::float64)), std::vector<std::byte>(8));
  EXPECT_EQ(parse_v2_fill_value(nullptr, DataType::fixed_length(K::fixed_length_utf32, 8)),
            std::vector<std::byte>(8));
}

TEST(V2FillValue, NumbersAndSpecialFloats) {
  EXPECT_EQ(as<int16_t>(parse_v2_fill_value(-7, DataType(K::int16))), -7);
  EXPECT_EQ(as<int32_t>(parse_v2_fill_value(3.0, DataType(K::int32))), 3);  // integral float
  EXPECT_EQ(as<uint64_t>(parse_v2_fill_value(18446744073709551615ull, DataType(K::uint64))),
            18446744073709551615ull);
  EXPECT_TRUE(std::isnan(as<double>(parse_v2_fill_value("NaN", DataType(K::float64)))));
  EXPECT_EQ(as<float>(parse_v2_fill_value("Infinity", DataType(K::float32))), INFINITY);
  EXPECT_EQ(as<float>(parse_v2_fill_value("-Infinity", DataType(K::float32))), -INFINITY);
  EXPECT_EQ(as<double>(parse_v2_fill_value(1.5, DataType(K::float64))), 1.5);
  EXPECT_EQ(as<uint8_t>(parse_v2_fill_value(true, DataType(K::boolean))), 1);
  EXPECT_EQ(as<uint8_t>(parse_v2_fill_value(0, DataType(K::boolean))), 0);
  const auto c = parse_v2_fill_value(json::array({1.0, "NaN"}), DataType(K::complex64));
  float parts[2];
  std::memcpy(parts, c.data(), 8);
  EXPECT_EQ(parts[0], 1.0f);
  EXPECT_TRUE(std::isnan(parts[1]));
}

TEST(V2FillValue, ByteStringsAreBase64) {
  const DataType s4 = DataType::fixed_length(K::null_terminated_bytes, 4);
  EXPECT_EQ(parse_v2_fill_value("YWI=", s4), bytes_of(std::string_view("ab\0\0", 4)));
  EXPECT_EQ(parse_v2_fill_value("", s4), std::vector<std::byte>(4));
  EXPECT_EQ(v2_fill_value_to_json(bytes_of(std::string_view("ab\0\0", 4)), s4), "YWI=");
  EXPECT_EQ(v2_fill_value_to_json(std::vector<std::byte>(4), s4), "");
  const DataType v3 = DataType::fixed_length(K::raw_bytes, 3);
  EXPECT_EQ(parse_v2_fill_value("AAAA", v3), std::vector<std::byte>(3));
  EXPECT_EQ(parse_v2_fill_value("YWJj", v3), bytes_of("abc"));
  EXPECT_EQ(v2_fill_value_to_json(std::vector<std::byte>(3), v3), "AAAA");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value("YWJjZGU=", s4), "fill_value",
                    "at most 4 bytes");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value("not base64!", s4), "base64");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value(12, s4), "base64");
}

TEST(V2FillValue, UnicodeStringsAreUtf32CodeUnits) {
  const DataType u3 = DataType::fixed_length(K::fixed_length_utf32, 12);
  const auto value = parse_v2_fill_value("aé€", u3);
  const uint32_t expected[3] = {U'a', 0xE9, 0x20AC};
  ASSERT_EQ(value.size(), 12u);
  EXPECT_EQ(std::memcmp(value.data(), expected, 12), 0);
  EXPECT_EQ(v2_fill_value_to_json(value, u3), "aé€");
  EXPECT_EQ(v2_fill_value_to_json(parse_v2_fill_value("ab", u3), u3), "ab");
  EXPECT_EQ(v2_fill_value_to_json(std::vector<std::byte>(12), u3), "");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value("abcd", u3), "at most 3 characters");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value("\xff", u3), "fill_value");
}

TEST(V2FillValue, TimesAreInt64CountsWithNaT) {
  const DataType ns = DataType::time(K::datetime64, TimeUnit::ns);
  EXPECT_EQ(as<int64_t>(parse_v2_fill_value(-9223372036854775807LL - 1, ns)), kNotATime);
  EXPECT_EQ(as<int64_t>(parse_v2_fill_value("NaT", ns)), kNotATime);
  EXPECT_EQ(as<int64_t>(parse_v2_fill_value(42, ns)), 42);
  EXPECT_EQ(v2_fill_value_to_json(parse_v2_fill_value("NaT", ns), ns),
            json(-9223372036854775807LL - 1));
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value("soon", ns), "64-bit integer");
}

TEST(V2FillValue, WrittenAsZarrPythonWritesThem) {
  EXPECT_EQ(
      v2_fill_value_to_json(parse_v2_fill_value("NaN", DataType(K::float32)), DataType(K::float32)),
      "NaN");
  // A NaN with another payload is still "NaN": v2 has no hex form.
  const uint32_t other_nan = 0x7FC00001u;
  std::vector<std::byte> bits(4);
  std::memcpy(bits.data(), &other_nan, 4);
  EXPECT_EQ(v2_fill_value_to_json(bits, DataType(K::float32)), "NaN");
  EXPECT_EQ(v2_fill_value_to_json(parse_v2_fill_value("-Infinity", DataType(K::float16)),
                                  DataType(K::float16)),
            "-Infinity");
  EXPECT_EQ(
      v2_fill_value_to_json(parse_v2_fill_value(json::array({1.0, 2.0}), DataType(K::complex128)),
                            DataType(K::complex128)),
      json::array({1.0, 2.0}));
  EXPECT_EQ(v2_fill_value_to_json(parse_v2_fill_value(5, DataType(K::uint8)), DataType(K::uint8)),
            5);
  EXPECT_EQ(
      v2_fill_value_to_json(parse_v2_fill_value(false, DataType(K::boolean)), DataType(K::boolean)),
      false);
}

TEST(V2FillValue, OutOfRangeIsRefused) {
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value(300, DataType(K::uint8)),
                    "fill_value", "uint8");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_fill_value(1.5, DataType(K::int32)),
                    "fill_value");
}

}  // namespace
}  // namespace cuzarr
