#include "cuzarr/core/data_type.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

struct Expected {
  const char* name;
  DataTypeKind kind;
  size_t size;
  size_t endian_unit;
};

TEST(DataType, EveryV3NameRoundTrips) {
  const Expected all[] = {
      {"bool", DataTypeKind::boolean, 1, 1},        {"int8", DataTypeKind::int8, 1, 1},
      {"int16", DataTypeKind::int16, 2, 2},         {"int32", DataTypeKind::int32, 4, 4},
      {"int64", DataTypeKind::int64, 8, 8},         {"uint8", DataTypeKind::uint8, 1, 1},
      {"uint16", DataTypeKind::uint16, 2, 2},       {"uint32", DataTypeKind::uint32, 4, 4},
      {"uint64", DataTypeKind::uint64, 8, 8},       {"float16", DataTypeKind::float16, 2, 2},
      {"float32", DataTypeKind::float32, 4, 4},     {"float64", DataTypeKind::float64, 8, 8},
      {"complex64", DataTypeKind::complex64, 8, 4}, {"complex128", DataTypeKind::complex128, 16, 8},
  };
  for (const auto& e : all) {
    SCOPED_TRACE(e.name);
    const DataType type = DataType::from_name(e.name);
    EXPECT_EQ(type.kind(), e.kind);
    EXPECT_EQ(type.name(), e.name);
    EXPECT_EQ(type.size(), e.size);
    EXPECT_EQ(type.endian_unit(), e.endian_unit);
    EXPECT_EQ(type, DataType(e.kind));
    EXPECT_EQ(type.raw_bits(), 0);
  }
}

TEST(DataType, Classification) {
  EXPECT_TRUE(DataType::from_name("int8").is_integer());
  EXPECT_TRUE(DataType::from_name("int64").is_signed_integer());
  EXPECT_TRUE(DataType::from_name("uint64").is_integer());
  EXPECT_FALSE(DataType::from_name("uint64").is_signed_integer());
  EXPECT_FALSE(DataType::from_name("bool").is_integer());
  EXPECT_TRUE(DataType::from_name("float16").is_float());
  EXPECT_FALSE(DataType::from_name("float16").is_integer());
  EXPECT_FALSE(DataType::from_name("complex64").is_float());
  EXPECT_TRUE(DataType::from_name("complex128").is_complex());
  EXPECT_FALSE(DataType::from_name("r16").is_integer());
  EXPECT_FALSE(DataType::from_name("r16").is_complex());
}

TEST(DataType, DefaultIsUint8) {
  EXPECT_EQ(DataType(), DataType::from_name("uint8"));
  EXPECT_EQ(DataType().size(), 1u);
}

TEST(DataType, RawBits) {
  const DataType r8 = DataType::from_name("r8");
  EXPECT_EQ(r8.kind(), DataTypeKind::raw);
  EXPECT_EQ(r8.raw_bits(), 8);
  EXPECT_EQ(r8.size(), 1u);
  EXPECT_EQ(r8.name(), "r8");
  const DataType r24 = DataType::from_name("r24");
  EXPECT_EQ(r24.size(), 3u);
  EXPECT_EQ(r24.endian_unit(), 1u);
  EXPECT_EQ(r24.name(), "r24");
  EXPECT_EQ(r24, DataType(DataTypeKind::raw, 24));
  EXPECT_NE(r24, r8);
  EXPECT_EQ(DataType::from_name("r1024").size(), 128u);
}

TEST(DataType, RawNeedsAPositiveMultipleOfEightBits) {
  EXPECT_THROW(DataType(DataTypeKind::raw, 0), InvalidArgumentError);
  EXPECT_THROW(DataType(DataTypeKind::raw, 12), InvalidArgumentError);
  EXPECT_THROW(DataType(DataTypeKind::raw, -8), InvalidArgumentError);
}

TEST(DataType, BadNamesAreRejectedByName) {
  for (const char* name : {"",
                           "int",
                           "Int8",
                           "int 8",
                           " int8",
                           "int8 ",
                           "float128",
                           "r",
                           "r0",
                           "r7",
                           "r12",
                           "r-8",
                           "r+8",
                           "r8x",
                           "rr8",
                           "r99999999999999999999",
                           "strings",
                           "fixed_length_utf32",
                           "numpy.datetime64",
                           "<i4"}) {
    SCOPED_TRACE(name);
    try {
      DataType::from_name(name);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + name + "\""), std::string::npos)
          << e.what();
    }
  }
}

TEST(DataType, ExtensionTypesHaveTheirSizesAndParameters) {
  EXPECT_EQ(DataType::from_name("bfloat16").size(), 2u);
  EXPECT_TRUE(DataType::from_name("float8_e4m3fn").is_extension_float());
  EXPECT_EQ(DataType::from_name("string").size(), sizeof(VariableLengthValue));
  EXPECT_TRUE(DataType::from_name("variable_length_bytes").is_variable_length());

  const auto utf32 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 20);
  EXPECT_EQ(utf32.size(), 20u);
  EXPECT_EQ(utf32.endian_unit(), 4u);
  EXPECT_EQ(utf32.description(), "fixed_length_utf32[20]");
  EXPECT_THROW(DataType::fixed_length(DataTypeKind::fixed_length_utf32, 6), InvalidArgumentError);
  EXPECT_THROW(DataType::fixed_length(DataTypeKind::int8, 4), InvalidArgumentError);

  const auto dt = DataType::time(DataTypeKind::datetime64, TimeUnit::ms, 10);
  EXPECT_EQ(dt.size(), 8u);
  EXPECT_EQ(dt.name(), "numpy.datetime64");
  EXPECT_EQ(dt.description(), "numpy.datetime64[10ms]");
  EXPECT_NE(dt, DataType::time(DataTypeKind::datetime64, TimeUnit::ms, 1));
  EXPECT_THROW(DataType::time(DataTypeKind::datetime64, TimeUnit::s, 0), InvalidArgumentError);
  EXPECT_THROW(DataType(DataTypeKind::timedelta64), InvalidArgumentError);
  EXPECT_EQ(parse_time_unit("us"), TimeUnit::us);
  EXPECT_THROW(parse_time_unit("μs"), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
