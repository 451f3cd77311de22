#include "cuzarr/api/consolidated.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>

#include "cuzarr/api/group.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/consolidated_metadata.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

/// A store that forwards to a MemoryStore, counts metadata reads, and refuses to list while
/// listing is forbidden.
class WatchedStore final : public Store {
 public:
  std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                            MemoryKind kind = MemoryKind::host) const override {
    if (is_metadata_key(key)) ++metadata_reads;
    return inner_.get(key, range, kind);
  }
  std::optional<uint64_t> size(std::string_view key) const override {
    if (is_metadata_key(key)) ++metadata_reads;
    return inner_.size(key);
  }
  void set(std::string_view key, std::span<const std::byte> value) override {
    inner_.set(key, value);
  }
  using Store::set;
  void erase(std::string_view key) override { inner_.erase(key); }
  std::vector<std::string> list(std::string_view prefix = "") const override {
    if (forbid_listing) throw std::logic_error("list(\"" + std::string(prefix) + "\") called");
    return inner_.list(prefix);
  }
  DirectoryListing list_dir(std::string_view prefix) const override {
    if (forbid_listing) throw std::logic_error("list_dir(\"" + std::string(prefix) + "\") called");
    return inner_.list_dir(prefix);
  }
  std::string description() const override { return "watched store"; }

  bool forbid_listing = false;
  mutable std::atomic<int> metadata_reads{0};

 private:
  static bool is_metadata_key(std::string_view key) {
    const auto slash = key.rfind('/');
    const auto name = slash == std::string_view::npos ? key : key.substr(slash + 1);
    return name == "zarr.json" || name == ".zarray" || name == ".zgroup" || name == ".zattrs" ||
           name == ".zmetadata";
  }
  MemoryStore inner_;
};

ArrayCreateOptions int32_options(int zarr_format, Shape shape) {
  ArrayCreateOptions o;
  o.zarr_format = zarr_format;
  o.shape = shape;
  o.data_type = DataType(DataTypeKind::int32);
  o.chunk_shape = {2};
  return o;
}

NDBuffer iota_int32(Shape shape, int32_t first) {
  NDBuffer b = NDBuffer::allocate(DataType(DataTypeKind::int32), shape);
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

std::vector<int32_t> values(const NDBuffer& b) {
  return {b.data_as<int32_t>(), b.data_as<int32_t>() + b.size()};
}

/// root {title} / a (array, attrs), s (group, attrs) / s/b (array), s/t (empty group).
void build_hierarchy(const std::shared_ptr<Store>& store, int zarr_format) {
  Group root = Group::create(store, "", {{"title", "root"}}, false, zarr_format);
  auto o = int32_options(zarr_format, {5});
  o.attributes = {{"unit", "m"}};
  root.create_array("a", o).write({}, iota_int32({5}, 10));
  Group s = root.create_group("s", {{"level", 1}});
  s.create_array("b", int32_options(zarr_format, {3})).write({}, iota_int32({3}, 100));
  s.create_group("t");
}

class Consolidated : public ::testing::TestWithParam<int> {};

TEST_P(Consolidated, OpensTheHierarchyWithoutListingOrMetadataReads) {
  const int zarr_format = GetParam();
  auto store = std::make_shared<WatchedStore>();
  build_hierarchy(store, zarr_format);
  EXPECT_EQ(consolidate_metadata(store), 4u);
  EXPECT_EQ(store->exists(".zmetadata"), zarr_format == 2);

  store->forbid_listing = true;
  Group root = Group::open(store);
  EXPECT_TRUE(root.uses_consolidated_metadata());
  EXPECT_EQ(root.attributes()["title"], "root");
  store->metadata_reads = 0;

  const auto members = root.members();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "a");
  EXPECT_EQ(members[0].type, NodeType::array);
  EXPECT_EQ(members[1].name, "s");
  EXPECT_EQ(members[1].type, NodeType::group);
  Array a = root.open_array("a");
  EXPECT_EQ(a.metadata().zarr_format, zarr_format);
  EXPECT_EQ(a.shape(), Shape{5});
  EXPECT_EQ(a.attributes()["unit"], "m");
  Group s = root.open_group("s");
  EXPECT_TRUE(s.uses_consolidated_metadata());
  EXPECT_EQ(s.attributes()["level"], 1);
  const auto s_members = s.members();
  ASSERT_EQ(s_members.size(), 2u);
  EXPECT_EQ(s_members[0].name, "b");
  EXPECT_EQ(s_members[1].name, "t");
  EXPECT_EQ(s_members[1].type, NodeType::group);
  Array b = s.open_array("b");
  EXPECT_EQ(b.path(), "s/b");
  EXPECT_TRUE(s.open_group("t").members().empty());
  EXPECT_EQ(root.open_array("s/b").path(), "s/b");
  // No metadata document was read, nothing was listed.
  EXPECT_EQ(store->metadata_reads, 0);
  // Chunks are still read from the store.
  EXPECT_EQ(values(a.read()), (std::vector<int32_t>{10, 11, 12, 13, 14}));
  EXPECT_EQ(values(b.read()), (std::vector<int32_t>{100, 101, 102}));

  EXPECT_THROW(root.open_array("s"), InvalidArgumentError);
  EXPECT_THROW(root.open_group("a"), InvalidArgumentError);
  EXPECT_THROW(root.open_array("missing"), NotFoundError);
}

