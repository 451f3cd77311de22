// MirroredArray with a host mirror, so that the range tracking, sync, pull and flush run on
// machines without a GPU.
#include "cuzarr/api/mirrored_array.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "counting_store.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using Ranges = std::vector<ByteInterval>;
const DataType kInt32(DataTypeKind::int32);
const int32_t kFill = 7;

MirroredArrayOptions host_mirror(uint64_t merge_threshold = 0) {
  MirroredArrayOptions o;
  o.mirror_kind = MemoryKind::host;
  o.merge_threshold = merge_threshold;
  return o;
}

NDBuffer iota_int32(Shape shape, int32_t first = 0) {
  NDBuffer b = NDBuffer::allocate(kInt32, std::move(shape));
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = b.copy_to(MemoryKind::host);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

// A 10 x 10 int32 array (rows of 40 bytes) holding 0..99, synced, nothing pending.
MirroredArray synced_10x10(uint64_t merge_threshold = 0) {
  auto a = MirroredArray::copy_of(iota_int32({10, 10}), host_mirror(merge_threshold));
  a.sync();
  return a;
}

TEST(MirroredArray, CopyOfMarksEverythingAndSyncUploadsItOnce) {
  auto a = MirroredArray::copy_of(iota_int32({10, 10}), host_mirror());
  EXPECT_EQ(a.pending(), (Ranges{{0, 400}}));
  a.sync();
  EXPECT_TRUE(a.pending().empty());
  EXPECT_EQ(values(a.mirror()), values(iota_int32({10, 10})));
  const auto c = a.counters();
  EXPECT_EQ(c.syncs, 1u);
  EXPECT_EQ(c.ranges_uploaded, 1u);
  EXPECT_EQ(c.bytes_uploaded, 400u);
  a.sync();  // nothing to do
  EXPECT_EQ(a.counters().syncs, 2u);
  EXPECT_EQ(a.counters().bytes_uploaded, 400u);
}

TEST(MirroredArray, ScatteredElementsUploadOneRangeEach) {
  auto a = synced_10x10();
  a.set<int32_t>({0, 0}, -1);
  a.set<int32_t>({0, 5}, -2);
  a.set<int32_t>({3, 3}, -3);
  a.set<int32_t>({9, 9}, -4);
  a.set<int32_t>({3, 3}, -5);  // the same element again
  EXPECT_EQ(a.pending(), (Ranges{{0, 4}, {20, 24}, {132, 136}, {396, 400}}));
  // A write through host() is not tracked, so sync must not upload it.
  a.host().data_as<int32_t>()[50] = 12345;
  a.sync();
  const auto c = a.counters();
  EXPECT_EQ(c.ranges_uploaded, 1u + 4u);
  EXPECT_EQ(c.bytes_uploaded, 400u + 16u);
  auto expected = values(iota_int32({10, 10}));
  expected[0] = -1;
  expected[5] = -2;
  expected[33] = -5;
  expected[99] = -4;
  EXPECT_EQ(values(a.mirror()), expected);  // element 50 still 50 on the mirror
  EXPECT_EQ(a.get<int32_t>({5, 0}), 12345);
  a.mark_dirty({5, Slice{0, 1}});
  EXPECT_EQ(a.pending(), (Ranges{{200, 204}}));
}

TEST(MirroredArray, RowsAreOneRangeAndAdjacentRowsMerge) {
  auto a = synced_10x10();
  a.assign({2}, iota_int32({10}, 1000));
  EXPECT_EQ(a.pending(), (Ranges{{80, 120}}));
  a.fill({3}, std::as_bytes(std::span<const int32_t, 1>(&kFill, 1)));
  EXPECT_EQ(a.pending(), (Ranges{{80, 160}}));
  a.sync();
  EXPECT_EQ(a.counters().ranges_uploaded, 2u);
  EXPECT_EQ(a.counters().bytes_uploaded, 400u + 80u);
  EXPECT_EQ(values(a.mirror().sliced(0, 2, 1, 2)),
            (std::vector<int32_t>{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009,
                                  7,    7,    7,    7,    7,    7,    7,    7,    7,    7}));
}

TEST(MirroredArray, ColumnsGiveOneRangePerRowUnlessTheThresholdMergesThem) {
  {
    auto a = synced_10x10(36);  // the gap between column elements is 36 bytes: not merged
    NDBuffer column = iota_int32({10}, 500);
    a.assign({Slice{}, 4}, column);
    Ranges expected;
    for (uint64_t row = 0; row < 10; ++row) expected.push_back({row * 40 + 16, row * 40 + 20});
    EXPECT_EQ(a.pending(), expected);
    a.sync();
    EXPECT_EQ(a.counters().ranges_uploaded, 1u + 10u);
    EXPECT_EQ(a.counters().bytes_uploaded, 400u + 40u);
    EXPECT_EQ(values(a.mirror().sliced(1, 4, 1, 1)), values(column));
  }
  {
    auto a = synced_10x10(37);  // gaps of 36 < 37: one range from the first to the last element
    a.fill({Slice{}, 4}, std::as_bytes(std::span<const int32_t, 1>(&kFill, 1)));
    EXPECT_EQ(a.pending(), (Ranges{{16, 380}}));
    a.sync();
    EXPECT_EQ(a.counters().ranges_uploaded, 1u + 1u);
    EXPECT_EQ(a.counters().bytes_uploaded, 400u + 364u);
    EXPECT_EQ(values(a.mirror()), values(a.host()));
  }
  {
    // Every other column of two rows: strided in both dimensions.
    auto b = synced_10x10();
    b.set_merge_threshold(4);  // gaps of 4 bytes are not below 4: one range per element
    b.assign({Slice{1, 3}, Slice{0, 10, 2}}, iota_int32({2, 5}));
    EXPECT_EQ(b.pending().size(), 10u);
    EXPECT_EQ(b.pending()[4], (ByteInterval{72, 76}));
    EXPECT_EQ(b.pending()[5], (ByteInterval{80, 84}));
    b.set_merge_threshold(5);  // now every gap (also the 4 bytes between the rows) merges
    EXPECT_EQ(b.pending(), (Ranges{{40, 116}}));
  }
}

TEST(MirroredArray, OverlappingRegionsMergeRowByRow) {
  auto a = synced_10x10();
  a.assign({Slice{0, 3}, Slice{0, 5}}, iota_int32({3, 5}, 100));
  a.assign({Slice{2, 5}, Slice{3, 8}}, iota_int32({3, 5}, 200));
  EXPECT_EQ(a.pending(), (Ranges{{0, 20}, {40, 60}, {80, 112}, {132, 152}, {172, 192}}));
  a.sync();
  EXPECT_EQ(a.counters().ranges_uploaded, 1u + 5u);
  EXPECT_EQ(a.counters().bytes_uploaded, 400u + 20 + 20 + 32 + 20 + 20);
  EXPECT_EQ(values(a.mirror()), values(a.host()));
  EXPECT_EQ(a.get<int32_t>({2, 2}), 112);
  EXPECT_EQ(a.get<int32_t>({2, 3}), 200);
}

TEST(MirroredArray, ViewsShareTheTracking) {
  auto a = synced_10x10();
  MirroredArray v = a.view({Slice{2, 5}, Slice{1, 4}});
  EXPECT_TRUE(v.is_view());
  EXPECT_EQ(v.shape(), (Shape{3, 3}));
  v.set<int32_t>({0, 0}, 77);  // element (2, 1)
  EXPECT_EQ(a.get<int32_t>({2, 1}), 77);
  EXPECT_EQ(a.pending(), (Ranges{{84, 88}}));
  EXPECT_EQ(v.pending(), a.pending());
  v.fill({Slice{1, 3}}, std::as_bytes(std::span<const int32_t, 1>(&kFill, 1)));  // rows 3, 4
  EXPECT_EQ(a.pending(), (Ranges{{84, 88}, {124, 136}, {164, 176}}));
  // A view of a view: row 1 of v reversed is elements (3, 3), (3, 2), (3, 1).
  MirroredArray w = v.view({1, Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_EQ(w.shape(), (Shape{3}));
  w.set<int32_t>({0}, 33);
  EXPECT_EQ(a.get<int32_t>({3, 3}), 33);
  v.sync();  // any handle syncs the whole array
  EXPECT_TRUE(a.pending().empty());
  EXPECT_EQ(a.counters().ranges_uploaded, 1u + 3u);
  EXPECT_EQ(values(a.mirror()), values(a.host()));
  EXPECT_EQ(values(v.mirror()), values(v.host()));
  EXPECT_EQ(values(v.mirror())[0], 77);
}

TEST(MirroredArray, RejectsBadWrites) {
  auto a = synced_10x10();
  EXPECT_THROW(a.set<int32_t>({10, 0}, 1), InvalidArgumentError);
  EXPECT_THROW(a.set<int32_t>({0}, 1), InvalidArgumentError);
  EXPECT_THROW(a.set<int64_t>({0, 0}, 1), InvalidArgumentError);
  EXPECT_THROW(a.assign({1}, iota_int32({9})), InvalidArgumentError);
  EXPECT_THROW(a.assign({1}, NDBuffer::allocate(DataType(DataTypeKind::float32), {10})),
               InvalidArgumentError);
  EXPECT_THROW(a.fill<int16_t>(1), InvalidArgumentError);
  EXPECT_THROW(a.view({Slice{}, 11}), InvalidArgumentError);
  EXPECT_THROW(a.flush(), InvalidArgumentError);  // not bound
  EXPECT_THROW(a.reload(), InvalidArgumentError);
  EXPECT_TRUE(a.pending().empty());
  MirroredArrayOptions device_host;
  device_host.host_kind = MemoryKind::device;
  EXPECT_THROW(MirroredArray(kInt32, {2}, device_host), InvalidArgumentError);
  EXPECT_THROW(MirroredArray(DataType(DataTypeKind::string), {2}, host_mirror()), UnsupportedError);
}

// An 8 x 8 int32 Zarr array in 4 x 4 chunks holding 0..63.
struct BoundFixture {
  std::shared_ptr<test::CountingStore> store = std::make_shared<test::CountingStore>();
  Array array = [this] {
    ArrayCreateOptions o;
    o.shape = {8, 8};
    o.data_type = kInt32;
    o.chunk_shape = {4, 4};
    Array created = Array::create(store, "a", o);
    created.write({}, iota_int32({8, 8}));
    store->reset();
    return created;
  }();

  std::vector<std::string> keys_set() const { return store->keys_set(); }
};

TEST(MirroredArrayFlush, LoadReadsTheRegionAndUploadsIt) {
  BoundFixture f;
  auto a = MirroredArray::load(f.array, {}, host_mirror());
  EXPECT_TRUE(a.is_bound());
  EXPECT_EQ(values(a.host()), values(iota_int32({8, 8})));
  EXPECT_EQ(values(a.mirror()), values(iota_int32({8, 8})));
  EXPECT_TRUE(a.pending().empty());
  EXPECT_TRUE(a.pending_flush().empty());
  EXPECT_TRUE(a.flush().empty());
  EXPECT_TRUE(f.keys_set().empty());
}

TEST(MirroredArrayFlush, WritesExactlyTheTouchedChunks) {
  BoundFixture f;
  auto a = MirroredArray::load(f.array, {}, host_mirror());
  a.set<int32_t>({1, 1}, -1);
  a.sync();
  EXPECT_TRUE(a.pending().empty());
  EXPECT_FALSE(a.pending_flush().empty());  // tracked separately from sync
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 0}}));
  EXPECT_EQ(f.keys_set(), (std::vector<std::string>{"a/c/0/0"}));
  EXPECT_TRUE(a.pending_flush().empty());
  EXPECT_EQ(f.array.read({1, 1}).data_as<int32_t>()[0], -1);

  f.store->reset();
  a.assign({Slice{}, 6}, iota_int32({8}, 100));  // column 6: chunks (0, 1) and (1, 1)
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 1}, {1, 1}}));
  EXPECT_EQ(f.keys_set(), (std::vector<std::string>{"a/c/0/1", "a/c/1/1"}));
  EXPECT_EQ(values(f.array.read({Slice{}, 6})), values(iota_int32({8}, 100)));

  f.store->reset();
  a.fill({5}, std::as_bytes(std::span<const int32_t, 1>(&kFill, 1)));  // row 5: (1, 0), (1, 1)
  a.set<int32_t>({6, 2}, 9);
  EXPECT_EQ(a.flush(), (std::vector<Index>{{1, 0}, {1, 1}}));
  EXPECT_EQ(f.keys_set().size(), 2u);
  EXPECT_EQ(values(f.array.read()), values(a.host()));
  EXPECT_EQ(a.counters().flushes, 3u);
  EXPECT_EQ(a.counters().chunks_written, 5u);
  EXPECT_TRUE(a.flush().empty());
}

