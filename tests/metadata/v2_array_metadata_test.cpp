#include "cuzarr/metadata/v2_array_metadata.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;
using K = DataTypeKind;
const std::string kSource = "data/a/.zarray";

ArrayMetadata parse(const std::string& text, const json& zattrs = nullptr) {
  return parse_v2_array_metadata(json::parse(text), zattrs, kSource);
}

// What zarr-python 3.1 writes for create_array(shape=(10, 10), chunks=(5, 5), dtype="i4",
// zarr_format=2).
const char* kDefault = R"({
  "shape": [10, 10], "chunks": [5, 5], "dtype": "<i4", "fill_value": 0, "order": "C",
  "filters": null, "dimension_separator": ".", "compressor": {"id": "zstd", "level": 0},
  "zarr_format": 2})";

TEST(V2ArrayMetadata, ParsesZarrPythonDefaults) {
  const ArrayMetadata m = parse(kDefault, json{{"units", "m"}});
  EXPECT_EQ(m.zarr_format, 2);
  EXPECT_EQ(m.shape, (Shape{10, 10}));
  EXPECT_EQ(m.chunk_shape, (Shape{5, 5}));
  EXPECT_EQ(m.data_type, DataType(K::int32));
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}));
  const int64_t coords[] = {1, 0};
  EXPECT_EQ(m.chunk_key_encoding.encode(coords), "1.0");
  EXPECT_EQ(m.fill_value, std::vector<std::byte>(4));
  EXPECT_FALSE(m.fill_value_is_null);
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0].to_json(),
            json::parse(R"({"name": "bytes", "configuration": {"endian": "little"}})"));
  EXPECT_EQ(m.codecs[1].to_json(),
            json::parse(R"({"name": "zstd", "configuration": {"level": 0, "checksum": false}})"));
  EXPECT_EQ(m.attributes, (json{{"units", "m"}}));
}

TEST(V2ArrayMetadata, WritesBackWhatZarrPythonWrote) {
  // Same members, values and member order as the document zarr-python wrote.
  const json original = json::parse(kDefault);
  const auto written = v2_array_metadata_to_json(parse(kDefault));
  EXPECT_EQ(json::parse(written.dump()), original);
  std::vector<std::string> keys;
  for (const auto& [key, value] : written.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"shape", "chunks", "dtype", "fill_value", "order", "filters",
                                      "dimension_separator", "compressor", "zarr_format"}));
}

TEST(V2ArrayMetadata, FortranOrderBigEndianFiltersAndBlosc) {
  const char* text = R"({
    "shape": [10, 10], "chunks": [5, 5], "dtype": ">f8", "fill_value": "NaN", "order": "F",
    "filters": [{"id": "delta", "dtype": ">f8", "astype": ">f8"}], "dimension_separator": ".",
    "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0},
    "zarr_format": 2})";
  const ArrayMetadata m = parse(text);
  ASSERT_EQ(m.codecs.size(), 4u);
  EXPECT_EQ(m.codecs[0].name, "transpose");
  EXPECT_EQ(m.codecs[0].configuration["order"], json::array({1, 0}));
  EXPECT_EQ(m.codecs[1].name, "numcodecs.delta");
  EXPECT_EQ(m.codecs[1].configuration, json::parse(R"({"dtype": ">f8", "astype": ">f8"})"));
  EXPECT_EQ(m.codecs[2].configuration["endian"], "big");
  EXPECT_EQ(m.codecs[3].name, "blosc");
  // AUTOSHUFFLE (-1) is byte shuffle for 8-byte items; typesize is the item size.
  EXPECT_EQ(m.codecs[3].configuration,
            json::parse(R"({"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8,
                            "blocksize": 0})"));
  double fill;
  std::memcpy(&fill, m.fill_value.data(), 8);
  EXPECT_TRUE(std::isnan(fill));

  json expected = json::parse(text);
  expected["compressor"]["shuffle"] = 1;  // the resolved shuffle
  EXPECT_EQ(json::parse(v2_array_metadata_to_json(m).dump()), expected);
}

TEST(V2ArrayMetadata, BloscShuffles) {
  const auto shuffle_of = [](const char* dtype, int shuffle) {
    json j = json::parse(kDefault);
    j["dtype"] = dtype;
    j["compressor"] = {
        {"id", "blosc"}, {"cname", "zstd"}, {"clevel", 3}, {"shuffle", shuffle}, {"blocksize", 0}};
    return parse_v2_array_metadata(j, nullptr, kSource).codecs.back().configuration["shuffle"];
  };
  EXPECT_EQ(shuffle_of("|u1", -1), "bitshuffle");
  EXPECT_EQ(shuffle_of("<i2", -1), "shuffle");
  EXPECT_EQ(shuffle_of("<i2", 0), "noshuffle");
  EXPECT_EQ(shuffle_of("<i2", 1), "shuffle");
  EXPECT_EQ(shuffle_of("<i2", 2), "bitshuffle");
  EXPECT_ERROR_WITH(InvalidArgumentError, shuffle_of("<i2", 5), kSource, "compressor", "shuffle");
}

