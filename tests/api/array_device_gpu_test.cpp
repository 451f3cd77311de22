// GPU tests of reads into and writes from device memory: for every codec chain and data type,
// reads of many selections into device memory equal the same reads into host memory; writes from
// device memory store what writes from host memory store. Every test skips with the reason when
// the machine has no CUDA device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/group.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/gds_mode.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "gpu_test.hpp"

namespace cuzarr {
namespace {

class DeviceArray : public ::cuzarr::test::GpuTest {};

// The bytes of any array in C order, through a host copy.
std::vector<std::byte> host_bytes(const NDBuffer& a) {
  NDBuffer dense = a.copy_to(MemoryKind::host);
  return {dense.data(), dense.data() + dense.nbytes()};
}

// Elements of `type` with varied bit patterns (every byte differs, so swaps and misplacements
// show), deterministic.
NDBuffer patterned(DataType type, const Shape& shape, uint32_t seed) {
  NDBuffer a = NDBuffer::allocate(type, shape);
  std::mt19937 random(seed);
  auto* p = reinterpret_cast<uint8_t*>(a.data());
  for (int64_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<uint8_t>(random());
  if (type.kind() == DataTypeKind::boolean) {
    for (int64_t i = 0; i < a.nbytes(); ++i) p[i] &= 1;
  }
  return a;
}

struct ChainCase {
  const char* name;
  std::vector<CodecSpec> codecs;
  std::optional<Shape> shards;
  bool needs_blosc = false;
};

std::vector<ChainCase> chain_cases() {
  const CodecSpec little{"bytes", {{"endian", "little"}}};
  const CodecSpec big{"bytes", {{"endian", "big"}}};
  const CodecSpec transpose{"transpose", {{"order", {1, 0, 2}}}};
  const CodecSpec zstd{"zstd", {{"level", 1}, {"checksum", false}}};
  // numcodecs.delta in the chunk's data type (decoded on the GPU as the last array -> array
  // codec before little-endian "bytes"; on the CPU elsewhere).
  const CodecSpec delta{"numcodecs.delta", nlohmann::json::object()};
  return {
      {"bytes", {little}, {}},
      {"bytes_big_endian", {big}, {}},
      {"transpose_bytes", {transpose, little}, {}},
      {"transpose_big_endian_zstd", {transpose, big, zstd}, {}},
      {"zstd", {little, zstd}, {}},
      {"gzip_crc32c", {little, {"gzip", {{"level", 1}}}, {"crc32c", nlohmann::json::object()}}, {}},
      {"blosc_lz4_shuffle",
       {little,
        {"blosc", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 0}}}},
       {},
       true},
      {"crc32c_on_gpu", {little, {"crc32c", nlohmann::json::object()}}, {}},
      {"blosc_lz4_crc32c_on_gpu",
       {little,
        {"blosc", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 0}}},
        {"crc32c", nlohmann::json::object()}},
       {},
       true},
      {"blosc_blosclz_bitshuffle_on_gpu",
       {little,
        {"blosc",
         {{"cname", "blosclz"}, {"clevel", 9}, {"shuffle", "bitshuffle"}, {"blocksize", 0}}}},
       {},
       true},
      {"blosc_zstd_on_gpu",
       {little,
        {"blosc", {{"cname", "zstd"}, {"clevel", 3}, {"shuffle", "shuffle"}, {"blocksize", 0}}}},
       {},
       true},
      {"numcodecs_lz4_on_gpu", {little, {"numcodecs.lz4", {{"acceleration", 1}}}}, {}},
      {"gzip_on_gpu", {little, {"gzip", {{"level", 6}}}}, {}},
      {"numcodecs_zlib_on_gpu", {little, {"numcodecs.zlib", {{"level", 1}}}}, {}},
      {"numcodecs_shuffle_lz4_on_gpu",
       {little,
        {"numcodecs.shuffle", nlohmann::json::object()},
        {"numcodecs.lz4", {{"acceleration", 1}}}},
       {}},
      {"zstd_crc32c_on_cpu", {little, zstd, {"crc32c", nlohmann::json::object()}}, {}},
      {"sharded_blosc_on_gpu",
       {little,
        {"blosc", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 0}}}},
       Shape{8, 12, 6},
       true},
      {"numcodecs_delta_zstd", {delta, little, zstd}, {}},  // zstd on the CPU, delta on the GPU
      {"numcodecs_delta_gzip_on_gpu", {delta, little, {"gzip", {{"level", 1}}}}, {}},
      {"numcodecs_delta_on_gpu", {delta, little}, {}},
      {"transpose_numcodecs_delta_on_gpu", {transpose, delta, little, zstd}, {}},
      {"numcodecs_delta_transpose_on_cpu", {delta, transpose, little, zstd}, {}},
      {"numcodecs_delta_big_endian_on_cpu", {delta, big, zstd}, {}},
      {"sharded_numcodecs_delta_zstd", {delta, little, zstd}, Shape{8, 12, 6}},
      {"sharded_zstd", {little, zstd}, Shape{8, 12, 6}},
      {"sharded_uncompressed", {little}, Shape{8, 12, 6}},
      {"sharded_transpose_big_endian", {transpose, big}, Shape{8, 12, 6}},
  };
}

