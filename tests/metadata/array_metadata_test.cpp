#include "cuzarr/metadata/array_metadata.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

const std::string kSource = "data/a/zarr.json";

// An array zarr.json exactly as zarr-python 3 writes it.
const char* kZarrPythonInt32 = R"({
  "shape": [100, 100],
  "data_type": "int32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": 0,
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
             {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
  "attributes": {},
  "zarr_format": 3,
  "node_type": "array",
  "storage_transformers": []
})";

json valid_document() { return json::parse(kZarrPythonInt32); }

ArrayMetadata parse(const json& j) { return ArrayMetadata::from_json(j, kSource); }

TEST(ArrayMetadata, ParsesZarrPythonDocument) {
  const auto m = ArrayMetadata::from_json(parse_json_document(kZarrPythonInt32, kSource), kSource);
  EXPECT_EQ(m.zarr_format, 3);
  EXPECT_EQ(m.shape, (Shape{100, 100}));
  EXPECT_EQ(m.data_type, DataType(DataTypeKind::int32));
  EXPECT_EQ(m.chunk_shape, (Shape{10, 10}));
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::default_, '/'}));
  EXPECT_EQ(m.fill_value, std::vector<std::byte>(4, std::byte{0}));
  ASSERT_EQ(m.codecs.size(), 2u);
  EXPECT_EQ(m.codecs[0].name, "bytes");
  EXPECT_EQ(m.codecs[0].configuration, json::parse(R"({"endian": "little"})"));
  EXPECT_EQ(m.codecs[1].name, "zstd");
  EXPECT_EQ(m.codecs[1].configuration, json::parse(R"({"level": 0, "checksum": false})"));
  EXPECT_EQ(m.attributes, json::object());
  EXPECT_FALSE(m.dimension_names.has_value());
  EXPECT_EQ(m.ndim(), 2u);
  EXPECT_EQ(m.chunk_grid_shape(), (Shape{10, 10}));
  EXPECT_EQ(m.chunk_count(), 100);
}

TEST(ArrayMetadata, ParsesZarrPythonFloatShardedDocument) {
  const char* text = R"({
    "shape": [64, 48, 5],
    "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [32, 16, 5]}},
    "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
    "fill_value": "NaN",
    "codecs": [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [8, 8, 5],
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "blosc", "configuration": {"typesize": 4, "cname": "lz4", "clevel": 5,
                                                       "shuffle": "shuffle", "blocksize": 0}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": "end"}}],
    "attributes": {"units": "K", "scale": [1.5, 2]},
    "dimension_names": ["y", "x", null],
    "zarr_format": 3,
    "node_type": "array",
    "storage_transformers": []
  })";
  const auto m = ArrayMetadata::from_json(parse_json_document(text, kSource), kSource);
  EXPECT_EQ(m.data_type, DataType(DataTypeKind::float32));
  uint32_t fill_bits = 0;
  ASSERT_EQ(m.fill_value.size(), 4u);
  std::memcpy(&fill_bits, m.fill_value.data(), 4);
  EXPECT_EQ(fill_bits, 0x7FC00000u);
  EXPECT_EQ(m.chunk_key_encoding, (ChunkKeyEncoding{ChunkKeyEncoding::Kind::v2, '.'}));
  ASSERT_EQ(m.codecs.size(), 1u);
  EXPECT_EQ(m.codecs[0].name, "sharding_indexed");
  EXPECT_EQ(m.codecs[0].configuration["index_location"], "end");
  EXPECT_EQ(m.attributes["units"], "K");
  ASSERT_TRUE(m.dimension_names.has_value());
  EXPECT_EQ(*m.dimension_names, (std::vector<std::optional<std::string>>{"y", "x", std::nullopt}));
  EXPECT_EQ(m.chunk_grid_shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(m.chunk_count(), 6);
}

TEST(ArrayMetadata, WritesSpecDocument) {
  auto m = parse(valid_document());
  m.attributes = {{"a", 1}};
  m.dimension_names = std::vector<std::optional<std::string>>{"row", std::nullopt};
  const json expected = json::parse(R"({
    "zarr_format": 3,
    "node_type": "array",
    "shape": [100, 100],
    "data_type": "int32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10, 10]}},
    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
    "fill_value": 0,
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
               {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
    "attributes": {"a": 1},
    "dimension_names": ["row", null]
  })");
  EXPECT_EQ(m.to_json(), expected);
  m.dimension_names.reset();
  EXPECT_FALSE(m.to_json().contains("dimension_names"));
}