TEST_P(Consolidated, IsASnapshotUntilConsolidatedAgain) {
  const int zarr_format = GetParam();
  auto store = std::make_shared<WatchedStore>();
  build_hierarchy(store, zarr_format);
  consolidate_metadata(store);
  // Changes after consolidating: a new array, a removed group, changed attributes.
  Group::open(store, "", false).create_array("late", int32_options(zarr_format, {2}));
  store->erase_prefix("s/t/");
  Array::open(store, "a").set_attributes({{"unit", "km"}});

  Group stale = Group::open(store);
  std::vector<std::string> names;
  for (const auto& m : stale.members()) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "s"}));
  EXPECT_THROW(stale.open_array("late"), NotFoundError);
  EXPECT_EQ(stale.open_array("a").attributes()["unit"], "m");
  EXPECT_EQ(stale.open_group("s").members().size(), 2u);

  // Opening without consolidated metadata sees the store as it is.
  Group fresh = Group::open(store, "", false);
  EXPECT_FALSE(fresh.uses_consolidated_metadata());
  EXPECT_EQ(fresh.members().size(), 3u);
  EXPECT_EQ(fresh.open_array("a").attributes()["unit"], "km");
  EXPECT_EQ(fresh.open_group("s").members().size(), 1u);

  // Consolidating again records the changes.
  EXPECT_EQ(consolidate_metadata(store), 4u);
  Group again = Group::open(store);
  EXPECT_EQ(again.members().size(), 3u);
  EXPECT_EQ(again.open_array("a").attributes()["unit"], "km");
  EXPECT_EQ(again.open_group("s").members().size(), 1u);
}

TEST_P(Consolidated, RewritingTheGroupKeepsIt) {
  const int zarr_format = GetParam();
  auto store = std::make_shared<WatchedStore>();
  build_hierarchy(store, zarr_format);
  consolidate_metadata(store);
  Group root = Group::open(store);
  root.set_attributes({{"title", "renamed"}});
  // A child opened from consolidated metadata does not gain consolidated metadata of its own.
  root.open_group("s").set_attributes({{"level", 2}});
  store->forbid_listing = true;
  Group reopened = Group::open(store);
  EXPECT_TRUE(reopened.uses_consolidated_metadata());
  EXPECT_EQ(reopened.attributes()["title"], "renamed");
  EXPECT_EQ(reopened.members().size(), 2u);
  store->forbid_listing = false;
  Group s = Group::open(store, "s");
  EXPECT_FALSE(s.uses_consolidated_metadata());
  EXPECT_EQ(s.attributes()["level"], 2);
  EXPECT_EQ(s.members().size(), 2u);
}

TEST_P(Consolidated, ConsolidatesASubgroup) {
  const int zarr_format = GetParam();
  auto store = std::make_shared<WatchedStore>();
  build_hierarchy(store, zarr_format);
  EXPECT_EQ(consolidate_metadata(store, "s"), 2u);
  store->forbid_listing = true;
  Group s = Group::open(store, "s");
  EXPECT_TRUE(s.uses_consolidated_metadata());
  EXPECT_EQ(s.members().size(), 2u);
  EXPECT_EQ(s.open_array("b").path(), "s/b");
  EXPECT_FALSE(Group::open(store).uses_consolidated_metadata());
}

INSTANTIATE_TEST_SUITE_P(ZarrFormats, Consolidated, ::testing::Values(3, 2),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

TEST(ConsolidatedV3, RootZarrJsonHoldsTheInlineForm) {
  auto store = std::make_shared<MemoryStore>();
  build_hierarchy(store, 3);
  consolidate_metadata(store);
  const auto bytes = store->get("zarr.json");
  ASSERT_TRUE(bytes);
  const auto root = nlohmann::json::parse(bytes->as_string_view());
  const auto& consolidated = root["consolidated_metadata"];
  EXPECT_EQ(consolidated["kind"], "inline");
  EXPECT_EQ(consolidated["must_understand"], false);
  EXPECT_EQ(consolidated["metadata"]["a"]["node_type"], "array");
  EXPECT_EQ(consolidated["metadata"]["s/b"]["shape"], nlohmann::json::array({3}));
  EXPECT_EQ(consolidated["metadata"]["s"]["consolidated_metadata"]["metadata"],
            nlohmann::json::object());
  EXPECT_FALSE(store->exists(".zmetadata"));
}

TEST(ConsolidatedV3, MalformedConsolidatedMetadataNamesTheFile) {
  auto store = std::make_shared<MemoryStore>();
  store->set("zarr.json",
             R"({"zarr_format": 3, "node_type": "group",
                 "consolidated_metadata": {"kind": "inline", "metadata": {"x": 1}}})");
  try {
    Group::open(store);
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("zarr.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"x\""), std::string::npos) << e.what();
  }
  // It can be ignored.
  EXPECT_FALSE(Group::open(store, "", false).uses_consolidated_metadata());
}

TEST(Consolidate, RefusesArraysAndMissingGroups) {
  auto store = std::make_shared<MemoryStore>();
  EXPECT_THROW(consolidate_metadata(store), NotFoundError);
  Array::create(store, "x", int32_options(3, {2}));
  EXPECT_THROW(consolidate_metadata(store, "x"), InvalidArgumentError);
}

TEST(ArrayOpenWithMetadata, ReadsNoMetadata) {
  auto store = std::make_shared<WatchedStore>();
  Array created = Array::create(store, "x", int32_options(3, {4}));
  created.write({}, iota_int32({4}, 1));
  store->metadata_reads = 0;
  Array a = Array::open_with_metadata(store, "/x/", created.metadata());
  EXPECT_EQ(a.path(), "x");
  EXPECT_EQ(values(a.read()), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(store->metadata_reads, 0);
}

}  // namespace
}  // namespace cuzarr
