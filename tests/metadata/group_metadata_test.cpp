#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "metadata/expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

const std::string kSource = "root/g/zarr.json";

GroupMetadata parse(const char* text) {
  return GroupMetadata::from_json(parse_json_document(text, kSource), kSource);
}

TEST(GroupMetadata, ParsesZarrPythonDocuments) {
  // zarr-python 3.0 - 3.1.3 wrote "consolidated_metadata": null into every group.
  auto g = parse(
      R"({"attributes": {"title": "t"}, "zarr_format": 3, "consolidated_metadata": null, "node_type": "group"})");
  EXPECT_EQ(g.zarr_format, 3);
  EXPECT_EQ(g.attributes, json::parse(R"({"title": "t"})"));
  g = parse(R"({"zarr_format": 3, "node_type": "group"})");
  EXPECT_EQ(g.attributes, json::object());
  // Consolidated metadata is an extension that need not be understood.
  g = parse(R"({"zarr_format": 3, "node_type": "group", "attributes": {},
                "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {}}})");
  EXPECT_EQ(g.attributes, json::object());
  EXPECT_EQ(g.consolidated_metadata["kind"], "inline");
  // It is kept when the group is written back.
  EXPECT_EQ(g.to_json()["consolidated_metadata"]["must_understand"], false);
}

TEST(GroupMetadata, RoundTrips) {
  GroupMetadata g;
  g.attributes = {{"answer", 42}, {"nested", {{"x", {1, 2}}}}};
  const json j = g.to_json();
  EXPECT_EQ(
      j,
      json::parse(
          R"({"zarr_format": 3, "node_type": "group", "attributes": {"answer": 42, "nested": {"x": [1, 2]}}})"));
  EXPECT_EQ(GroupMetadata::from_json(j, kSource).attributes, g.attributes);
}

TEST(GroupMetadata, Errors) {
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"({"zarr_format": 3, "node_type": "array"})"),
                    kSource, "\"node_type\"", "expected \"group\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"({"zarr_format": 2, "node_type": "group"})"),
                    kSource, "\"zarr_format\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"({"node_type": "group"})"), kSource,
                    "\"zarr_format\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse(R"({"zarr_format": 3})"), kSource, "\"node_type\"");
  EXPECT_ERROR_WITH(InvalidArgumentError,
                    parse(R"({"zarr_format": 3, "node_type": "group", "attributes": 1})"), kSource,
                    "\"attributes\"");
  EXPECT_ERROR_WITH(UnsupportedError,
                    parse(R"({"zarr_format": 3, "node_type": "group", "shape": [1]})"), kSource,
                    "\"shape\"");
  EXPECT_ERROR_WITH(
      InvalidArgumentError,
      parse(R"({"zarr_format": 3, "node_type": "group", "consolidated_metadata": 5})"), kSource,
      "\"consolidated_metadata\"");
  EXPECT_ERROR_WITH(InvalidArgumentError, parse("[]"), kSource);
}

TEST(GroupMetadata, ArrayParserRefusesGroups) {
  const json group = json::parse(R"({"zarr_format": 3, "node_type": "group", "attributes": {}})");
  EXPECT_ERROR_WITH(InvalidArgumentError, ArrayMetadata::from_json(group, kSource), kSource,
                    "\"node_type\"", "expected \"array\"");
}

}  // namespace
}  // namespace cuzarr
