#include "cuzarr/metadata/v2_data_type.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

struct TypestrCase {
  const char* typestr;
  DataType type;
  bool big_endian;
  const char* written;  ///< the typestr written back
};

void PrintTo(const TypestrCase& c, std::ostream* os) { *os << c.typestr; }

class V2Typestr : public ::testing::TestWithParam<TypestrCase> {};

TEST_P(V2Typestr, ParsesAndWritesBack) {
  const auto& c = GetParam();
  const V2DataType parsed = parse_v2_data_type(c.typestr);
  EXPECT_EQ(parsed.data_type, c.type) << parsed.data_type.description();
  EXPECT_EQ(parsed.big_endian, c.big_endian);
  EXPECT_FALSE(parsed.is_object);
  EXPECT_EQ(v2_data_type_string(parsed.data_type, parsed.big_endian), c.written);
}

using K = DataTypeKind;
INSTANTIATE_TEST_SUITE_P(
    EveryNumpyTypestr, V2Typestr,
    ::testing::Values(
        TypestrCase{"|b1", DataType(K::boolean), false, "|b1"},
        TypestrCase{"|i1", DataType(K::int8), false, "|i1"},
        TypestrCase{"<i1", DataType(K::int8), false, "|i1"},
        TypestrCase{"<i2", DataType(K::int16), false, "<i2"},
        TypestrCase{"<i4", DataType(K::int32), false, "<i4"},
        TypestrCase{">i4", DataType(K::int32), true, ">i4"},
        TypestrCase{"<i8", DataType(K::int64), false, "<i8"},
        TypestrCase{"|u1", DataType(K::uint8), false, "|u1"},
        TypestrCase{">u2", DataType(K::uint16), true, ">u2"},
        TypestrCase{"<u4", DataType(K::uint32), false, "<u4"},
        TypestrCase{"<u8", DataType(K::uint64), false, "<u8"},
        TypestrCase{"<f2", DataType(K::float16), false, "<f2"},
        TypestrCase{"<f4", DataType(K::float32), false, "<f4"},
        TypestrCase{">f8", DataType(K::float64), true, ">f8"},
        TypestrCase{"<c8", DataType(K::complex64), false, "<c8"},
        TypestrCase{">c16", DataType(K::complex128), true, ">c16"},
        TypestrCase{"<U5", DataType::fixed_length(K::fixed_length_utf32, 20), false, "<U5"},
        TypestrCase{">U1", DataType::fixed_length(K::fixed_length_utf32, 4), true, ">U1"},
        TypestrCase{"|S4", DataType::fixed_length(K::null_terminated_bytes, 4), false, "|S4"},
        TypestrCase{"|V3", DataType::fixed_length(K::raw_bytes, 3), false, "|V3"},
        TypestrCase{"<M8[ns]", DataType::time(K::datetime64, TimeUnit::ns), false, "<M8[ns]"},
        TypestrCase{">M8[D]", DataType::time(K::datetime64, TimeUnit::D), true, ">M8[D]"},
        TypestrCase{"<m8[10s]", DataType::time(K::timedelta64, TimeUnit::s, 10), false, "<m8[10s]"},
        TypestrCase{"<m8[us]", DataType::time(K::timedelta64, TimeUnit::us), false, "<m8[us]"}));

TEST(V2Typestr, ObjectIsMarked) {
  EXPECT_TRUE(parse_v2_data_type("|O").is_object);
  EXPECT_EQ(v2_data_type_string(DataType(DataTypeKind::string)), "|O");
  EXPECT_EQ(v2_data_type_string(DataType(DataTypeKind::variable_length_bytes)), "|O");
}

TEST(V2Typestr, V3RawTypesAreWrittenAsVoid) {
  EXPECT_EQ(v2_data_type_string(DataType(DataTypeKind::raw, 24)), "|V3");
}

TEST(V2Typestr, MalformedTypestrsAreRefusedByName) {
  for (const char* bad : {"", "i4", "<i3", "<f1", "<c4", "|i4", "|f8", "<x4", "=i4", "<U0", "|S",
                          "|Sx", "<M8", "<M8[]", "<M8[parsec]", "<m8[0s]", "|O4", "<U5 "}) {
    const std::string quoted = "\"" + std::string(bad) + "\"";
    EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_data_type(bad), quoted, "dtype");
  }
}

TEST(V2Typestr, TypesWithoutATypestrAreUnsupported) {
  EXPECT_ERROR_WITH(UnsupportedError, v2_data_type_string(DataType(DataTypeKind::bfloat16)),
                    "bfloat16", "Zarr v2");
}

}  // namespace
}  // namespace cuzarr
