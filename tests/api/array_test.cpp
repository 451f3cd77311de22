#include "cuzarr/api/array.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "counting_store.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

NDBuffer iota_int32(Shape shape, int32_t first = 1) {
  NDBuffer b = NDBuffer::allocate(DataType(DataTypeKind::int32), shape);
  std::iota(b.data_as<int32_t>(), b.data_as<int32_t>() + b.size(), first);
  return b;
}

ArrayCreateOptions options(Shape shape, DataType type, Shape chunks) {
  ArrayCreateOptions o;
  o.shape = std::move(shape);
  o.data_type = type;
  o.chunk_shape = std::move(chunks);
  return o;
}

std::vector<int32_t> values(const NDBuffer& b) {
  NDBuffer dense = NDBuffer::allocate(b.dtype(), b.shape());
  dense.assign(b);
  return {dense.data_as<int32_t>(), dense.data_as<int32_t>() + dense.size()};
}

struct CodecCase {
  const char* name;
  std::optional<std::vector<CodecSpec>> codecs;
  std::optional<Shape> shards;
};

void PrintTo(const CodecCase& c, std::ostream* os) { *os << c.name; }

class ArrayRoundTrip : public ::testing::TestWithParam<CodecCase> {};

// A 2-d array with edge chunks, written whole and read back through many selections, compared
// with the same selection applied to the source data (numpy semantics, computed by NDBuffer views).
TEST_P(ArrayRoundTrip, SelectionsMatchTheSourceData) {
  if (GetParam().codecs && !BloscCodec::available()) {
    for (const auto& spec : *GetParam().codecs)
      if (spec.name == "blosc") GTEST_SKIP() << "blosc support was not built";
  }
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {23, 17};
  o.data_type = DataType(DataTypeKind::int32);
  o.chunk_shape = {4, 6};
  o.codecs = GetParam().codecs;
  o.shard_shape = GetParam().shards;
  o.fill_value = -1;
  Array a = Array::create(store, "data", o);
  NDBuffer source = iota_int32({23, 17});
  a.write({}, source);
  EXPECT_EQ(values(a.read()), values(source));

  std::vector<Selection> selections{
      {Slice{2, 19, 3}, Slice{1, 16, 1}},
      {Slice{std::nullopt, std::nullopt, -2}, Slice{std::nullopt, std::nullopt, -5}},
      {int64_t{7}, Slice{}},
      {Ellipsis{}, int64_t{-1}},
      {Slice{20, 3, -4}, int64_t{3}},
      {Slice{5, 5, std::nullopt}, Slice{}},
  };
  for (const auto& sel : selections) {
    auto norm = normalize_selection(sel, o.shape);
    NDBuffer expected = source;
    // Apply the selection to the source with views (dropped dimensions last to first).
    for (size_t d = 0; d < 2; ++d)
      expected = expected.sliced(d, norm.dims[d].start, norm.dims[d].step, norm.dims[d].count);
    for (size_t d = 2; d-- > 0;)
      if (norm.dims[d].dropped) expected = expected.indexed(d, 0);
    NDBuffer got = a.read(sel);
    ASSERT_EQ(got.shape(), expected.shape());
    EXPECT_EQ(values(got), values(expected));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Codecs, ArrayRoundTrip,
    ::testing::Values(CodecCase{"default_zstd", std::nullopt, std::nullopt},
                      CodecCase{"bytes_big_gzip",
                                std::vector<CodecSpec>{{"bytes", {{"endian", "big"}}},
                                                       {"gzip", {{"level", 1}}}},
                                std::nullopt},
                      CodecCase{"transpose_blosc",
                                std::vector<CodecSpec>{{"transpose", {{"order", {1, 0}}}},
                                                       {"bytes", {{"endian", "little"}}},
                                                       {"blosc",
                                                        {{"cname", "lz4"},
                                                         {"clevel", 5},
                                                         {"shuffle", "shuffle"},
                                                         {"typesize", 4},
                                                         {"blocksize", 0}}}},
                                std::nullopt},
                      CodecCase{"crc32c",
                                std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}},
                                                       {"crc32c", nlohmann::json::object()}},
                                std::nullopt},
                      CodecCase{"sharded", std::nullopt, Shape{8, 12}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Array, MissingChunksReadAsFillValueAndEmptyChunksAreNotStored) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({10, 10}, DataType(DataTypeKind::float64), {5, 5});
  o.fill_value = "NaN";
  Array a = Array::create(store, "", o);
  NDBuffer all = a.read();
  for (int64_t i = 0; i < all.size(); ++i) EXPECT_TRUE(std::isnan(all.data_as<double>()[i]));
  // Write one element: only its chunk is stored.
  NDBuffer one = NDBuffer::allocate(DataType(DataTypeKind::float64), {});
  *one.data_as<double>() = 2.5;
  a.write({int64_t{7}, int64_t{2}}, one);
  EXPECT_EQ(a.storage_info().chunks_stored, 1);
  EXPECT_TRUE(store->exists("c/1/0"));
  NDBuffer back = a.read({int64_t{7}, int64_t{2}});
  EXPECT_EQ(*back.data_as<double>(), 2.5);
  EXPECT_TRUE(std::isnan(a.read({int64_t{7}, int64_t{3}}).data_as<double>()[0]));
  // Writing the fill value back removes the chunk.
  *one.data_as<double>() = std::nan("");
  a.write({int64_t{7}, int64_t{2}}, one);
  EXPECT_EQ(a.storage_info().chunks_stored, 0);
  // Unless empty chunks are asked for.
  a.set_write_empty_chunks(true);
  a.write({int64_t{7}, int64_t{2}}, one);
  EXPECT_EQ(a.storage_info().chunks_stored, 1);
}

