#include "cuzarr/api/copy.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

NDBuffer iota_uint16(const Shape& shape) {
  NDBuffer b = NDBuffer::allocate(DataType(DataTypeKind::uint16), shape);
  std::iota(b.data_as<uint16_t>(), b.data_as<uint16_t>() + b.size(), uint16_t{1});
  return b;
}

std::vector<uint16_t> values(const NDBuffer& b) {
  return {b.data_as<uint16_t>(), b.data_as<uint16_t>() + b.size()};
}

ArrayCreateOptions options(Shape shape, Shape chunks) {
  ArrayCreateOptions o;
  o.shape = std::move(shape);
  o.data_type = DataType(DataTypeKind::uint16);
  o.chunk_shape = std::move(chunks);
  return o;
}

// A source hierarchy: root group with attributes, an array, and a nested group with an array
// that has missing chunks.
std::shared_ptr<Store> make_source() {
  auto store = std::make_shared<MemoryStore>();
  Group root = Group::create(store, "", {{"title", "source"}});
  auto dense = options({30, 20}, {8, 8});
  dense.attributes = {{"units", "K"}};
  dense.dimension_names = std::vector<std::optional<std::string>>{"y", "x"};
  root.create_array("dense", dense).write({}, iota_uint16({30, 20}));
  Group nested = root.create_group("nested", {{"level", 1}});
  Array sparse = nested.create_array("sparse", options({40}, {10}));
  NDBuffer part = iota_uint16({5});
  sparse.write({Slice{12, 17}}, part);  // touches chunk 1 only
  return store;
}

TEST(Copy, CopiesAHierarchyWithAttributesAndData) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  const CopyProgress result = copy_node(source, "", destination, "");
  EXPECT_EQ(result.arrays, 2);
  EXPECT_EQ(result.groups, 2);
  EXPECT_EQ(result.chunks_total, 4 * 3 + 4);
  EXPECT_EQ(result.chunks_done, result.chunks_total);
  EXPECT_EQ(result.chunks_written, 12 + 1);
  EXPECT_FALSE(result.cancelled);
  EXPECT_GT(result.bytes_in, 0u);
  EXPECT_GT(result.bytes_out, 0u);

  EXPECT_EQ(Group::open(destination).attributes(), (nlohmann::json{{"title", "source"}}));
  EXPECT_EQ(Group::open(destination, "nested").attributes(), (nlohmann::json{{"level", 1}}));
  Array dense = Array::open(destination, "dense");
  EXPECT_EQ(dense.attributes(), (nlohmann::json{{"units", "K"}}));
  EXPECT_EQ(dense.metadata().dimension_names,
            Array::open(source, "dense").metadata().dimension_names);
  EXPECT_EQ(values(dense.read()), values(iota_uint16({30, 20})));
  EXPECT_EQ(values(Array::open(destination, "nested/sparse").read()),
            values(Array::open(source, "nested/sparse").read()));
}

TEST(Copy, RechunksShardsAndRecompresses) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  CopyOptions o;
  o.chunk_shape = Shape{5, 5};
  o.shard_shape = Shape{10, 20};
  o.codecs_for = [](const DataType&) {
    return std::vector<CodecSpec>{CodecSpec{"bytes", {{"endian", "big"}}},
                                  CodecSpec{"gzip", {{"level", 1}}}};
  };
  copy_node(source, "dense", destination, "copy", o);
  Array copy = Array::open(destination, "copy");
  EXPECT_EQ(copy.chunk_shape(), (Shape{10, 20}));
  ASSERT_EQ(copy.metadata().codecs.size(), 1u);
  const auto& sharding = copy.metadata().codecs[0];
  EXPECT_EQ(sharding.name, "sharding_indexed");
  EXPECT_EQ(sharding.configuration["chunk_shape"], (nlohmann::json{5, 5}));
  EXPECT_EQ(sharding.configuration["codecs"][1]["name"], "gzip");
  EXPECT_EQ(values(copy.read()), values(iota_uint16({30, 20})));

  // A sharded source stays sharded; asking for no shards unshards it with the inner chunks.
  auto again = std::make_shared<MemoryStore>();
  copy_node(destination, "copy", again, "kept");
  EXPECT_EQ(Array::open(again, "kept").metadata().codecs[0].name, "sharding_indexed");
  CopyOptions flat;
  flat.no_shards = true;
  copy_node(destination, "copy", again, "flat", flat);
  Array unsharded = Array::open(again, "flat");
  EXPECT_EQ(unsharded.chunk_shape(), (Shape{5, 5}));
  EXPECT_EQ(unsharded.metadata().codecs[1].name, "gzip");
  EXPECT_EQ(values(unsharded.read()), values(iota_uint16({30, 20})));
}

TEST(Copy, SmallStepsCopyTheSameData) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  CopyOptions o;
  o.step_bytes = 1;  // one destination chunk per step
  int reports = 0;
  copy_node(source, "dense", destination, "", o, [&](const CopyProgress&) { ++reports; });
  EXPECT_GE(reports, 12);
  EXPECT_EQ(values(Array::open(destination).read()), values(iota_uint16({30, 20})));
}

TEST(Copy, BadOptionsFailBeforeAnythingIsWritten) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  CopyOptions o;
  o.chunk_shape = Shape{4};  // wrong rank for "dense"
  try {
    copy_node(source, "", destination, "", o);
    FAIL() << "accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("\"dense\""), std::string::npos) << e.what();
  }
  EXPECT_TRUE(destination->list("").empty());

  CopyOptions sharded;
  sharded.shard_shape = Shape{10, 10};
  sharded.no_shards = true;
  EXPECT_THROW(copy_node(source, "dense", destination, "", sharded), InvalidArgumentError);
  EXPECT_THROW(copy_node(source, "missing", destination, ""), NotFoundError);
}

TEST(Copy, ExistingDestinationIsKeptUnlessOverwriting) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  Array existing = Array::create(destination, "dense", options({3}, {3}));
  existing.write({}, iota_uint16({3}));
  EXPECT_THROW(copy_node(source, "dense", destination, "dense"), InvalidArgumentError);
  EXPECT_EQ(values(Array::open(destination, "dense").read()), values(iota_uint16({3})));
  CopyOptions o;
  o.overwrite = true;
  copy_node(source, "dense", destination, "dense", o);
  EXPECT_EQ(Array::open(destination, "dense").shape(), (Shape{30, 20}));
}

TEST(Copy, CancellingStopsBetweenStepsAndLeavesCompleteChunks) {
  auto source = make_source();
  auto destination = std::make_shared<MemoryStore>();
  std::atomic<bool> cancel{false};
  CopyOptions o;
  o.step_bytes = 1;
  o.cancel = &cancel;
  const CopyProgress result =
      copy_node(source, "dense", destination, "", o, [&](const CopyProgress& p) {
        if (p.chunks_done >= 3) cancel = true;
      });
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.chunks_done, 3);
  Array partial = Array::open(destination);
  EXPECT_EQ(partial.storage_info().chunks_stored, 3);
  EXPECT_TRUE(partial.verify().empty());
  // The copied chunks hold the source's values.
  NDBuffer copied = partial.read({Slice{0, 8}, Slice{0, 20}});
  NDBuffer expected = Array::open(source, "dense").read({Slice{0, 8}, Slice{0, 20}});
  EXPECT_EQ(values(copied), values(expected));
}

}  // namespace
}  // namespace cuzarr
