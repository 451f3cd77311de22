#include "cuzarr/metadata/rectilinear_chunk_grid.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "expect_error.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

json configuration(json chunk_shapes) {
  return {{"kind", "inline"}, {"chunk_shapes", std::move(chunk_shapes)}};
}

TEST(RectilinearChunkGrid, ExpandsTheSpecExample) {
  // zarr-extensions chunk-grids/rectilinear: the five ways of describing shape (6, 6, 6, 6, 6).
  const auto grid = RectilinearChunkGrid::from_json(
      configuration(json::parse("[[[2, 3]], [[1, 6]], [1, [2, 1], 3], [[1, 3], 3], [6]]")),
      {6, 6, 6, 6, 6}, "a/zarr.json");
  EXPECT_EQ(grid.edges(0), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(grid.edges(1), (std::vector<int64_t>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(grid.edges(2), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(grid.edges(3), (std::vector<int64_t>{1, 1, 1, 3}));
  EXPECT_EQ(grid.edges(4), (std::vector<int64_t>{6}));
  EXPECT_EQ(grid.grid_shape(Shape{6, 6, 6, 6, 6}), (Shape{3, 6, 3, 4, 1}));
  EXPECT_EQ(grid.chunk_origin(2, 2), 3);
  EXPECT_EQ(grid.chunk_index(2, 0), 0);
  EXPECT_EQ(grid.chunk_index(2, 2), 1);
  EXPECT_EQ(grid.chunk_index(2, 5), 2);
  EXPECT_EQ(grid.chunk_shape(Index{0, 5, 2, 3, 0}), (Shape{2, 1, 3, 3, 6}));
  EXPECT_EQ(grid.max_chunk_shape(), (Shape{2, 1, 3, 3, 6}));
  // Written back run-length encoded; reading that gives the same grid.
  EXPECT_EQ(grid.to_json()["chunk_shapes"],
            json::parse("[[[2, 3]], [[1, 6]], [1, 2, 3], [[1, 3], 3], [6]]"));
  EXPECT_EQ(RectilinearChunkGrid::from_json(grid.to_json(), {6, 6, 6, 6, 6}, "x"), grid);
}

TEST(RectilinearChunkGrid, AnIntegerIsARegularDimensionAndEdgesMayPassTheEnd) {
  const auto grid =
      RectilinearChunkGrid::from_json(configuration(json::parse("[4, [5, 5, 5]]")), {10, 12}, "x");
  EXPECT_EQ(grid.edges(0), (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(grid.grid_shape(Shape{10, 12}), (Shape{3, 3}));
  EXPECT_EQ(grid.grid_shape(Shape{10, 10}), (Shape{3, 2}));  // the last chunk starts at 10
}

TEST(RectilinearChunkGrid, BadConfigurationsNameTheFileAndField) {
  const Shape shape{6};
  for (const char* text : {R"({"kind": "inline", "chunk_shapes": [[2, 2]]})",       // sum 4 < 6
                           R"({"kind": "inline", "chunk_shapes": [[0, 6]]})",       // zero edge
                           R"({"kind": "inline", "chunk_shapes": [[[2, 3, 1]]]})",  // bad run
                           R"({"kind": "inline", "chunk_shapes": [[-1, 7]]})",
                           R"({"kind": "inline", "chunk_shapes": [[[1, 1000000000000]]]})",
                           R"({"kind": "inline", "chunk_shapes": [[6], [6]]})",  // rank
                           R"({"kind": "file", "chunk_shapes": [[6]]})",
                           R"({"kind": "inline", "chunk_shapes": [[6]], "extra": 1})",
                           R"({"kind": "inline", "chunk_shapes": [[]]})"}) {
    SCOPED_TRACE(text);
    EXPECT_ERROR_WITH(InvalidArgumentError,
                      RectilinearChunkGrid::from_json(json::parse(text), shape, "g/zarr.json"),
                      "g/zarr.json", "chunk_grid");
  }
}

TEST(RectilinearChunkGrid, ArrayMetadataReadsAndWritesIt) {
  const json doc = json::parse(R"({
    "zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "int16",
    "chunk_grid": {"name": "rectilinear",
                   "configuration": {"kind": "inline", "chunk_shapes": [[2, 3], [[3, 2], 1]]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]})");
  const auto m = ArrayMetadata::from_json(doc, "r/zarr.json");
  ASSERT_TRUE(m.rectilinear_grid);
  EXPECT_EQ(m.chunk_shape, (Shape{3, 3}));
  EXPECT_EQ(m.chunk_grid_shape(), (Shape{2, 3}));
  EXPECT_EQ(m.chunk_count(), 6);
  EXPECT_EQ(m.chunk_shape_at(Index{1, 2}), (Shape{3, 1}));
  EXPECT_EQ(m.chunk_origin(Index{1, 2}), (Index{2, 6}));
  EXPECT_EQ(m.to_json()["chunk_grid"], doc["chunk_grid"]);
}

}  // namespace
}  // namespace cuzarr
