// GPU tests of writes from device memory encoded on the GPU (codec placement gpu): the stored
// chunks are what the GPU encoders produce (checked against the kernels for numcodecs.lz4 and
// blosc), they decode with the CPU codecs to the written data, chunks holding only the fill value
// are erased as host writes erase them, partial writes (read-modify-write on the CPU) and edge
// chunks come out right, and automatic placement keeps the CPU encoders (byte-identical to host
// writes). Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "api_gpu_test_support.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/device_batch_tables.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "cuzarr/api/array.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

class DeviceWriteEncodeGpu : public test::ApiGpu {
 protected:
  void SetUp() override {
    test::ApiGpu::SetUp();
    set_log_sink([](std::string_view) {});
  }
};

std::vector<std::byte> host_bytes(const NDBuffer& a) {
  NDBuffer dense = a.copy_to(MemoryKind::host);
  return {dense.data(), dense.data() + dense.nbytes()};
}

// Compressible data of `type`: a smooth ramp with noise in the low byte, and a block of zeros
// (the fill value) covering whole chunks, so that some chunks hold only the fill value.
NDBuffer compressible(DataType type, const Shape& shape, uint32_t seed) {
  NDBuffer a = NDBuffer::allocate(type, shape);
  std::mt19937 random(seed);
  const size_t size = static_cast<size_t>(type.size());
  auto* p = reinterpret_cast<uint8_t*>(a.data());
  const int64_t n = a.size();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t value = static_cast<uint64_t>(i / 7) * 3 + (random() % 4);
    std::memcpy(p + i * size, &value, std::min<size_t>(size, sizeof value));
  }
  // Rows [0, 8) of columns [16, 32): whole chunks of 8 x 16 elements of zeros.
  for (int64_t r = 0; r < 8 && r < shape[0] && shape[1] >= 32; ++r)
    std::memset(p + (r * shape[1] + 16) * static_cast<int64_t>(size), 0, 16 * size);
  return a;
}

struct EncodeCase {
  const char* name;
  std::vector<CodecSpec> codecs;
  bool needs_blosc = false;
};