const char* kSelections[] = {
    "",                  // everything
    "0:4, 0:6, 0:3",     // exactly one chunk
    "1:7, 2:11, 1:5",    // partial chunks
    "::-1, ::2, 1",      // reversed, stepped, a dropped dimension
    "5, 3:17:5, ::-2",   // dropped first dimension, steps across chunks
    "..., 4",            // ellipsis
    "9:10, 11:12, 6:7",  // one element in the edge chunk
};

// Every selection of kSelections read into device memory equals the same read into host memory.
void expect_device_reads_equal_host_reads(const Array& array) {
  for (const char* text : kSelections) {
    SCOPED_TRACE(text);
    const Selection selection = parse_selection(text);
    const NDBuffer on_host = array.read(selection);
    const NDBuffer on_device = array.read(selection, MemoryKind::device);
    ASSERT_EQ(on_device.kind(), MemoryKind::device);
    ASSERT_EQ(on_device.shape(), on_host.shape());
    EXPECT_EQ(host_bytes(on_device), host_bytes(on_host));
  }
}

class DeviceArrayChains : public DeviceArray, public ::testing::WithParamInterface<ChainCase> {};

TEST_P(DeviceArrayChains, ReadsIntoDeviceMemoryEqualHostReads) {
  const ChainCase& c = GetParam();
  if (c.needs_blosc && !BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  const bool delta = std::string(c.name).find("numcodecs_delta") != std::string::npos;
  const std::vector<DataType> types =
      delta ? std::vector<DataType>{DataType(DataTypeKind::uint8), DataType(DataTypeKind::int16),
                                    DataType(DataTypeKind::int32), DataType(DataTypeKind::float32),
                                    DataType(DataTypeKind::float64)}
            : std::vector<DataType>{
                  DataType(DataTypeKind::uint8),     DataType(DataTypeKind::int16),
                  DataType(DataTypeKind::float32),   DataType(DataTypeKind::float64),
                  DataType(DataTypeKind::complex64), DataType(DataTypeKind::complex128)};
  for (const DataType& type : types) {
    SCOPED_TRACE(type.name());
    auto store = std::make_shared<MemoryStore>();
    ArrayCreateOptions o;
    o.shape = {10, 12, 7};  // edge chunks in every dimension
    o.data_type = type;
    o.chunk_shape = {4, 6, 3};
    o.codecs = c.codecs;
    if (c.shards) o.shard_shape = c.shards;
    auto array = Array::create(store, "a", o);
    const NDBuffer data = patterned(type, o.shape, 7);
    array.write({}, data);
    // One chunk (or shard) removed: it reads as the fill value.
    store->erase(c.shards ? "a/c/1/0/1" : "a/c/1/1/1");

    expect_device_reads_equal_host_reads(array);
  }
}

TEST_P(DeviceArrayChains, WritesFromDeviceMemoryStoreWhatHostWritesStore) {
  const ChainCase& c = GetParam();
  if (c.needs_blosc && !BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  const DataType type(DataTypeKind::int32);
  ArrayCreateOptions o;
  o.shape = {10, 12, 7};
  o.data_type = type;
  o.chunk_shape = {4, 6, 3};
  o.codecs = c.codecs;
  if (c.shards) o.shard_shape = c.shards;
  o.fill_value = 0;
  auto host_store = std::make_shared<MemoryStore>();
  auto device_store = std::make_shared<MemoryStore>();
  auto from_host = Array::create(host_store, "", o);
  auto from_device = Array::create(device_store, "", o);
  const NDBuffer whole = patterned(type, o.shape, 11);
  from_host.write({}, whole);
  from_device.write({}, whole.copy_to(MemoryKind::device));
  // A partial write from a strided device view (every other row of a larger device array).
  const Selection part = parse_selection("2:9, 1:12:3, 1:6");
  const NDBuffer bigger = patterned(type, {14, 4, 5}, 13).copy_to(MemoryKind::device);
  const NDBuffer strided = bigger.sliced(0, 0, 2, 7);
  from_host.write(part, strided.copy_to(MemoryKind::host));
  from_device.write(part, strided);
  EXPECT_EQ(host_bytes(from_device.read()), host_bytes(from_host.read()));
  // The stores hold the same bytes under the same keys, so what reads host-written arrays (the
  // zarr-python cross tests) reads device-written ones too.
  ASSERT_EQ(host_store->list(), device_store->list());
  for (const auto& key : host_store->list()) {
    const auto a = host_store->get(key), b = device_store->get(key);
    ASSERT_TRUE(a && b) << key;
    EXPECT_EQ(a->as_string_view(), b->as_string_view()) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, DeviceArrayChains, ::testing::ValuesIn(chain_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(DeviceArray, ReadIntoAStridedDeviceView) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {9, 10};
  o.data_type = DataType(DataTypeKind::int64);
  o.chunk_shape = {4, 4};
  auto array = Array::create(store, "", o);
  const NDBuffer data = patterned(o.data_type, o.shape, 3);
  array.write({}, data);
  // The destination: every third column, rows reversed, of a larger device array.
  NDBuffer big = NDBuffer::allocate(o.data_type, {9, 30}, MemoryKind::device);
  cudaMemset(big.data(), 0, static_cast<size_t>(big.nbytes()));
  const NDBuffer view = big.sliced(1, 0, 3, 10).sliced(0, 8, -1, 9);
  array.read_into({}, view);
  EXPECT_EQ(host_bytes(view), host_bytes(data));
  // Seen through `big`, the rows are reversed.
  EXPECT_EQ(host_bytes(big.sliced(1, 0, 3, 10)), host_bytes(data.sliced(0, 8, -1, 9)));
  // The columns between stay untouched.
  const NDBuffer between = big.sliced(1, 1, 3, 10);
  for (auto b : host_bytes(between)) ASSERT_EQ(b, std::byte{0});
}

TEST_F(DeviceArray, MissingChunksReadAsTheFillValue) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {300, 200};
  o.data_type = DataType(DataTypeKind::float32);
  o.chunk_shape = {64, 64};
  o.fill_value = -2.5;
  auto array = Array::create(store, "", o);
  const NDBuffer out = array.read({}, MemoryKind::device);
  const NDBuffer host = out.copy_to(MemoryKind::host);
  for (int64_t i = 0; i < host.size(); ++i) ASSERT_EQ(host.data_as<float>()[i], -2.5f) << i;
}

TEST_F(DeviceArray, ManyBatchesOverlapAndStayInOrder) {
  // More chunks than one batch holds, from a file store (chunks read into pinned memory).
  const auto dir = std::filesystem::temp_directory_path() / "cuzarr_device_batches";
  std::filesystem::remove_all(dir);
  auto store = open_store(dir.string(), true);
  ArrayCreateOptions o;
  o.shape = {512, 512};
  o.data_type = DataType(DataTypeKind::uint16);
  o.chunk_shape = {16, 512};
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}};
  auto array = Array::create(store, "", o);
  const NDBuffer data = patterned(o.data_type, o.shape, 5);
  array.write({}, data);
  // Reopen with a small batch size through the pipeline default: 32 chunks of 16 KiB.
  const NDBuffer out = array.read({}, MemoryKind::device);
  EXPECT_EQ(host_bytes(out), host_bytes(data));
  std::filesystem::remove_all(dir);
}

TEST_F(DeviceArray, BatchesDecodingAtOnceReadAlike) {
  // Chunks decoded on the GPU (zstd, crc32c) in batches of a few chunks (2 to 8, by the number of
  // threads), with missing chunks among them: the kernels of 1, 2 and 3 batches at a time (each
  // batch on its own kernel stream) read the same data; a chunk that a GPU codec rejects is named
  // whichever batch holds it.
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {96, 256};
  o.data_type = DataType(DataTypeKind::uint32);
  o.chunk_shape = {2, 256};  // 2 KiB chunks
  o.fill_value = 7;
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}},
                                    {"zstd", {{"level", 3}, {"checksum", true}}},
                                    {"crc32c", nlohmann::json::object()}};
  auto array = Array::create(store, "z", o);
  NDBuffer data = patterned(o.data_type, o.shape, 11);
  array.write({}, data);
  for (const char* key : {"z/c/3/0", "z/c/4/0", "z/c/17/0"}) store->erase(key);
  for (const int64_t row : {6, 7, 8, 9, 34, 35})
    for (int64_t x = 0; x < 256; ++x) data.data_as<uint32_t>()[row * 256 + x] = 7;
  array.set_codec_placement(CodecPlacement::parse("gpu"));
  array.set_batch_bytes(4 << 10);
  for (const size_t batches : {size_t{1}, size_t{2}, size_t{3}}) {
    SCOPED_TRACE(std::to_string(batches) + " batches at once");
    array.set_concurrent_device_batches(batches);
    EXPECT_EQ(host_bytes(array.read({}, MemoryKind::device)), host_bytes(data));
    const Selection part = parse_selection("5:41:3, 7:200");
    EXPECT_EQ(host_bytes(array.read(part, MemoryKind::device)),
              host_bytes(array.read(part, MemoryKind::host)));
  }
  EXPECT_THROW(array.set_concurrent_device_batches(0), InvalidArgumentError);

  auto damaged = store->get("z/c/13/0");
  ASSERT_TRUE(damaged);
  std::string bytes(damaged->as_string_view());
  bytes[9] = static_cast<char>(bytes[9] ^ 0x10);
  store->set("z/c/13/0", std::string_view(bytes));
  for (const size_t batches : {size_t{1}, size_t{2}, size_t{3}}) {
    array.set_concurrent_device_batches(batches);
    try {
      array.read({}, MemoryKind::device);
      ADD_FAILURE() << "no error with " << batches << " batches at once";
    } catch (const CorruptDataError& e) {
      EXPECT_NE(std::string(e.what()).find("z/c/13/0"), std::string::npos) << e.what();
    }
  }
}