TEST(Array, PartialWritesReadModifyWrite) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({9}, DataType(DataTypeKind::int32), {4});
  Array a = Array::create(store, "x", o);
  a.write({}, iota_int32({9}));
  a.write({Slice{1, 8, 3}}, iota_int32({3}, 100));
  EXPECT_EQ(values(a.read()), (std::vector<int32_t>{1, 100, 3, 4, 101, 6, 7, 102, 9}));
}

TEST(Array, ResizeDropsChunksAndDoesNotResurrectOldValues) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({10}, DataType(DataTypeKind::int32), {4});
  Array a = Array::create(store, "r", o);
  a.write({}, iota_int32({10}));
  a.resize({5});
  EXPECT_FALSE(store->exists("r/c/2"));
  EXPECT_EQ(values(a.read()), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  a.resize({10});
  EXPECT_EQ(values(a.read()), (std::vector<int32_t>{1, 2, 3, 4, 5, 0, 0, 0, 0, 0}));
  Array reopened = Array::open(store, "r");
  EXPECT_EQ(reopened.shape(), (Shape{10}));
}

TEST(Array, AttributesPersist) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({3}, DataType(DataTypeKind::uint8), {3});
  o.dimension_names = std::vector<std::optional<std::string>>{"x"};
  Array a = Array::create(store, "a", o);
  a.set_attributes({{"units", "m"}, {"scale", 2}});
  Array b = Array::open(store, "a");
  EXPECT_EQ(b.attributes()["units"], "m");
  ASSERT_TRUE(b.metadata().dimension_names);
  EXPECT_EQ((*b.metadata().dimension_names)[0], "x");
}