TEST(V2ArrayMetadata, TypeChangingFiltersSetTheByteOrderAndItemSize) {
  json j = json::parse(kDefault);
  j["dtype"] = ">f8";
  j["filters"] = json::parse(
      R"([{"id": "fixedscaleoffset", "offset": 0, "scale": 10, "dtype": ">f8", "astype": "<i2"}])");
  j["compressor"] = json::parse(R"({"id": "blosc", "cname": "lz4", "clevel": 1, "shuffle": 1})");
  const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
  ASSERT_EQ(m.codecs.size(), 3u);
  EXPECT_EQ(m.codecs[1].configuration["endian"], "little");
  EXPECT_EQ(m.codecs[2].configuration["typesize"], 2);

  j["dtype"] = "|b1";
  j["filters"] = json::parse(R"([{"id": "packbits"}])");
  j["compressor"] = nullptr;
  const ArrayMetadata packed = parse_v2_array_metadata(j, nullptr, kSource);
  ASSERT_EQ(packed.codecs.size(), 2u);
  EXPECT_EQ(packed.codecs[0].name, "numcodecs.packbits");
  EXPECT_EQ(packed.codecs[1].to_json(), json::parse(R"({"name": "bytes"})"));
}

TEST(V2ArrayMetadata, ByteFiltersFollowTheSerialisation) {
  json j = json::parse(kDefault);
  j["filters"] = json::parse(R"([{"id": "shuffle", "elementsize": 4}])");
  j["compressor"] = json::parse(R"({"id": "zlib", "level": 1})");
  const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
  ASSERT_EQ(m.codecs.size(), 3u);
  EXPECT_EQ(m.codecs[0].name, "bytes");
  EXPECT_EQ(m.codecs[1].name, "numcodecs.shuffle");
  EXPECT_EQ(m.codecs[2].name, "numcodecs.zlib");
  EXPECT_EQ(json::parse(v2_array_metadata_to_json(m).dump()), j);

  j["filters"] = json::parse(R"([{"id": "zlib", "level": 1}, {"id": "delta", "dtype": "<i4"}])");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "filters", "delta");
}

TEST(V2ArrayMetadata, ObjectDtypeTakesItsTypeFromTheVlenFilter) {
  json j = json::parse(kDefault);
  j["dtype"] = "|O";
  j["fill_value"] = "";
  j["filters"] = json::parse(R"([{"id": "vlen-utf8"}])");
  const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
  EXPECT_EQ(m.data_type, DataType(K::string));
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0].name, "vlen-utf8");
  EXPECT_EQ(m.codecs[1].name, "zstd");
  EXPECT_EQ(json::parse(v2_array_metadata_to_json(m).dump()), j);

  j["filters"] = json::parse(R"([{"id": "vlen-bytes"}])");
  EXPECT_EQ(parse_v2_array_metadata(j, nullptr, kSource).data_type,
            DataType(K::variable_length_bytes));

  j["filters"] = nullptr;
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "dtype", "vlen-utf8");
  j["filters"] = json::parse(R"([{"id": "vlen-array", "dtype": "<i4"}])");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "dtype");
}

TEST(V2ArrayMetadata, NullFillValueIsRemembered) {
  json j = json::parse(kDefault);
  j["dtype"] = "<f2";
  j["fill_value"] = nullptr;
  const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
  EXPECT_TRUE(m.fill_value_is_null);
  EXPECT_EQ(m.fill_value, std::vector<std::byte>(2));
  EXPECT_TRUE(v2_array_metadata_to_json(m)["fill_value"].is_null());
}

TEST(V2ArrayMetadata, SlashSeparatorAndZeroDimensionalArrays) {
  json j = json::parse(kDefault);
  j["dimension_separator"] = "/";
  const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
  const int64_t coords[] = {1, 2};
  EXPECT_EQ(m.chunk_key_encoding.encode(coords), "1/2");
  EXPECT_EQ(v2_array_metadata_to_json(m)["dimension_separator"], "/");

  j = json::parse(kDefault);
  j["shape"] = json::array();
  j["chunks"] = json::array();
  j["order"] = "F";
  const ArrayMetadata scalar = parse_v2_array_metadata(j, nullptr, kSource);
  EXPECT_EQ(scalar.chunk_key_encoding.encode({}), "0");
  EXPECT_EQ(scalar.codecs.size(), 2u);  // no transpose for a 0-d array
}

