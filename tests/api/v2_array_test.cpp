// Zarr v2 arrays and groups through the one pipeline: .zarray / .zgroup / .zattrs documents,
// C and F order, both separators, filters and compressors, missing chunks.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using json = nlohmann::json;

NDBuffer iota_int32(Shape shape, int32_t first = 1) {
  NDBuffer b = NDBuffer::allocate(DataType(DataTypeKind::int32), shape);
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = NDBuffer::allocate(b.dtype(), b.shape());
  dense.assign(b);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

ArrayCreateOptions v2_options(Shape shape, Shape chunks) {
  ArrayCreateOptions o;
  o.zarr_format = 2;
  o.shape = std::move(shape);
  o.data_type = DataType(DataTypeKind::int32);
  o.chunk_shape = std::move(chunks);
  return o;
}

json document(const Store& store, const std::string& key) {
  auto bytes = store.get(key);
  EXPECT_TRUE(bytes) << key;
  return bytes ? json::parse(bytes->as_string_view()) : json();
}

TEST(V2Array, CreateWritesZarrayAndZattrsAndRoundTrips) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = v2_options({7, 5}, {3, 2});
  o.attributes = {{"units", "m"}};
  Array a = Array::create(store, "data", o);
  EXPECT_FALSE(store->exists("data/zarr.json"));
  EXPECT_FALSE(store->exists("zarr.json"));  // the root group is v2 too
  EXPECT_EQ(document(*store, ".zgroup"), (json{{"zarr_format", 2}}));
  EXPECT_EQ(document(*store, "data/.zarray"), json::parse(R"({
    "shape": [7, 5], "chunks": [3, 2], "dtype": "<i4", "fill_value": 0, "order": "C",
    "filters": null, "dimension_separator": ".", "compressor": {"id": "zstd", "level": 0},
    "zarr_format": 2})"));
  EXPECT_EQ(document(*store, "data/.zattrs"), (json{{"units", "m"}}));

  a.write({}, iota_int32({7, 5}));
  EXPECT_TRUE(store->exists("data/2.1"));
  EXPECT_TRUE(store->exists("data/0.0"));
  Array reopened = Array::open(store, "data");
  EXPECT_EQ(reopened.metadata().zarr_format, 2);
  EXPECT_EQ(reopened.attributes(), (json{{"units", "m"}}));
  EXPECT_EQ(values(reopened.read()), values(iota_int32({7, 5})));
}

TEST(V2Array, FortranOrderStoresChunksColumnMajor) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = v2_options({2, 3}, {2, 3});
  o.codecs = std::vector<CodecSpec>{CodecSpec{"transpose", {{"order", {1, 0}}}},
                                    CodecSpec{"bytes", {{"endian", "big"}}}};
  Array a = Array::create(store, "", o);
  const json zarray = document(*store, ".zarray");
  EXPECT_EQ(zarray["order"], "F");
  EXPECT_EQ(zarray["dtype"], ">i4");
  EXPECT_TRUE(zarray["compressor"].is_null());
  a.write({}, iota_int32({2, 3}));  // [[1, 2, 3], [4, 5, 6]]
  auto chunk = store->get("0.0");
  ASSERT_TRUE(chunk);
  ASSERT_EQ(chunk->size(), 24u);
  // Column-major, big-endian: 1 4 2 5 3 6.
  const int expected[] = {1, 4, 2, 5, 3, 6};
  const auto* bytes = reinterpret_cast<const unsigned char*>(chunk->data());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(bytes[4 * i + 3], expected[i]) << i;
    EXPECT_EQ(bytes[4 * i], 0) << i;
  }
  EXPECT_EQ(values(Array::open(store).read()), values(iota_int32({2, 3})));
}