TEST_F(DeviceArray, VariableLengthDataTypesAreRefusedForDeviceMemory) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {4};
  o.data_type = DataType(DataTypeKind::string);
  o.chunk_shape = {2};
  auto array = Array::create(store, "", o);
  array.write_strings({}, {"a", "bb", "ccc", "dddd"});
  EXPECT_THROW(array.read({}, MemoryKind::device), UnsupportedError);
}

TEST_F(DeviceArray, CorruptChunkErrorNamesTheKey) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {8};
  o.data_type = DataType(DataTypeKind::int32);
  o.chunk_shape = {4};
  auto array = Array::create(store, "x", o);
  array.write({}, patterned(o.data_type, o.shape, 1));
  store->set("x/c/1", std::string_view("not zstd"));
  try {
    array.read({}, MemoryKind::device);
    FAIL() << "no error";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("x/c/1"), std::string::npos) << e.what();
  }
}

// Uncompressed chunks of a file store go to device memory through cuFile (mode ON, when it works
// on this machine) or through pinned bounce buffers (mode OFF); both read the same data.
TEST_F(DeviceArray, FileStoreReadsIntoDeviceMemoryInBothGdsModes) {
  // In the working directory rather than /tmp, which is often a tmpfs (cuFile refuses those).
  const auto dir = std::filesystem::current_path() / "cuzarr_device_gds";
  std::filesystem::remove_all(dir);
  ArrayCreateOptions o;
  o.shape = {64, 96};
  o.data_type = DataType(DataTypeKind::float64);
  o.chunk_shape = {32, 32};
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}};
  const NDBuffer data = patterned(o.data_type, o.shape, 17);
  Array::create(std::make_shared<FileStore>(dir), "", o).write({}, data);
  ::unsetenv("CUZARR_GDS");
  for (GdsMode mode : {GdsMode::off, GdsMode::on}) {
    SCOPED_TRACE(std::string(gds_mode_name(mode)));
    auto store = std::make_shared<FileStore>(dir, false, FileStoreOptions{mode});
    if (mode == GdsMode::on && !gds_available()) {
      EXPECT_THROW(store->reads_into_device(), UnsupportedError);
      std::cout << "[ NOTE     ] GDS mode ON not exercised: " << gds_unavailable_reason() << "\n";
      continue;
    }
    EXPECT_EQ(store->reads_into_device(), mode == GdsMode::on);
    std::optional<Buffer> chunk;
    try {
      chunk = store->get("c/1/2", ByteRange::full(), MemoryKind::device);
    } catch (const IoError& e) {
      // cuFile loads but refuses this file system (mode ON does not fall back): the error must
      // name the file and cuFile.
      ASSERT_EQ(mode, GdsMode::on) << e.what();
      EXPECT_NE(std::string(e.what()).find("c/1/2"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cuFile"), std::string::npos) << e.what();
      std::cout << "[ NOTE     ] GDS mode ON: cuFile refused the file: " << e.what() << "\n";
      continue;
    }
    ASSERT_TRUE(chunk.has_value());
    EXPECT_EQ(chunk->kind(), MemoryKind::device);
    EXPECT_EQ(chunk->size(), size_t{32 * 32 * 8});
    const NDBuffer out =
        Array::open(store, "").read(parse_selection("3:61, 5:90"), MemoryKind::device);
    EXPECT_EQ(host_bytes(out), host_bytes(data.sliced(0, 3, 1, 58).sliced(1, 5, 1, 85)));
  }
  std::filesystem::remove_all(dir);
}

// A sharded array in files: each shard's inner chunks come in one pinned read and go to the device
// in shared copies (runs over the shard's bytes), with and without GPU codecs, some inner chunks
// absent (all fill value) and a shard missing.
TEST_F(DeviceArray, ShardedFileArraysReadIntoDeviceMemoryLikeHostReads) {
  const auto dir = std::filesystem::current_path() / "cuzarr_device_sharded";
  const CodecSpec little{"bytes", {{"endian", "little"}}};
  const CodecSpec zstd{"zstd", {{"level", 1}, {"checksum", false}}};
  for (const auto& codecs :
       {std::vector<CodecSpec>{little, zstd}, std::vector<CodecSpec>{little}}) {
    SCOPED_TRACE(codecs.size() == 2 ? "zstd" : "uncompressed");
    std::filesystem::remove_all(dir);
    auto store = std::make_shared<FileStore>(dir, true, FileStoreOptions{GdsMode::off});
    ArrayCreateOptions o;
    o.shape = {20, 24, 13};  // edge shards and edge inner chunks
    o.data_type = DataType(DataTypeKind::int16);
    o.chunk_shape = {4, 6, 3};
    o.shard_shape = Shape{8, 12, 6};
    o.codecs = codecs;
    auto array = Array::create(store, "", o);
    NDBuffer data = patterned(o.data_type, o.shape, 23);
    // The inner chunks of the first 4 planes hold only the fill value: they are not stored, and
    // the shards that hold them have holes.
    std::memset(data.data(), 0, 4 * 24 * 13 * sizeof(int16_t));
    array.write({}, data);
    store->erase("c/1/1/1");
    expect_device_reads_equal_host_reads(array);
  }
  std::filesystem::remove_all(dir);
}

// A chunk that a GPU codec rejects fails the read with an error naming the chunk and the codec.
TEST_F(DeviceArray, ChunksRejectedByAGpuCodecNameTheChunk) {
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {64};
  o.data_type = DataType(DataTypeKind::int32);
  o.chunk_shape = {16};
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}},
                                    {"crc32c", nlohmann::json::object()}};
  auto array = Array::create(store, "y", o);
  array.write({}, patterned(o.data_type, o.shape, 2));
  auto damaged = store->get("y/c/2");
  ASSERT_TRUE(damaged);
  std::string bytes(damaged->as_string_view());
  bytes[5] = static_cast<char>(bytes[5] ^ 0x40);
  store->set("y/c/2", std::string_view(bytes));
  try {
    array.read({}, MemoryKind::device);
    FAIL() << "no error";
  } catch (const CorruptDataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("y/c/2"), std::string::npos) << what;
    EXPECT_NE(what.find("crc32c"), std::string::npos) << what;
  }
}

// A codec without a GPU decoder is named once in the log, however many reads use it.
TEST_F(DeviceArray, CpuFallbackIsLoggedOnce) {
  std::vector<std::string> messages;
  set_log_sink([&](std::string_view m) { messages.emplace_back(m); });
  auto store = std::make_shared<MemoryStore>();
  ArrayCreateOptions o;
  o.shape = {32};
  o.data_type = DataType(DataTypeKind::uint16);
  o.chunk_shape = {8};
  o.codecs =
      std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}, {"numcodecs.bz2", {{"level", 1}}}};
  auto array = Array::create(store, "", o);
  array.write({}, patterned(o.data_type, o.shape, 4));
  array.read({}, MemoryKind::device);
  array.read({}, MemoryKind::device);
  set_log_sink([](std::string_view) {});
  const auto bz2_notes = std::count_if(messages.begin(), messages.end(), [](const auto& m) {
    return m.find("\"numcodecs.bz2\"") != std::string::npos;
  });
  EXPECT_EQ(bz2_notes, 1) << ::testing::PrintToString(messages);
}

}  // namespace
}  // namespace cuzarr
