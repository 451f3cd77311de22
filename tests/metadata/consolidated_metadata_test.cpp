#include "cuzarr/metadata/consolidated_metadata.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

// What zarr-python 3.1 writes into the root zarr.json (arrays "a" and "s/b", group "s").
const char* kV3Consolidated = R"({
  "kind": "inline", "must_understand": false,
  "metadata": {
    "a": {"shape": [4], "data_type": "int32",
          "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
          "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
          "fill_value": 0,
          "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                     {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
          "attributes": {"x": "y"}, "zarr_format": 3, "node_type": "array",
          "storage_transformers": []},
    "s": {"attributes": {"g": 2}, "zarr_format": 3, "node_type": "group",
          "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {}}},
    "s/b": {"shape": [2], "data_type": "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0.0,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": {}, "zarr_format": 3, "node_type": "array"}
  }})";

// What zarr-python 3.1 writes as .zmetadata for the same hierarchy in Zarr v2.
const char* kV2Consolidated = R"({"metadata": {
  ".zgroup": {"zarr_format": 2}, ".zattrs": {"k": 1},
  "a/.zattrs": {"x": "y"},
  "a/.zarray": {"shape": [4], "chunks": [4], "dtype": "<i4", "fill_value": 0, "order": "C",
                "filters": null, "dimension_separator": ".",
                "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1,
                               "blocksize": 0}, "zarr_format": 2},
  "s/.zattrs": {"g": 2},
  "s/.zgroup": {"zarr_format": 2,
                "consolidated_metadata": {"metadata": {}, "must_understand": false,
                                          "kind": "inline"}},
  "s/b/.zattrs": {},
  "s/b/.zarray": {"shape": [2], "chunks": [2], "dtype": "<f8", "fill_value": 0.0, "order": "C",
                  "filters": null, "dimension_separator": ".", "compressor": null,
                  "zarr_format": 2}},
  "zarr_consolidated_format": 1})";

