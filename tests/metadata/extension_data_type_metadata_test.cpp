#include <gtest/gtest.h>

#include <cstring>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/metadata/data_type_json.hpp"
#include "cuzarr/metadata/fill_value.hpp"
#include "expect_error.hpp"

namespace cuzarr {
namespace {

using nlohmann::json;

TEST(DataTypeJson, ParsesWhatZarrPythonWrites) {
  const auto utf32 = data_type_from_json(
      json::parse(R"({"name":"fixed_length_utf32","configuration":{"length_bytes":20}})"));
  EXPECT_EQ(utf32, DataType::fixed_length(DataTypeKind::fixed_length_utf32, 20));
  const auto s = data_type_from_json(
      json::parse(R"({"name":"null_terminated_bytes","configuration":{"length_bytes":4}})"));
  EXPECT_EQ(s.size(), 4u);
  const auto v = data_type_from_json(
      json::parse(R"({"name":"raw_bytes","configuration":{"length_bytes":3}})"));
  EXPECT_EQ(v.kind(), DataTypeKind::raw_bytes);
  const auto m = data_type_from_json(
      json::parse(R"({"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":10}})"));
  EXPECT_EQ(m, DataType::time(DataTypeKind::datetime64, TimeUnit::s, 10));
  EXPECT_EQ(m.description(), "numpy.datetime64[10s]");
  EXPECT_EQ(data_type_from_json("string").kind(), DataTypeKind::string);
  EXPECT_EQ(data_type_from_json("variable_length_bytes").kind(),
            DataTypeKind::variable_length_bytes);
  EXPECT_EQ(data_type_from_json("bfloat16").kind(), DataTypeKind::bfloat16);
  EXPECT_EQ(data_type_from_json("float8_e4m3b11fnuz").kind(), DataTypeKind::float8_e4m3b11fnuz);
  EXPECT_EQ(data_type_from_json(json::parse(R"({"name":"int16","configuration":{}})")).kind(),
            DataTypeKind::int16);
}

TEST(DataTypeJson, WritesAndReadsBackEveryKind) {
  const DataType types[] = {
      DataType(DataTypeKind::bfloat16),
      DataType(DataTypeKind::float8_e5m2),
      DataType::time(DataTypeKind::datetime64, TimeUnit::ms),
      DataType::time(DataTypeKind::timedelta64, TimeUnit::us, 3),
      DataType::fixed_length(DataTypeKind::fixed_length_utf32, 8),
      DataType::fixed_length(DataTypeKind::null_terminated_bytes, 5),
      DataType::fixed_length(DataTypeKind::raw_bytes, 2),
      DataType(DataTypeKind::string),
      DataType(DataTypeKind::variable_length_bytes),
      DataType(DataTypeKind::raw, 24),
  };
  for (const auto& type : types) EXPECT_EQ(data_type_from_json(data_type_to_json(type)), type);
  EXPECT_EQ(data_type_to_json(DataType::time(DataTypeKind::timedelta64, TimeUnit::us, 3)),
            json::parse(
                R"({"name":"numpy.timedelta64","configuration":{"unit":"us","scale_factor":3}})"));
  EXPECT_EQ(data_type_to_json(DataType(DataTypeKind::string)), json("string"));
}

TEST(DataTypeJson, NamesWhatIsWrong) {
  EXPECT_ERROR_WITH(UnsupportedError, data_type_from_json("float128"), "\"float128\"");
  EXPECT_ERROR_WITH(UnsupportedError, data_type_from_json(json::parse(R"({"name":"my.type"})")),
                    "\"my.type\"");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    data_type_from_json(json::parse(R"({"name":"raw_bytes"})")), "raw_bytes",
                    "configuration");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    data_type_from_json(json::parse(
                        R"({"name":"fixed_length_utf32","configuration":{"length_bytes":6}})")),
                    "length_bytes");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    data_type_from_json(
                        json::parse(R"({"name":"raw_bytes","configuration":{"length_bytes":0}})")),
                    "length_bytes");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      data_type_from_json(json::parse(
          R"({"name":"numpy.datetime64","configuration":{"unit":"fortnight","scale_factor":1}})")),
      "unit", "fortnight");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    data_type_from_json(
                        json::parse(R"({"name":"numpy.datetime64","configuration":{"unit":"s"}})")),
                    "scale_factor");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    data_type_from_json(json::parse(
                        R"({"name":"raw_bytes","configuration":{"length_bytes":2,"x":1}})")),
                    "\"x\"");
  EXPECT_ERROR_WITH(
      UnsupportedError,
      data_type_from_json(json::parse(R"({"name":"bfloat16","configuration":{"a":1}})")),
      "bfloat16", "configuration");
}

json array_document(const json& data_type, const json& fill_value, const json& codecs) {
  return {{"zarr_format", 3},
          {"node_type", "array"},
          {"shape", {4}},
          {"data_type", data_type},
          {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {2}}}}}},
          {"chunk_key_encoding", {{"name", "default"}}},
          {"fill_value", fill_value},
          {"codecs", codecs}};
}