void expect_same(const ArrayMetadata& a, const ArrayMetadata& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.data_type, b.data_type);
  EXPECT_EQ(a.chunk_shape, b.chunk_shape);
  EXPECT_EQ(a.chunk_key_encoding, b.chunk_key_encoding);
  EXPECT_EQ(a.fill_value, b.fill_value);
  ASSERT_EQ(a.codecs.size(), b.codecs.size());
  for (size_t i = 0; i < a.codecs.size(); ++i) {
    EXPECT_EQ(a.codecs[i].name, b.codecs[i].name);
    EXPECT_EQ(a.codecs[i].configuration, b.codecs[i].configuration);
  }
  EXPECT_EQ(a.attributes, b.attributes);
  EXPECT_EQ(a.dimension_names, b.dimension_names);
}

TEST(ArrayMetadata, RoundTripsEveryDataType) {
  const std::pair<const char*, json> cases[] = {
      {"bool", true},
      {"int8", -5},
      {"int16", 300},
      {"int32", -70000},
      {"int64", -1},
      {"uint8", 200},
      {"uint16", 65535},
      {"uint32", 4000000000u},
      {"uint64", 1},
      {"float16", "NaN"},
      {"float32", "0x7fc00001"},
      {"float64", -0.25},
      {"complex64", json::array({1.0, "-Infinity"})},
      {"complex128", json::array({"NaN", 2.0})},
      {"r16", json::array({1, 255})},
  };
  for (const auto& [name, fill] : cases) {
    SCOPED_TRACE(name);
    json doc = valid_document();
    doc["data_type"] = name;
    doc["fill_value"] = fill;
    doc["dimension_names"] = {"a", nullptr};
    const auto m = parse(doc);
    EXPECT_EQ(m.data_type.name(), name);
    EXPECT_EQ(m.to_json()["fill_value"], fill);
    expect_same(ArrayMetadata::from_json(m.to_json(), kSource), m);
    const std::string text = m.to_json().dump();
    expect_same(ArrayMetadata::from_json(parse_json_document(text, kSource), kSource), m);
  }
}

TEST(ArrayMetadata, ZeroDimensionalAndEmptyArrays) {
  json doc = valid_document();
  doc["shape"] = json::array();
  doc["chunk_grid"]["configuration"]["chunk_shape"] = json::array();
  const auto scalar = parse(doc);
  EXPECT_EQ(scalar.ndim(), 0u);
  EXPECT_EQ(scalar.chunk_grid_shape(), Shape{});
  EXPECT_EQ(scalar.chunk_count(), 1);
  EXPECT_EQ(scalar.chunk_key_encoding.encode(scalar.chunk_grid_shape()), "c");

  doc = valid_document();
  doc["shape"] = {0, 25};
  const auto empty = parse(doc);
  EXPECT_EQ(empty.chunk_grid_shape(), (Shape{0, 3}));
  EXPECT_EQ(empty.chunk_count(), 0);
}

TEST(ArrayMetadata, AcceptsDataTypeObjectFormForCoreTypes) {
  json doc = valid_document();
  doc["data_type"] = {{"name", "uint16"}};
  EXPECT_EQ(parse(doc).data_type, DataType(DataTypeKind::uint16));
  doc["data_type"] = {{"name", "r24"}, {"configuration", json::object()}};
  doc["fill_value"] = {0, 0, 0};
  EXPECT_EQ(parse(doc).data_type, DataType(DataTypeKind::raw, 24));
}

TEST(ArrayMetadata, IgnoresExtensionsThatNeedNotBeUnderstood) {
  json doc = valid_document();
  doc["my_extension"] = {{"must_understand", false}, {"payload", {1, 2, 3}}};
  EXPECT_EQ(parse(doc).shape, (Shape{100, 100}));
  // "dimension_names": null was written by some zarr-python releases; it means "none".
  doc = valid_document();
  doc["dimension_names"] = nullptr;
  EXPECT_FALSE(parse(doc).dimension_names.has_value());
  doc = valid_document();
  doc.erase("storage_transformers");
  doc.erase("attributes");
  EXPECT_EQ(parse(doc).attributes, json::object());
}

// ---- errors: every one names the source and the field ------------------------------------------

#define EXPECT_INVALID(doc, ...) \
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(doc), kSource, __VA_ARGS__)
#define EXPECT_UNSUPPORTED(doc, ...) \
  EXPECT_ERROR_WITH(UnsupportedError, parse(doc), kSource, __VA_ARGS__)