TEST(V2Array, ReadsHandWrittenZarrPythonArrays) {
  // A .zarray as zarr-python writes it (order F, big-endian int16, "/" separator, no compressor)
  // and chunk bytes laid out by hand: the pipeline reads them unchanged.
  auto store = std::make_shared<MemoryStore>();
  store->set(".zarray", R"({"shape": [3, 2], "chunks": [2, 2], "dtype": ">i2", "fill_value": -1,
    "order": "F", "filters": null, "dimension_separator": "/", "compressor": null,
    "zarr_format": 2})");
  // Chunk (0, 0) holds [[1, 2], [3, 4]] column-major: 1 3 2 4.
  const unsigned char chunk[] = {0, 1, 0, 3, 0, 2, 0, 4};
  store->set("0/0", std::span<const std::byte>(reinterpret_cast<const std::byte*>(chunk), 8));
  Array a = Array::open(store);
  EXPECT_TRUE(a.attributes().empty());
  NDBuffer out = a.read();
  std::vector<int16_t> got(out.data_as<int16_t>(), out.data_as<int16_t>() + 6);
  EXPECT_EQ(got, (std::vector<int16_t>{1, 2, 3, 4, -1, -1}));  // chunk (1, 0) is missing
}

TEST(V2Array, SlashSeparatorKeys) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = v2_options({4, 4}, {2, 2});
  o.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2, '/'};
  Array a = Array::create(store, "a", o);
  EXPECT_EQ(document(*store, "a/.zarray")["dimension_separator"], "/");
  a.write({}, iota_int32({4, 4}));
  EXPECT_TRUE(store->exists("a/1/1"));
  EXPECT_FALSE(store->exists("a/1.1"));
  EXPECT_EQ(a.storage_info().chunks_stored, 4);
  EXPECT_EQ(values(Array::open(store, "a").read()), values(iota_int32({4, 4})));
}

TEST(V2Array, FiltersAndCompressor) {
  if (!BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = v2_options({10, 6}, {4, 4});
  o.codecs = std::vector<CodecSpec>{
      CodecSpec{"numcodecs.delta", {{"dtype", "<i4"}}}, CodecSpec{"bytes", {{"endian", "little"}}},
      CodecSpec{"numcodecs.shuffle", {{"elementsize", 4}}},
      CodecSpec{"blosc", {{"cname", "lz4"}, {"shuffle", "noshuffle"}}}};
  Array a = Array::create(store, "x", o);
  const json zarray = document(*store, "x/.zarray");
  EXPECT_EQ(zarray["filters"], json::parse(R"([{"id": "delta", "dtype": "<i4", "astype": "<i4"},
                                                {"id": "shuffle", "elementsize": 4}])"));
  EXPECT_EQ(zarray["compressor"], json::parse(R"({"id": "blosc", "cname": "lz4", "clevel": 5,
                                                   "shuffle": 0, "blocksize": 0})"));
  a.write({}, iota_int32({10, 6}, -20));
  EXPECT_TRUE(a.verify().empty());
  EXPECT_EQ(values(Array::open(store, "x").read()), values(iota_int32({10, 6}, -20)));
}

TEST(V2Array, MissingChunksReadAsTheFillValue) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = v2_options({4, 4}, {2, 2});
  o.fill_value = 7;
  Array a = Array::create(store, "", o);
  EXPECT_EQ(document(*store, ".zarray")["fill_value"], 7);
  a.write({Slice{0, 2, 1}, Slice{0, 2, 1}}, iota_int32({2, 2}));
  EXPECT_EQ(a.storage_info().chunks_stored, 1);
  EXPECT_EQ(values(Array::open(store).read()),
            (std::vector<int32_t>{1, 2, 7, 7, 3, 4, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}));
}

TEST(V2Array, NullFillValueStaysNull) {
  auto store = std::make_shared<MemoryStore>();
  store->set(".zarray", R"({"shape": [2], "chunks": [2], "dtype": "<f4", "fill_value": null,
    "order": "C", "filters": null, "compressor": null, "zarr_format": 2})");
  Array a = Array::open(store);
  a.resize({3});
  const json zarray = document(*store, ".zarray");
  EXPECT_TRUE(zarray["fill_value"].is_null());
  EXPECT_EQ(zarray["shape"], json::array({3}));
  EXPECT_EQ(zarray["dimension_separator"], ".");
}

TEST(V2Array, SetAttributesWritesZattrs) {
  auto store = std::make_shared<MemoryStore>();
  Array a = Array::create(store, "a", v2_options({2}, {2}));
  const std::string zarray = std::string(store->get("a/.zarray")->as_string_view());
  a.set_attributes(json::parse(R"({"k": [1, 2]})"));
  EXPECT_EQ(document(*store, "a/.zattrs"), json::parse(R"({"k": [1, 2]})"));
  EXPECT_EQ(store->get("a/.zarray")->as_string_view(), zarray);
  EXPECT_EQ(Array::open(store, "a").attributes(), json::parse(R"({"k": [1, 2]})"));
}