TEST(Array, CorruptChunkErrorNamesTheKey) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({8}, DataType(DataTypeKind::int32), {4});
  Array a = Array::create(store, "z", o);
  a.write({}, iota_int32({8}));
  store->set("z/c/1", std::string_view("not zstd at all"));
  try {
    a.read();
    FAIL() << "expected an error";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("z/c/1"), std::string::npos) << e.what();
  }
  auto problems = a.verify();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "z/c/1");
  // The intact chunk still reads.
  EXPECT_EQ(values(a.read({Slice{0, 4}})), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(Array, CorruptShardIndexErrorNamesTheShard) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({16}, DataType(DataTypeKind::int32), {4});
  o.shard_shape = Shape{8};
  Array a = Array::create(store, "s", o);
  a.write({}, iota_int32({16}));
  auto shard = store->get("s/c/1");
  ASSERT_TRUE(shard);
  Buffer damaged = Buffer::copy_of(shard->bytes());
  damaged.data()[damaged.size() - 6] ^= std::byte{0xFF};  // inside the index: crc32c must catch it
  store->set("s/c/1", damaged.bytes());
  try {
    a.read({Slice{8, 9}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::corrupt_data);
    EXPECT_NE(std::string(e.what()).find("s/c/1"), std::string::npos) << e.what();
  }
  // A truncated shard too.
  store->set("s/c/1", shard->slice(0, 5).bytes());
  EXPECT_THROW(a.read(), CorruptDataError);
  EXPECT_EQ(values(a.read({Slice{0, 8}})), (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// A stored shard of 0 bytes (an interrupted writer's) fails verify as it fails a read.
TEST(Array, VerifyReportsAnEmptyShard) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({16}, DataType(DataTypeKind::int32), {4});
  o.shard_shape = Shape{8};
  Array a = Array::create(store, "s", o);
  a.write({}, iota_int32({16}));
  EXPECT_TRUE(a.verify().empty());
  store->set("s/c/0", std::span<const std::byte>());
  EXPECT_THROW(a.read({Slice{0, 8}}), CorruptDataError);
  const auto problems = a.verify();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "s/c/0");
  EXPECT_NE(problems[0].message.find("0 bytes"), std::string::npos) << problems[0].message;
  EXPECT_EQ(values(a.read({Slice{8, 16}})), (std::vector<int32_t>{9, 10, 11, 12, 13, 14, 15, 16}));
}

// A chunk shape given with an extent of 0 or less is refused; one taken from an array shape with
// an empty dimension gets an extent of 1 there.
TEST(Array, ChunkExtentsMustBePositive) {
  auto store = std::make_shared<MemoryStore>();
  for (const Shape& chunks : {Shape{0}, Shape{-5}, Shape{4, 0}}) {
    const Shape shape(chunks.size(), 100);
    try {
      Array::create(store, "a", options(shape, DataType(DataTypeKind::uint8), chunks));
      ADD_FAILURE() << "chunk shape " << shape_to_string(chunks) << " was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("chunk shape"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(store->get("a/zarr.json")) << shape_to_string(chunks);
  }
  Array empty = Array::create(store, "e", options({0, 3}, DataType(DataTypeKind::uint8), {}));
  EXPECT_EQ(empty.metadata().chunk_shape, (Shape{1, 3}));
}

// Reads of a sharded array fetch only the index and the inner chunks needed.
class CountingStore final : public Store {
 public:
  explicit CountingStore(std::shared_ptr<Store> inner) : inner_(std::move(inner)) {}
  std::optional<Buffer> get(std::string_view key, ByteRange range, MemoryKind kind) const override {
    auto b = inner_->get(key, range, kind);
    if (b) bytes_read += b->size();
    return b;
  }
  std::optional<uint64_t> size(std::string_view key) const override { return inner_->size(key); }
  void set(std::string_view key, std::span<const std::byte> value) override {
    inner_->set(key, value);
  }
  void erase(std::string_view key) override { inner_->erase(key); }
  std::vector<std::string> list(std::string_view prefix) const override {
    return inner_->list(prefix);
  }
  std::string description() const override { return "counting store"; }
  mutable uint64_t bytes_read = 0;

 private:
  std::shared_ptr<Store> inner_;
};

TEST(Array, ShardedReadFetchesOnlyTheNeededInnerChunks) {
  auto counting = std::make_shared<CountingStore>(std::make_shared<MemoryStore>());
  ArrayCreateOptions o = options({64, 64}, DataType(DataTypeKind::int32), {8, 8});
  o.shard_shape = Shape{64, 64};
  o.codecs =
      std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}};  // 256 bytes per inner chunk
  Array a = Array::create(counting, "", o);
  a.write({}, iota_int32({64, 64}));
  counting->bytes_read = 0;
  NDBuffer got = a.read({Slice{9, 11}, Slice{17, 18}});
  EXPECT_EQ(values(got), (std::vector<int32_t>{9 * 64 + 18, 10 * 64 + 18}));
  // One inner chunk (256 bytes) plus the index (64 entries * 16 bytes + 4 bytes of crc32c).
  EXPECT_EQ(counting->bytes_read, 256u + 64u * 16u + 4u);
}

TEST(Array, BatchBytesSetsHowManyChunksOneStoreReadFetches) {
  auto counting = std::make_shared<test::CountingStore>();
  // 100 chunks of 200 int32 (800 bytes).
  Array a =
      Array::create(counting, "", options({100, 200}, DataType(DataTypeKind::int32), {1, 200}));
  const NDBuffer data = iota_int32({100, 200});
  a.set_batch_bytes(800);  // one chunk a batch
  a.write({}, data);
  const size_t threads = cpu_threads();
  set_cpu_threads(1);  // a batch holds at least one chunk per thread
  const auto reads_of = [&](uint64_t batch_bytes) {
    a.set_batch_bytes(batch_bytes);
    counting->reset();
    EXPECT_EQ(values(a.read()), values(data)) << "batch_bytes " << batch_bytes;
    return counting->get_many_calls();
  };
  const size_t one_chunk = reads_of(1), default_batches = reads_of(uint64_t{256} << 20);
  set_cpu_threads(threads);
  EXPECT_EQ(one_chunk, 100u);
  EXPECT_LT(default_batches, 20u);
  EXPECT_EQ(a.batch_bytes(), uint64_t{256} << 20);
  try {
    a.set_batch_bytes(0);
    ADD_FAILURE() << "a batch of 0 bytes was accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a.batch_bytes(), uint64_t{256} << 20);
}

TEST(Array, ConcurrentDeviceBatchesAreAtLeastOne) {
  auto store = std::make_shared<MemoryStore>();
  Array a = Array::create(store, "a", options({8}, DataType(DataTypeKind::int32), {4}));
  EXPECT_EQ(a.concurrent_device_batches(), 3u);
  a.set_concurrent_device_batches(1);
  EXPECT_EQ(a.concurrent_device_batches(), 1u);
  try {
    a.set_concurrent_device_batches(0);
    ADD_FAILURE() << "0 batches were accepted";
  } catch (const InvalidArgumentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("concurrent_device_batches"), std::string::npos) << what;
    EXPECT_NE(what.find("\"a\""), std::string::npos) << what;
  }
  EXPECT_EQ(a.concurrent_device_batches(), 1u);
}

TEST(Array, BadMetadataErrorNamesTheFile) {
  auto store = std::make_shared<MemoryStore>();
  store->set("bad/zarr.json", std::string_view("{ not json"));
  try {
    Array::open(store, "bad");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("bad/zarr.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Array::open(store, "missing"), NotFoundError);
  EXPECT_THROW(Array::open(store, "../escape"), InvalidArgumentError);
}

TEST(Array, UnknownCodecIsRefusedBeforeWriting) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({4}, DataType(DataTypeKind::int32), {4});
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}},
                                    {"no_such_codec", nlohmann::json::object()}};
  try {
    Array::create(store, "u", o);
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_codec"), std::string::npos);
  }
  EXPECT_TRUE(store->list().empty());
}