json with(const char* field, json value) {
  json doc = valid_document();
  doc[field] = std::move(value);
  return doc;
}

json without(const char* field) {
  json doc = valid_document();
  doc.erase(field);
  return doc;
}

TEST(ArrayMetadataErrors, Document) {
  EXPECT_INVALID(json::array(), "object");
  EXPECT_INVALID(without("zarr_format"), "\"zarr_format\"", "missing");
  EXPECT_INVALID(with("zarr_format", 2), "\"zarr_format\"", "must be 3");
  EXPECT_INVALID(with("zarr_format", "3"), "\"zarr_format\"");
  EXPECT_INVALID(without("node_type"), "\"node_type\"", "missing");
  EXPECT_INVALID(with("node_type", "group"), "\"node_type\"", "\"group\"", "expected \"array\"");
  EXPECT_INVALID(with("node_type", 1), "\"node_type\"");
}

TEST(ArrayMetadataErrors, Shape) {
  EXPECT_INVALID(without("shape"), "\"shape\"", "missing");
  EXPECT_INVALID(with("shape", 100), "\"shape\"", "list");
  EXPECT_INVALID(with("shape", {100, -1}), "\"shape\"", ">= 0");
  EXPECT_INVALID(with("shape", {100, 1.5}), "\"shape\"");
  EXPECT_INVALID(with("shape", {100, "1"}), "\"shape\"");
  EXPECT_INVALID(with("shape", json::parse("[100, 9223372036854775808]")), "\"shape\"",
                 "too large");
  // 2^31 * 2^31 elements fit in int64, but not as bytes of int32.
  json doc = with("shape", {int64_t{1} << 31, int64_t{1} << 31});
  EXPECT_INVALID(doc, "\"shape\"", "overflow");
  doc = with("shape", {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_INVALID(doc, "\"shape\"", "overflow");
  doc["shape"] = {100, 100, 100};  // rank differs from chunk_shape
  EXPECT_INVALID(doc, "\"chunk_shape\"", "dimensions");
}

TEST(ArrayMetadataErrors, DataType) {
  EXPECT_INVALID(without("data_type"), "\"data_type\"", "missing");
  EXPECT_UNSUPPORTED(with("data_type", "float128"), "\"data_type\"", "\"float128\"");
  EXPECT_UNSUPPORTED(with("data_type", "r7"), "\"data_type\"", "r7");
  EXPECT_INVALID(
      with("data_type",
           json::parse(R"({"name": "numpy.datetime64", "configuration": {"unit": "s"}})")),
      "\"data_type\"", "numpy.datetime64", "scale_factor");
  EXPECT_UNSUPPORTED(
      with("data_type", json::parse(R"({"name": "int32", "configuration": {"x": 1}})")),
      "\"data_type\"", "configuration");
  EXPECT_INVALID(with("data_type", 4), "\"data_type\"");
  EXPECT_INVALID(with("data_type", json::object()), "\"data_type\"");
}

TEST(ArrayMetadataErrors, ChunkGrid) {
  EXPECT_INVALID(without("chunk_grid"), "\"chunk_grid\"", "missing");
  EXPECT_UNSUPPORTED(
      with("chunk_grid", json::parse(R"({"name": "rectangular", "configuration": {}})")),
      "\"chunk_grid\"", "rectangular");
  EXPECT_INVALID(with("chunk_grid", json::parse(R"({"name": "rectilinear", "configuration": {}})")),
                 "\"chunk_grid\"", "inline");
  EXPECT_INVALID(with("chunk_grid", "regular"), "\"chunk_grid\"");
  EXPECT_INVALID(with("chunk_grid", json::parse(R"({"name": "regular"})")), "\"chunk_grid\"",
                 "chunk_shape");
  EXPECT_INVALID(
      with("chunk_grid",
           json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [10, 0]}})")),
      "\"chunk_shape\"", ">= 1");
  EXPECT_INVALID(
      with("chunk_grid",
           json::parse(R"({"name": "regular", "configuration": {"chunk_shape": [10]}})")),
      "\"chunk_shape\"", "[10]", "1 dimensions", "has 2");
  EXPECT_INVALID(
      with("chunk_grid",
           json::parse(
               R"({"name": "regular", "configuration": {"chunk_shape": [10, 10], "x": 1}})")),
      "\"chunk_grid\"", "\"x\"");
  EXPECT_INVALID(
      with(
          "chunk_grid",
          json::parse(
              R"({"name": "regular", "configuration": {"chunk_shape": [4611686018427387904, 10]}})")),
      "\"chunk_shape\"", "overflow");
}