TEST(V2Array, WhatV2CannotHoldIsRefusedBeforeWriting) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions sharded = v2_options({4}, {2});
  sharded.shard_shape = Shape{4};
  EXPECT_THROW(Array::create(store, "a", sharded), InvalidArgumentError);
  ArrayCreateOptions named = v2_options({4}, {2});
  named.dimension_names = std::vector<std::optional<std::string>>{"x"};
  EXPECT_THROW(Array::create(store, "a", named), InvalidArgumentError);
  ArrayCreateOptions checksummed = v2_options({4}, {2});
  checksummed.codecs = std::vector<CodecSpec>{CodecSpec{"bytes", {{"endian", "little"}}},
                                              CodecSpec{"crc32c", json::object()}};
  EXPECT_THROW(Array::create(store, "a", checksummed), UnsupportedError);
  ArrayCreateOptions bad_format = v2_options({4}, {2});
  bad_format.zarr_format = 4;
  EXPECT_THROW(Array::create(store, "a", bad_format), InvalidArgumentError);
  EXPECT_TRUE(store->list().empty());
}

TEST(V2Group, CreateOpenMembersAndAttributes) {
  auto store = std::make_shared<MemoryStore>();
  Group root = Group::create(store, "", json{{"title", "t"}}, false, 2);
  EXPECT_EQ(root.zarr_format(), 2);
  EXPECT_EQ(document(*store, ".zgroup"), (json{{"zarr_format", 2}}));
  EXPECT_EQ(document(*store, ".zattrs"), (json{{"title", "t"}}));
  Group child = root.create_group("child");
  EXPECT_EQ(child.zarr_format(), 2);
  EXPECT_TRUE(store->exists("child/.zgroup"));
  root.create_array("arr", v2_options({2}, {2}));
  const auto members = root.members();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "arr");
  EXPECT_EQ(members[0].type, NodeType::array);
  EXPECT_EQ(members[1].name, "child");
  EXPECT_EQ(members[1].type, NodeType::group);

  child.set_attributes({{"n", 1}});
  EXPECT_EQ(document(*store, "child/.zattrs"), (json{{"n", 1}}));
  Group reopened = Group::open(store, "child");
  EXPECT_EQ(reopened.zarr_format(), 2);
  EXPECT_EQ(reopened.attributes(), (json{{"n", 1}}));
  EXPECT_THROW(Group::open(store, "arr"), InvalidArgumentError);
  EXPECT_THROW(Array::open(store, "child"), InvalidArgumentError);
}

TEST(V2Group, NestedArraysCreateV2Parents) {
  auto store = std::make_shared<MemoryStore>();
  Array::create(store, "a/b/c", v2_options({2}, {2}));
  EXPECT_TRUE(store->exists(".zgroup"));
  EXPECT_TRUE(store->exists("a/.zgroup"));
  EXPECT_TRUE(store->exists("a/b/.zgroup"));
  EXPECT_EQ(node_type(*store, "a/b"), NodeType::group);
  EXPECT_EQ(node_type(*store, "a/b/c"), NodeType::array);
  EXPECT_THROW(Array::create(store, "a/b/c/d", v2_options({2}, {2})), InvalidArgumentError);
}

TEST(V2Group, ArrayAndGroupDocumentsTogetherAreRefused) {
  auto store = std::make_shared<MemoryStore>();
  store->set("x/.zgroup", R"({"zarr_format": 2})");
  store->set("x/.zarray", R"({"zarr_format": 2})");
  EXPECT_THROW(node_type(*store, "x"), InvalidArgumentError);
}

TEST(V2Group, MalformedZarrayNamesTheKey) {
  auto store = std::make_shared<MemoryStore>();
  store->set("d/a/.zarray", R"({"shape": [4], "chunks": [2, 2], "dtype": "<i4",
    "fill_value": 0, "order": "C", "filters": null, "compressor": null, "zarr_format": 2})");
  try {
    Array::open(store, "d/a");
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("d/a/.zarray"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"chunks\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cuzarr