void expect_zarr_python_hierarchy(const ConsolidatedMetadata& c, int zarr_format) {
  ASSERT_EQ(c.nodes.size(), 3u);
  const auto* a = std::get_if<ArrayMetadata>(c.find("a"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->zarr_format, zarr_format);
  EXPECT_EQ(a->shape, Shape{4});
  EXPECT_EQ(a->data_type.kind(), DataTypeKind::int32);
  EXPECT_EQ(a->attributes, json({{"x", "y"}}));
  const auto* s = std::get_if<GroupMetadata>(c.find("s"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->attributes, json({{"g", 2}}));
  const auto* b = std::get_if<ArrayMetadata>(c.find("s/b"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->data_type.kind(), DataTypeKind::float64);
  EXPECT_EQ(c.find("b"), nullptr);
  EXPECT_EQ(c.children(""), (std::vector<std::string>{"a", "s"}));
  EXPECT_EQ(c.children("s"), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(c.children("a").empty());
}

TEST(ConsolidatedMetadata, ParsesZarrPythonV3) {
  expect_zarr_python_hierarchy(
      ConsolidatedMetadata::from_v3_json(json::parse(kV3Consolidated), "zarr.json"), 3);
}

TEST(ConsolidatedMetadata, ParsesZarrPythonV2) {
  expect_zarr_python_hierarchy(
      ConsolidatedMetadata::from_v2_json(json::parse(kV2Consolidated), ".zmetadata"), 2);
}

TEST(ConsolidatedMetadata, V3RoundTrips) {
  const auto c = ConsolidatedMetadata::from_v3_json(json::parse(kV3Consolidated), "zarr.json");
  const json j = c.to_v3_json();
  EXPECT_EQ(j["kind"], "inline");
  EXPECT_EQ(j["must_understand"], false);
  EXPECT_EQ(j["metadata"].size(), 3u);
  EXPECT_EQ(j["metadata"]["s/b"]["node_type"], "array");
  EXPECT_EQ(j["metadata"]["a"]["attributes"]["x"], "y");
  expect_zarr_python_hierarchy(ConsolidatedMetadata::from_v3_json(j, "zarr.json"), 3);
}

TEST(ConsolidatedMetadata, V2RoundTrips) {
  const auto c = ConsolidatedMetadata::from_v2_json(json::parse(kV2Consolidated), ".zmetadata");
  GroupMetadata root;
  root.zarr_format = 2;
  root.attributes = {{"k", 1}};
  const auto j = c.to_v2_json(root);
  EXPECT_EQ(j["zarr_consolidated_format"], 1);
  const auto& m = j["metadata"];
  EXPECT_EQ(m[".zgroup"], nlohmann::ordered_json({{"zarr_format", 2}}));
  EXPECT_EQ(m[".zattrs"]["k"], 1);
  EXPECT_EQ(m["a/.zarray"]["dtype"], "<i4");
  EXPECT_EQ(m["a/.zarray"]["compressor"]["cname"], "lz4");
  EXPECT_EQ(m["s/.zattrs"]["g"], 2);
  EXPECT_TRUE(m.contains("s/.zgroup"));
  EXPECT_EQ(m["s/b/.zarray"]["compressor"], nullptr);
  expect_zarr_python_hierarchy(
      ConsolidatedMetadata::from_v2_json(json::parse(j.dump()), ".zmetadata"), 2);
}

TEST(ConsolidatedMetadata, NestedV3FormIsFlattened) {
  const json j = json::parse(R"({"kind": "inline", "metadata": {
      "g": {"zarr_format": 3, "node_type": "group",
            "consolidated_metadata": {"kind": "inline", "metadata": {
              "h": {"zarr_format": 3, "node_type": "group", "attributes": {"deep": true}}}}}}})");
  const auto c = ConsolidatedMetadata::from_v3_json(j, "zarr.json");
  ASSERT_NE(c.find("g/h"), nullptr);
  EXPECT_EQ(std::get<GroupMetadata>(*c.find("g/h")).attributes["deep"], true);
}

TEST(ConsolidatedMetadata, FormatsAreNotMixed) {
  const auto v2 = ConsolidatedMetadata::from_v2_json(json::parse(kV2Consolidated), ".zmetadata");
  EXPECT_ERROR_WITH(UnsupportedError, v2.to_v3_json(), "\"a\"", "v2");
  const auto v3 = ConsolidatedMetadata::from_v3_json(json::parse(kV3Consolidated), "zarr.json");
  EXPECT_ERROR_WITH(UnsupportedError, v3.to_v2_json(GroupMetadata{}), "\"a\"", "v3");
}

json with_v3_entry(const std::string& key, const json& value) {
  json j = json::parse(kV3Consolidated);
  j["metadata"][key] = value;
  return j;
}

TEST(ConsolidatedMetadata, V3ErrorsNameTheFileAndEntry) {
  const std::string file = "data/zarr.json";
  auto parse = [&](const json& j) { return ConsolidatedMetadata::from_v3_json(j, file); };
  EXPECT_ERROR_WITH(UnsupportedError, parse(json::parse(R"({"kind": "remote", "metadata": {}})")),
                    file, "\"kind\"", "inline");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(json::parse(R"({"kind": "inline"})")), file,
                    "\"metadata\"");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      parse(json::parse(R"({"kind": "inline", "metadata": [], "must_understand": 1})")), file,
      "\"must_understand\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(json::parse("[]")), file);
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v3_entry("c", 5)), file, "\"c\"");
  json bad_array = json::parse(kV3Consolidated)["metadata"]["a"];
  bad_array["shape"] = "four";
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v3_entry("c", bad_array)), file, "\"c\"",
                    "\"shape\"");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse(with_v3_entry("d", {{"zarr_format", 3}, {"node_type", "tree"}})), file,
                    "\"d\"", "\"node_type\"");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse(with_v3_entry("../up", {{"zarr_format", 3}, {"node_type", "group"}})),
                    file, "\"../up\"");
}

json with_v2_entry(const std::string& key, const json& value) {
  json j = json::parse(kV2Consolidated);
  j["metadata"][key] = value;
  return j;
}

TEST(ConsolidatedMetadata, V2ErrorsNameTheFileAndKey) {
  const std::string file = "data/.zmetadata";
  auto parse = [&](const json& j) { return ConsolidatedMetadata::from_v2_json(j, file); };
  json wrong_format = json::parse(kV2Consolidated);
  wrong_format["zarr_consolidated_format"] = 2;
  EXPECT_ERROR_WITH(UnsupportedError, parse(wrong_format), file, "\"zarr_consolidated_format\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(json::parse(R"({"zarr_consolidated_format": 1})")),
                    file, "\"metadata\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v2_entry("a/.zfoo", json::object())), file,
                    "\"a/.zfoo\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v2_entry("a/.zgroup", {{"zarr_format", 2}})),
                    file, "\"a\"", ".zarray", ".zgroup");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v2_entry("lost/.zattrs", json::object())),
                    file, "\"lost/.zattrs\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(with_v2_entry("a/.zattrs", 3)), file,
                    "\"a/.zattrs\"");
  json bad_array = json::parse(kV2Consolidated)["metadata"]["a/.zarray"];
  bad_array["dtype"] = "<q9";
  EXPECT_ERROR_WITH(Error, parse(with_v2_entry("a/.zarray", bad_array)), file, "a/.zarray",
                    "\"dtype\"");
}

}  // namespace
}  // namespace cuzarr