TEST(MirroredArrayFlush, MergedRangesCanTouchMoreChunks) {
  BoundFixture f;
  auto a = MirroredArray::load(f.array, {}, host_mirror(64));
  a.set<int32_t>({0, 3}, -1);  // chunk (0, 0)
  a.set<int32_t>({2, 3}, -2);  // chunk (0, 0); the merged range crosses (0, 1) in row 0 and 1
  EXPECT_EQ(a.pending_flush(), (Ranges{{12, 80}}));
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 0}, {0, 1}}));
  EXPECT_EQ(values(f.array.read()), values(a.host()));
}

TEST(MirroredArrayFlush, StridedRegionWritesOnlyItsPartOfEachChunk) {
  BoundFixture f;
  // Rows 2..7, columns 1, 4, 7: shape [6, 3].
  auto a = MirroredArray::load(f.array, {Slice{2, 8}, Slice{1, 8, 3}}, host_mirror());
  EXPECT_EQ(a.shape(), (Shape{6, 3}));
  EXPECT_EQ(a.get<int32_t>({0, 0}), 17);
  a.set<int32_t>({0, 0}, -1);  // array (2, 1): chunk (0, 0)
  a.set<int32_t>({5, 2}, -2);  // array (7, 7): chunk (1, 1)
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 0}, {1, 1}}));
  EXPECT_EQ(f.keys_set(), (std::vector<std::string>{"a/c/0/0", "a/c/1/1"}));
  auto expected = values(iota_int32({8, 8}));
  expected[2 * 8 + 1] = -1;
  expected[7 * 8 + 7] = -2;
  EXPECT_EQ(values(f.array.read()), expected);
  // Column 1 of the region is array column 4: chunks (0, 1) and (1, 1).
  f.store->reset();
  a.assign({Slice{}, 1}, iota_int32({6}, 500));
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 1}, {1, 1}}));
  EXPECT_EQ(values(f.array.read({Slice{2, 8}, 4})), values(iota_int32({6}, 500)));
  EXPECT_EQ(values(f.array.read()), [&] {
    for (int r = 2; r < 8; ++r) expected[r * 8 + 4] = 500 + r - 2;
    return expected;
  }());
}