TEST(ArrayMetadataErrors, ChunkKeyEncoding) {
  EXPECT_INVALID(without("chunk_key_encoding"), "\"chunk_key_encoding\"", "missing");
  EXPECT_INVALID(with("chunk_key_encoding",
                      json::parse(R"({"name": "default", "configuration": {"separator": "_"}})")),
                 "\"chunk_key_encoding\"", "separator");
  EXPECT_INVALID(with("chunk_key_encoding", json::parse(R"({"name": "v3"})")),
                 "\"chunk_key_encoding\"", "v3");
}

TEST(ArrayMetadataErrors, FillValue) {
  EXPECT_INVALID(without("fill_value"), "\"fill_value\"", "missing");
  EXPECT_INVALID(with("fill_value", 1.5), "\"fill_value\"", "int32");
  EXPECT_INVALID(with("fill_value", 4294967296), "\"fill_value\"", "int32");
  EXPECT_INVALID(with("fill_value", nullptr), "\"fill_value\"");
  json doc = with("data_type", "float64");
  doc["fill_value"] = "0x7fc00000";
  EXPECT_INVALID(doc, "\"fill_value\"", "16 hex digits");
}

TEST(ArrayMetadataErrors, Codecs) {
  EXPECT_INVALID(without("codecs"), "\"codecs\"", "missing");
  EXPECT_INVALID(with("codecs", json::array()), "\"codecs\"", "non-empty");
  EXPECT_INVALID(with("codecs", json::parse(R"({"name": "bytes"})")), "\"codecs\"", "list");
  EXPECT_INVALID(with("codecs", json::parse(R"([{"configuration": {}}])")), "\"codecs\"", "name");
  EXPECT_INVALID(with("codecs", json::parse(R"([{"name": "gzip", "configuration": 5}])")),
                 "\"codecs\"", "configuration");
  // Codec names are the codec layer's business: an unknown one parses here.
  EXPECT_EQ(parse(with("codecs", json::parse(R"(["bytes", {"name": "nonesuch"}])"))).codecs[1].name,
            "nonesuch");
}

TEST(ArrayMetadataErrors, OptionalFields) {
  EXPECT_INVALID(with("attributes", json::array()), "\"attributes\"", "object");
  EXPECT_INVALID(with("dimension_names", {"x"}), "\"dimension_names\"", "2 strings or nulls");
  EXPECT_INVALID(with("dimension_names", {"x", 1}), "\"dimension_names\"");
  EXPECT_INVALID(with("dimension_names", "xy"), "\"dimension_names\"");
  EXPECT_INVALID(with("storage_transformers", json::object()), "\"storage_transformers\"", "list");
  EXPECT_UNSUPPORTED(
      with("storage_transformers", json::parse(R"([{"name": "chunk-manifest-json"}])")),
      "\"storage_transformers\"", "storage transformers are not supported");
}

TEST(ArrayMetadataErrors, UnknownFields) {
  EXPECT_UNSUPPORTED(with("foo", 1), "\"foo\"");
  EXPECT_UNSUPPORTED(with("foo", json::object()), "\"foo\"", "must_understand");
  EXPECT_UNSUPPORTED(with("foo", json::parse(R"({"must_understand": true})")), "\"foo\"");
  EXPECT_UNSUPPORTED(with("foo", json::parse(R"({"must_understand": "false"})")), "\"foo\"");
  EXPECT_UNSUPPORTED(with("consolidated_metadata", nullptr), "\"consolidated_metadata\"");
}

TEST(ArrayMetadataErrors, ChunkGridShapeNeedsConsistentMetadata) {
  ArrayMetadata m;
  m.shape = {10, 10};
  m.chunk_shape = {5};
  EXPECT_ERROR_WITH(InvalidArgumentError, m.chunk_grid_shape(), "rank");
  m.chunk_shape = {5, 0};
  EXPECT_ERROR_WITH(InvalidArgumentError, m.chunk_grid_shape(), "non-positive");
  m.shape = {int64_t{1} << 40, int64_t{1} << 40};
  m.chunk_shape = {1, 1};
  EXPECT_ERROR_WITH(InvalidArgumentError, m.chunk_count(), "chunk count");
}

}  // namespace
}  // namespace cuzarr