std::vector<EncodeCase> encode_cases() {
  const CodecSpec little{"bytes", {{"endian", "little"}}};
  const CodecSpec crc{"crc32c", nlohmann::json::object()};
  const auto blosc = [](const char* shuffle) {
    return CodecSpec{"blosc",
                     {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", shuffle}, {"blocksize", 0}}};
  };
  return {
      {"numcodecs_lz4", {little, {"numcodecs.lz4", {{"acceleration", 1}}}}},
      {"blosc_lz4_shuffle", {little, blosc("shuffle")}, true},
      {"blosc_lz4_bitshuffle", {little, blosc("bitshuffle")}, true},
      {"blosc_lz4_noshuffle", {little, blosc("noshuffle")}, true},
      {"crc32c", {little, crc}},
      {"blosc_lz4_crc32c", {little, blosc("shuffle"), crc}, true},
      {"shuffle_lz4",
       {little,
        {"numcodecs.shuffle", nlohmann::json::object()},
        {"numcodecs.lz4", {{"acceleration", 1}}}}},
      {"lz4_crc32c", {little, {"numcodecs.lz4", {{"acceleration", 1}}}, crc}},
  };
}

class DeviceWriteEncodeChains : public DeviceWriteEncodeGpu,
                                public ::testing::WithParamInterface<EncodeCase> {};

ArrayCreateOptions options_for(const EncodeCase& c, DataType type) {
  ArrayCreateOptions o;
  o.shape = {21, 45};  // edge chunks in both dimensions
  o.chunk_shape = {8, 16};
  o.data_type = type;
  o.codecs = c.codecs;
  o.fill_value = 0;
  return o;
}

TEST_P(DeviceWriteEncodeChains, StoredChunksDecodeOnTheCpu) {
  const EncodeCase& c = GetParam();
  if (c.needs_blosc && !BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  for (const DataType type : {DataType(DataTypeKind::uint8), DataType(DataTypeKind::int16),
                              DataType(DataTypeKind::float32), DataType(DataTypeKind::float64)}) {
    SCOPED_TRACE(type.name());
    const ArrayCreateOptions o = options_for(c, type);
    auto host_store = std::make_shared<MemoryStore>();
    auto device_store = std::make_shared<MemoryStore>();
    Array from_host = Array::create(host_store, "a", o);
    Array from_device = Array::create(device_store, "a", o);
    from_device.set_codec_placement(CodecPlacement::all(Placement::gpu));
    const NDBuffer data = compressible(type, o.shape, 5);
    from_host.write({}, data);
    from_device.write({}, data.copy_to(MemoryKind::device));

    // Read back through the CPU codecs (a fresh handle, host memory, CPU placement).
    Array reader = Array::open(device_store, "a");
    reader.set_codec_placement(CodecPlacement::all(Placement::cpu));
    EXPECT_EQ(host_bytes(reader.read()), host_bytes(data));
    // And into device memory through the GPU decoders.
    Array gpu_reader = Array::open(device_store, "a");
    gpu_reader.set_codec_placement(CodecPlacement::all(Placement::gpu));
    EXPECT_EQ(host_bytes(gpu_reader.read({}, MemoryKind::device)), host_bytes(data));
    // The same chunks are stored (the fill-only ones erased) as a host write stores.
    EXPECT_EQ(device_store->list(), host_store->list());
    EXPECT_FALSE(device_store->get("a/c/0/1").has_value()) << "a chunk of zeros was stored";

    // write_empty_chunks: the chunks of zeros are stored too, and read back as zeros.
    auto empty_store = std::make_shared<MemoryStore>();
    Array with_empty = Array::create(empty_store, "a", o);
    with_empty.set_codec_placement(CodecPlacement::all(Placement::gpu));
    with_empty.set_write_empty_chunks(true);
    with_empty.write({}, data.copy_to(MemoryKind::device));
    EXPECT_TRUE(empty_store->get("a/c/0/1").has_value());
    EXPECT_EQ(host_bytes(Array::open(empty_store, "a").read()), host_bytes(data));
  }
}

TEST_P(DeviceWriteEncodeChains, PartialAndStridedWritesMatchHostWrites) {
  const EncodeCase& c = GetParam();
  if (c.needs_blosc && !BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  const DataType type(DataTypeKind::int32);
  const ArrayCreateOptions o = options_for(c, type);
  auto host_store = std::make_shared<MemoryStore>();
  auto device_store = std::make_shared<MemoryStore>();
  Array from_host = Array::create(host_store, "a", o);
  Array from_device = Array::create(device_store, "a", o);
  from_device.set_codec_placement(CodecPlacement::parse("default=gpu"));
  const NDBuffer whole = compressible(type, o.shape, 9);
  from_host.write({}, whole);
  from_device.write({}, whole.copy_to(MemoryKind::device));
  // Partial chunks (read-modify-write on the CPU) and whole chunks (on the GPU) in one write,
  // from a strided device view; then a reversed selection over whole chunks.
  const Selection part = parse_selection("3:20, 0:45:3");
  const NDBuffer bigger = compressible(type, {34, 15}, 21).copy_to(MemoryKind::device);
  const NDBuffer strided = bigger.sliced(0, 0, 2, 17);
  from_host.write(part, strided.copy_to(MemoryKind::host));
  from_device.write(part, strided);
  const Selection reversed = parse_selection("15::-1, 31::-1");
  const NDBuffer flipped = compressible(type, {16, 32}, 33);
  from_host.write(reversed, flipped);
  from_device.write(reversed, flipped.copy_to(MemoryKind::device));
  EXPECT_EQ(host_bytes(Array::open(device_store, "a").read()), host_bytes(from_host.read()));
  EXPECT_EQ(device_store->list(), host_store->list());
}

TEST_P(DeviceWriteEncodeChains, AutomaticPlacementEncodesOnTheCpu) {
  const EncodeCase& c = GetParam();
  if (c.needs_blosc && !BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
  const DataType type(DataTypeKind::float32);
  const ArrayCreateOptions o = options_for(c, type);
  auto host_store = std::make_shared<MemoryStore>();
  auto device_store = std::make_shared<MemoryStore>();
  Array from_host = Array::create(host_store, "a", o);
  Array from_device = Array::create(device_store, "a", o);
  from_device.set_codec_placement(CodecPlacement::parse("auto"));
  const NDBuffer data = compressible(type, o.shape, 3);
  from_host.write({}, data);
  from_device.write({}, data.copy_to(MemoryKind::device));
  ASSERT_EQ(device_store->list(), host_store->list());
  for (const auto& key : host_store->list())
    EXPECT_EQ(device_store->get(key)->as_string_view(), host_store->get(key)->as_string_view())
        << key;
}

INSTANTIATE_TEST_SUITE_P(Codecs, DeviceWriteEncodeChains, ::testing::ValuesIn(encode_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Runs one GPU encoder over `input` and returns its output.
template <class Launch>
std::vector<std::byte> encode_with_kernel(std::span<const std::byte> input, uint64_t bound,
                                          size_t temp_bytes, Launch launch) {
  Stream stream = Stream::create();
  Buffer in = Buffer::allocate(input.size(), MemoryKind::device);
  copy_bytes(in.data(), MemoryKind::device, input.data(), MemoryKind::host, input.size());
  Buffer out = Buffer::allocate(static_cast<size_t>(bound), MemoryKind::device);
  const gpu::DeviceChunkRef ref{in.data(), input.size(), out.data(), bound};
  gpu::DeviceBatchTables tables(std::span<const gpu::DeviceChunkRef>(&ref, 1), stream);
  Buffer temp = gpu::device_scratch(temp_bytes, stream);
  launch(tables.batch(), temp.data(), stream);
  tables.fetch_results();
  EXPECT_EQ(tables.status(0), gpu::DeviceChunkStatus::ok);
  std::vector<std::byte> result(static_cast<size_t>(tables.output_size(0)));
  copy_bytes(result.data(), MemoryKind::host, out.data(), MemoryKind::device, result.size());
  return result;
}

TEST_F(DeviceWriteEncodeGpu, StoredChunksAreTheGpuEncodersOutput) {
  const DataType type(DataTypeKind::int16);
  const CodecSpec little{"bytes", {{"endian", "little"}}};
  struct Case {
    CodecSpec codec;
    bool blosc;
  };
  for (const Case& k :
       {Case{{"numcodecs.lz4", {{"acceleration", 1}}}, false},
        Case{{"blosc", {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"blocksize", 0}}},
             true}}) {
    SCOPED_TRACE(k.codec.name);
    if (k.blosc && !BloscCodec::available()) continue;
    ArrayCreateOptions o;
    o.shape = {64, 64};
    o.chunk_shape = {32, 64};
    o.data_type = type;
    o.codecs = std::vector<CodecSpec>{little, k.codec};
    auto store = std::make_shared<MemoryStore>();
    Array array = Array::create(store, "a", o);
    array.set_codec_placement(CodecPlacement::parse(k.blosc ? "blosc=gpu" : "lz4=gpu"));
    const NDBuffer data = compressible(type, o.shape, 17);
    array.write({}, data.copy_to(MemoryKind::device));
    // Chunk (1, 0) holds rows 32..63: contiguous in `data`.
    const auto stored = store->get("a/c/1/0");
    ASSERT_TRUE(stored.has_value());
    const std::span<const std::byte> rows(data.data() + 32 * 64 * 2, 32 * 64 * 2);
    const std::vector<std::byte> expected =
        k.blosc ? encode_with_kernel(rows, gpu::blosc_max_encoded_size(rows.size()),
                                     gpu::blosc_encode_temp_bytes(1, rows.size()),
                                     [&](const gpu::DeviceChunkBatch& b, void* t, Stream s) {
                                       gpu::BloscEncodeParams params;
                                       params.clevel = 5;
                                       params.typesize = 2;
                                       params.shuffle = gpu::BloscShuffle::byte;
                                       gpu::blosc_encode_batch(b, params, t, rows.size(), s);
                                     })
                : encode_with_kernel(rows, gpu::numcodecs_lz4_max_encoded_size(rows.size()),
                                     gpu::lz4_encode_temp_bytes(1),
                                     [&](const gpu::DeviceChunkBatch& b, void* t, Stream s) {
                                       gpu::numcodecs_lz4_encode_batch(b, t, s);
                                     });
    ASSERT_EQ(stored->size(), expected.size());
    EXPECT_EQ(std::memcmp(stored->data(), expected.data(), expected.size()), 0);
  }
}

TEST_F(DeviceWriteEncodeGpu, ChainsWithoutGpuEncodersStayOnTheCpu) {
  // zstd has no GPU encoder and blosc with zstd blocks neither: "gpu" writes them on the CPU,
  // byte-identical to host writes.
  const DataType type(DataTypeKind::int32);
  for (const CodecSpec& codec :
       {CodecSpec{"zstd", {{"level", 1}, {"checksum", false}}},
        CodecSpec{"blosc",
                  {{"cname", "zstd"}, {"clevel", 3}, {"shuffle", "shuffle"}, {"blocksize", 0}}}}) {
    SCOPED_TRACE(codec.name);
    if (codec.name == "blosc" && !BloscCodec::available()) continue;
    ArrayCreateOptions o;
    o.shape = {40, 40};
    o.chunk_shape = {16, 16};
    o.data_type = type;
    o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}}, codec};
    auto host_store = std::make_shared<MemoryStore>();
    auto device_store = std::make_shared<MemoryStore>();
    Array from_host = Array::create(host_store, "a", o);
    Array from_device = Array::create(device_store, "a", o);
    from_device.set_codec_placement(CodecPlacement::all(Placement::gpu));
    const NDBuffer data = compressible(type, o.shape, 2);
    from_host.write({}, data);
    from_device.write({}, data.copy_to(MemoryKind::device));
    ASSERT_EQ(device_store->list(), host_store->list());
    for (const auto& key : host_store->list())
      EXPECT_EQ(device_store->get(key)->as_string_view(), host_store->get(key)->as_string_view())
          << key;
  }
}

}  // namespace
}  // namespace cuzarr