TEST(ArrayMetadataExtensionTypes, ParsesZarrPythonDocumentsAndWritesThemBack) {
  const json vlen = json::parse(R"([{"name":"vlen-utf8","configuration":{}}])");
  const json bytes = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}])");
  const json docs[] = {
      array_document("string", "", vlen),
      array_document("string", "zz", vlen),
      array_document("variable_length_bytes", "eHk=", vlen),
      array_document(
          json::parse(R"({"name":"fixed_length_utf32","configuration":{"length_bytes":20}})"), "hi",
          bytes),
      array_document(
          json::parse(R"({"name":"null_terminated_bytes","configuration":{"length_bytes":4}})"),
          "eHk=", bytes),
      array_document(json::parse(R"({"name":"raw_bytes","configuration":{"length_bytes":3}})"),
                     "AQID", bytes),
      array_document(
          json::parse(
              R"({"name":"numpy.datetime64","configuration":{"unit":"ms","scale_factor":1}})"),
          json(INT64_MIN), bytes),
      array_document("bfloat16", "0x7fe0", bytes),
      array_document("float8_e5m2", "Infinity", bytes),
      array_document("float8_e4m3fn", 1.5, bytes),
  };
  for (const auto& doc : docs) {
    const auto m = ArrayMetadata::from_json(doc, "zarr.json");
    const auto back = m.to_json();
    EXPECT_EQ(back["data_type"], doc["data_type"]);
    EXPECT_EQ(back["fill_value"], doc["fill_value"]) << doc.dump();
  }
}

TEST(ArrayMetadataExtensionTypes, UnknownDataTypeIsUnsupportedAndNamed) {
  const json doc = array_document("complex256", 0, json::array());
  EXPECT_ERROR_WITH(UnsupportedError, ArrayMetadata::from_json(doc, "a/zarr.json"), "a/zarr.json",
                    "data_type", "complex256");
  const json bad = array_document(json::parse(R"({"name":"raw_bytes","configuration":{}})"), "AAAA",
                                  json::array());
  EXPECT_ERROR_WITH(InvalidArgumentError, ArrayMetadata::from_json(bad, "b/zarr.json"),
                    "b/zarr.json", "data_type", "length_bytes");
}

template <typename T>
T element(const std::vector<std::byte>& bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

TEST(FillValueExtensionTypes, EncodesElements) {
  const auto dt_ms = DataType::time(DataTypeKind::datetime64, TimeUnit::ms);
  EXPECT_EQ(element<int64_t>(parse_fill_value("NaT", dt_ms)), kNotATime);
  EXPECT_EQ(element<int64_t>(parse_fill_value(5, dt_ms)), 5);
  EXPECT_EQ(fill_value_to_json(parse_fill_value("NaT", dt_ms), dt_ms), json(INT64_MIN));

  const auto u2 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 8);
  const auto e_acute = parse_fill_value("\xc3\xa9", u2);
  EXPECT_EQ(element<uint32_t>(e_acute), 0xE9u);
  EXPECT_EQ(fill_value_to_json(e_acute, u2), json("\xc3\xa9"));

  const auto s4 = DataType::fixed_length(DataTypeKind::null_terminated_bytes, 4);
  const auto xy = parse_fill_value("eHk=", s4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(xy.data()), 4), std::string("xy\0\0", 4));
  EXPECT_EQ(fill_value_to_json(parse_fill_value("", s4), s4), json(""));

  const auto str = DataType(DataTypeKind::string);
  EXPECT_EQ(element<VariableLengthValue>(parse_fill_value("zz", str)).view(), "zz");
  EXPECT_EQ(element<VariableLengthValue>(parse_fill_value("", str)).size, 0u);

  EXPECT_EQ(element<uint16_t>(parse_fill_value("NaN", DataType(DataTypeKind::bfloat16))), 0x7FC0);
  EXPECT_EQ(element<uint8_t>(parse_fill_value("NaN", DataType(DataTypeKind::float8_e4m3fnuz))),
            0x80);
  EXPECT_EQ(element<uint8_t>(parse_fill_value("0x7f", DataType(DataTypeKind::float8_e4m3fn))),
            0x7F);
  EXPECT_EQ(fill_value_to_json(parse_fill_value("NaN", DataType(DataTypeKind::float8_e4m3fn)),
                               DataType(DataTypeKind::float8_e4m3fn)),
            json("NaN"));
  EXPECT_EQ(fill_value_to_json(parse_fill_value(-2.5, DataType(DataTypeKind::bfloat16)),
                               DataType(DataTypeKind::bfloat16)),
            json(-2.5));
}

TEST(FillValueExtensionTypes, RejectsValuesThatDoNotFit) {
  const auto u1 = DataType::fixed_length(DataTypeKind::fixed_length_utf32, 4);
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value("ab", u1), "at most 1 characters");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      parse_fill_value("AAAAAA==", DataType::fixed_length(DataTypeKind::raw_bytes, 3)),
      "exactly 3 bytes");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      parse_fill_value("!!", DataType::fixed_length(DataTypeKind::null_terminated_bytes, 3)),
      "base64");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse_fill_value(1.5, DataType::time(DataTypeKind::timedelta64, TimeUnit::s)),
                    "integer");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse_fill_value(1e6, DataType(DataTypeKind::float8_e4m3fn)), "range");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_fill_value(3, DataType(DataTypeKind::string)),
                    "a string");
}

}  // namespace
}  // namespace cuzarr