TEST(Array, FileStoreRoundTripAndReopen) {
  auto dir = std::filesystem::temp_directory_path() / ("cuzarr_api_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto store = open_store(dir.string(), true);
    ArrayCreateOptions o = options({5, 6, 7}, DataType(DataTypeKind::int32), {2, 3, 4});
    Array a = Array::create(store, "g/arr", o);
    a.write({}, iota_int32({5, 6, 7}));
  }
  auto store = open_store(dir.string());
  Array a = Array::open(store, "g/arr");
  EXPECT_EQ(values(a.read()), values(iota_int32({5, 6, 7})));
  EXPECT_EQ(node_type(*store, "g"), NodeType::group);
  std::filesystem::remove_all(dir);
}

// With stage times on, a read reports its stages: the result's allocation, the fetch of its
// chunks, their decode on the CPU and their scatter into the result.
TEST(Array, ReadRecordsItsStagesWhenStageTimesAreOn) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o = options({40, 30}, DataType(DataTypeKind::int32), {8, 8});
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}, {"zstd", {{"level", 1}}}};
  Array a = Array::create(store, "", o);
  a.write({}, iota_int32({40, 30}));

  enable_stage_times(true);
  reset_stage_times();
  const NDBuffer part = a.read(parse_selection("3:37, 5:29"));
  const auto stages = stage_times();
  enable_stage_times(false);
  reset_stage_times();

  EXPECT_EQ(values(part), values(iota_int32({40, 30}).sliced(0, 3, 1, 34).sliced(1, 5, 1, 24)));
  std::vector<std::string> names;
  for (const auto& s : stages) {
    names.push_back(s.stage);
    EXPECT_GE(s.seconds, 0.0) << s.stage;
    EXPECT_GE(s.sections, 1u) << s.stage;
  }
  for (const char* expected :
       {"allocate the result", "fetch chunks", "decode on the CPU", "scatter on the CPU"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;

  a.read(parse_selection("3:37, 5:29"));  // stage times off again: nothing recorded
  EXPECT_TRUE(stage_times().empty());
}

}  // namespace
}  // namespace cuzarr
