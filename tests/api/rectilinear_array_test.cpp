// Arrays on the rectilinear chunk grid: chunks stored by hand (raw little-endian bytes) read
// back through every kind of selection, and written through the pipeline.
#include <gtest/gtest.h>

#include <cstring>

#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

// Shape (5, 7) int32; rows split [2, 3], columns [3, 3, 1]. Element (i, j) holds 100*i + j.
constexpr const char* kMetadata = R"({
  "zarr_format": 3, "node_type": "array", "shape": [5, 7], "data_type": "int32",
  "chunk_grid": {"name": "rectilinear",
                 "configuration": {"kind": "inline", "chunk_shapes": [[2, 3], [[3, 2], 1]]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": -1,
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]})";

const std::vector<int64_t> kRowStarts{0, 2, 5}, kColumnStarts{0, 3, 6, 7};

std::shared_ptr<MemoryStore> make_store(bool skip_chunk_1_1 = false) {
  auto store = std::make_shared<MemoryStore>();
  store->set("zarr.json", std::string(kMetadata));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      if (skip_chunk_1_1 && r == 1 && c == 1) continue;
      std::string bytes;
      for (int64_t i = kRowStarts[r]; i < kRowStarts[r + 1]; ++i) {
        for (int64_t j = kColumnStarts[c]; j < kColumnStarts[c + 1]; ++j) {
          const int32_t v = static_cast<int32_t>(100 * i + j);
          char le[4];
          std::memcpy(le, &v, 4);  // the test machine is little-endian, as the bytes codec says
          bytes.append(le, 4);
        }
      }
      store->set("c/" + std::to_string(r) + "/" + std::to_string(c), bytes);
    }
  }
  return store;
}

int32_t expected(int64_t i, int64_t j) { return static_cast<int32_t>(100 * i + j); }

TEST(RectilinearArray, ReadsWholeAndPartialSelections) {
  Array array = Array::open(make_store());
  NDBuffer all = array.read();
  ASSERT_EQ(all.shape(), (Shape{5, 7}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(all.data_as<int32_t>()[i * 7 + j], expected(i, j));

  // Stepped, reversed and integer selections cross the uneven chunk boundaries.
  NDBuffer part = array.read({Slice{4, 0, -2}, Slice{1, 7, 2}});
  ASSERT_EQ(part.shape(), (Shape{2, 3}));
  const int64_t rows[] = {4, 2}, columns[] = {1, 3, 5};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_EQ(part.data_as<int32_t>()[a * 3 + b], expected(rows[a], columns[b]));
  NDBuffer column = array.read({Slice{}, int64_t{6}});
  ASSERT_EQ(column.shape(), (Shape{5}));
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(column.data_as<int32_t>()[i], expected(i, 6));
}

TEST(RectilinearArray, MissingChunksReadAsFill) {
  Array array = Array::open(make_store(/*skip_chunk_1_1=*/true));
  NDBuffer all = array.read();
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      const bool missing = i >= 2 && j >= 3 && j < 6;
      EXPECT_EQ(all.data_as<int32_t>()[i * 7 + j], missing ? -1 : expected(i, j));
    }
  }
  EXPECT_EQ(array.storage_info().chunks_total, 6);
  EXPECT_EQ(array.storage_info().chunks_stored, 5);
}

TEST(RectilinearArray, WritesChunksOfEachShapeAndVerifies) {
  auto store = make_store(/*skip_chunk_1_1=*/true);
  Array array = Array::open(store);
  NDBuffer patch = NDBuffer::allocate(DataType(DataTypeKind::int32), {2, 3});
  for (int k = 0; k < 6; ++k) patch.data_as<int32_t>()[k] = 7000 + k;
  array.write({Slice{1, 3}, Slice{2, 5}}, patch);  // touches four chunks of three shapes
  // The chunk that was missing is now stored with its own shape (3 x 3 int32 = 36 bytes).
  ASSERT_TRUE(store->get("c/1/1"));
  EXPECT_EQ(store->get("c/1/1")->size(), 36u);
  EXPECT_EQ(store->get("c/0/0")->size(), 24u);
  NDBuffer all = array.read();
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      int32_t want = (i >= 2 && j >= 3 && j < 6) ? -1 : expected(i, j);
      if (i >= 1 && i < 3 && j >= 2 && j < 5)
        want = 7000 + static_cast<int32_t>((i - 1) * 3 + (j - 2));
      EXPECT_EQ(all.data_as<int32_t>()[i * 7 + j], want) << i << "," << j;
    }
  }
  EXPECT_TRUE(array.verify().empty());
  store->set("c/1/2", std::string("short"));
  ASSERT_EQ(array.verify().size(), 1u);
  EXPECT_EQ(array.verify()[0].key, "c/1/2");
}

TEST(RectilinearArray, ResizeAndShardingAreRefusedClearly) {
  Array array = Array::open(make_store());
  EXPECT_THROW(array.resize({10, 7}), UnsupportedError);
  auto store = std::make_shared<MemoryStore>();
  std::string doc = kMetadata;
  doc.replace(doc.find(R"([{"name": "bytes")"), std::string::npos,
              R"([{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1],
                 "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                 "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]})");
  store->set("zarr.json", doc);
  EXPECT_THROW(Array::open(store).read(), UnsupportedError);
}

}  // namespace
}  // namespace cuzarr