TEST(MirroredArrayFlush, ReversedRegionWithADroppedDimension) {
  BoundFixture f;
  // Column 3 read bottom-up: region element k is array (7 - k, 3).
  auto a = MirroredArray::load(f.array, {Slice{std::nullopt, std::nullopt, -1}, 3}, host_mirror());
  EXPECT_EQ(a.shape(), (Shape{8}));
  EXPECT_EQ(a.get<int32_t>({0}), 59);
  a.set<int32_t>({0}, -7);  // array (7, 3): chunk (1, 0)
  a.set<int32_t>({1}, -6);  // array (6, 3): chunk (1, 0)
  EXPECT_EQ(a.flush(), (std::vector<Index>{{1, 0}}));
  EXPECT_EQ(f.keys_set(), (std::vector<std::string>{"a/c/1/0"}));
  EXPECT_EQ(values(f.array.read({Slice{4, 8}, 3})), (std::vector<int32_t>{35, 43, -6, -7}));
  a.fill<int32_t>(1);
  EXPECT_EQ(a.flush(), (std::vector<Index>{{0, 0}, {1, 0}}));
  EXPECT_EQ(values(f.array.read({Slice{}, 3})), std::vector<int32_t>(8, 1));
}

TEST(MirroredArrayFlush, PullCopiesTheMirrorBackAndUpdatesTheRanges) {
  BoundFixture f;
  auto a = MirroredArray::load(f.array, {}, host_mirror());  // rows of 32 bytes
  // Work "on the mirror": row 1 and element (7, 7) change there.
  NDBuffer mirror = a.whole_mirror();
  for (int i = 8; i < 16; ++i) mirror.data_as<int32_t>()[i] = -i;
  mirror.data_as<int32_t>()[63] = -63;
  a.set<int32_t>({1, 2}, 999);  // an unsynced host write that the pull of row 1 overwrites
  a.set<int32_t>({5, 5}, 555);
  a.pull({1});
  EXPECT_EQ(a.get<int32_t>({1, 2}), -10);
  EXPECT_EQ(a.get<int32_t>({7, 7}), 63);         // not pulled
  EXPECT_EQ(a.pending(), (Ranges{{180, 184}}));  // (1, 2) needs no upload any more
  EXPECT_EQ(a.pending_flush(), (Ranges{{32, 64}, {180, 184}}));
  a.pull();
  EXPECT_EQ(a.get<int32_t>({7, 7}), -63);
  EXPECT_EQ(a.get<int32_t>({5, 5}), 45);  // the mirror wins
  EXPECT_TRUE(a.pending().empty());
  EXPECT_EQ(a.pending_flush(), (Ranges{{0, 256}}));
  EXPECT_EQ(a.counters().pulls, 2u);
  EXPECT_EQ(a.counters().bytes_pulled, 32u + 256u);
  EXPECT_EQ(a.flush().size(), 4u);
  EXPECT_EQ(values(f.array.read({1})),
            (std::vector<int32_t>{-8, -9, -10, -11, -12, -13, -14, -15}));
}

TEST(MirroredArrayFlush, ReloadDropsLocalChangesAndPulledResultsAreFlushed) {
  BoundFixture f;
  auto a = MirroredArray::load(f.array, {Slice{4, 8}, Slice{0, 4}}, host_mirror());  // chunk (1, 0)
  a.set<int32_t>({0, 0}, -1);
  a.reload();
  EXPECT_EQ(a.get<int32_t>({0, 0}), 32);
  EXPECT_TRUE(a.pending().empty());
  EXPECT_TRUE(a.pending_flush().empty());
  a.whole_mirror().data_as<int32_t>()[5] = -5;  // region (1, 1) = array (5, 1)
  a.pull();
  EXPECT_EQ(a.flush(), (std::vector<Index>{{1, 0}}));
  EXPECT_EQ(f.array.read({5, 1}).data_as<int32_t>()[0], -5);
}

}  // namespace
}  // namespace cuzarr