TEST(V2ArrayMetadata, EveryExtensionTypestrGetsItsCodecs) {
  for (const char* dtype : {"<U5", ">U5", "|S4", "|V3", "<M8[ns]", "<m8[10s]"}) {
    json j = json::parse(kDefault);
    j["dtype"] = dtype;
    j["fill_value"] = nullptr;
    const ArrayMetadata m = parse_v2_array_metadata(j, nullptr, kSource);
    EXPECT_EQ(json::parse(v2_array_metadata_to_json(m).dump()), j) << dtype;
  }
  json j = json::parse(kDefault);
  j["dtype"] = ">U5";
  j["fill_value"] = "";
  EXPECT_EQ(parse_v2_array_metadata(j, nullptr, kSource).codecs[0].configuration["endian"], "big");
}

TEST(V2ArrayMetadata, InconsistentMetadataNamesTheFileAndField) {
  const auto with = [](const char* field, json value) {
    json j = json::parse(kDefault);
    j[field] = std::move(value);
    return j;
  };
  const auto without = [](const char* field) {
    json j = json::parse(kDefault);
    j.erase(field);
    return j;
  };
  const std::vector<std::pair<json, const char*>> cases = {
      {with("chunks", json::array({5})), "chunks"},
      {with("chunks", json::array({5, 0})), "chunks"},
      {with("shape", json::array({-1, 10})), "shape"},
      {with("shape", "10"), "shape"},
      {with("dtype", "<i3"), "dtype"},
      {with("dtype", 4), "dtype"},
      {with("compressor", "zstd"), "compressor"},
      {with("compressor", json::object()), "compressor"},
      {with("filters", json::object()), "filters"},
      {with("filters", json::array({"zlib"})), "filters"},
      {with("order", "K"), "order"},
      {with("dimension_separator", "-"), "dimension_separator"},
      {with("fill_value", "zero"), "fill_value"},
      {with("zarr_format", 3), "zarr_format"},
      {without("shape"), "shape"},
      {without("chunks"), "chunks"},
      {without("dtype"), "dtype"},
      {without("compressor"), "compressor"},
      {without("fill_value"), "fill_value"},
      {without("order"), "order"},
      {without("zarr_format"), "zarr_format"},
  };
  for (const auto& [document, field] : cases) {
    const std::string quoted = std::string("\"") + field + "\"";
    EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_array_metadata(document, nullptr, kSource),
                      kSource, quoted);
  }
  EXPECT_ERROR_WITH(InvalidArgumentError, parse_v2_array_metadata(json::array(), nullptr, kSource),
                    kSource);
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse_v2_array_metadata(json::parse(kDefault), json::array(), kSource),
                    "data/a/.zattrs");
}

TEST(V2ArrayMetadata, UnsupportedMetadataNamesWhat) {
  json j = json::parse(kDefault);
  j["dtype"] = json::parse(R"([["x", "<i4"], ["y", "<f8"]])");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "dtype", "\"x\"");
  j = json::parse(kDefault);
  j["compressor"] = json::parse(R"({"id": "snappy-ish"})");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "snappy-ish");
  j = json::parse(kDefault);
  j["filters"] = json::parse(R"([{"id": "categorize"}])");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "categorize");
  j = json::parse(kDefault);
  j["compressor"] = json::parse(R"({"id": "delta", "dtype": "<i4"})");
  EXPECT_ERROR_WITH(UnsupportedError, parse_v2_array_metadata(j, nullptr, kSource), kSource,
                    "compressor");
}

TEST(V2ArrayMetadata, WritingRefusesWhatV2CannotHold) {
  ArrayMetadata m = parse(kDefault);
  ArrayMetadata sharded = m;
  sharded.codecs = {CodecSpec{"sharding_indexed", json::object()}};
  EXPECT_ERROR_WITH(UnsupportedError, v2_array_metadata_to_json(sharded), "sharding_indexed");
  ArrayMetadata v3_keys = m;
  v3_keys.chunk_key_encoding = {};
  EXPECT_ERROR_WITH(UnsupportedError, v2_array_metadata_to_json(v3_keys), "chunk key encoding");
  ArrayMetadata transposed = m;
  transposed.codecs.insert(transposed.codecs.begin() + 1,
                           CodecSpec{"transpose", {{"order", {1, 0}}}});
  EXPECT_ERROR_WITH(UnsupportedError, v2_array_metadata_to_json(transposed), "transpose");
}

TEST(V2GroupMetadata, ParsesAndWrites) {
  const GroupMetadata g =
      parse_v2_group_metadata(json{{"zarr_format", 2}}, json{{"a", 1}}, "g/.zgroup");
  EXPECT_EQ(g.zarr_format, 2);
  EXPECT_EQ(g.attributes, (json{{"a", 1}}));
  EXPECT_EQ(parse_v2_group_metadata(json{{"zarr_format", 2}}, nullptr, "g/.zgroup").attributes,
            json::object());
  EXPECT_EQ(v2_group_metadata_to_json().dump(), R"({"zarr_format":2})");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse_v2_group_metadata(json{{"zarr_format", 3}}, nullptr, "g/.zgroup"),
                    "g/.zgroup", "zarr_format");
}

}  // namespace
}  // namespace cuzarr
