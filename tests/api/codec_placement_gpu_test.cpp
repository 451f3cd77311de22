// GPU tests that reads into device memory honour the codec placement (Array::set_codec_placement):
// where a chunk decoded shows in the error a corrupt chunk gives ("decoded on the GPU" only for
// the GPU decoders), and every placement reads the same values. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "api_gpu_test_support.hpp"
#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using test::device_read_error;
using test::iota_int32;
using test::values;

class CodecPlacementGpu : public test::ApiGpu {
 protected:
  void SetUp() override {
    test::ApiGpu::SetUp();
    set_log_sink([](std::string_view) {});
  }
};

// A 1-D int32 array of `chunk` elements per chunk (4 chunks) with `codecs`, holding 0, 1, ...
Array make_array(const std::shared_ptr<Store>& store, int64_t chunk,
                 std::vector<CodecSpec> codecs) {
  ArrayCreateOptions o;
  o.shape = {4 * chunk};
  o.chunk_shape = {chunk};
  o.data_type = test::kInt32;
  o.codecs = std::move(codecs);
  Array array = Array::create(store, "a", o);
  array.write({}, iota_int32({4 * chunk}));
  return array;
}

// Cuts the last 16 bytes off the stored chunk 1: every decoder must reject it.
void truncate_chunk(Store& store, const Array& array) {
  const std::vector<int64_t> coords{1};
  const std::string key = array.chunk_key(coords);
  const auto bytes = store.get(key);
  ASSERT_TRUE(bytes.has_value());
  ASSERT_GT(bytes->size(), 32u);
  store.set(key, bytes->bytes().first(bytes->size() - 16));
}

const CodecSpec kLittle{"bytes", {{"endian", "little"}}};
const CodecSpec kZstd{"zstd", {{"level", 1}, {"checksum", false}}};
const CodecSpec kGzip{"gzip", {{"level", 1}}};

bool on_gpu(const std::string& message) {
  return message.find("decoded on the GPU") != std::string::npos;
}

// Reads `array` (chunk 1 truncated) into device memory with `placement`: the read must fail naming
// chunk 1, rejected by a GPU decoder when `gpu`, by a CPU codec otherwise.
void expect_rejected(Array& array, const std::string& placement, bool gpu) {
  SCOPED_TRACE(placement);
  array.set_codec_placement(CodecPlacement::parse(placement));
  const std::string message = device_read_error(array);
  ASSERT_FALSE(message.empty()) << "the truncated chunk was accepted";
  EXPECT_NE(message.find(array.chunk_key(std::vector<int64_t>{1})), std::string::npos) << message;
  EXPECT_EQ(on_gpu(message), gpu) << message;
}

TEST_F(CodecPlacementGpu, PerCodecPlacementPicksTheDecoder) {
  for (const CodecSpec& codec : {kZstd, kGzip}) {
    SCOPED_TRACE(codec.name);
    auto store = std::make_shared<MemoryStore>();
    Array array = make_array(store, 4096, {kLittle, codec});  // 16 KiB chunks
    truncate_chunk(*store, array);
    const auto expect = [&](const std::string& placement, bool gpu) {
      expect_rejected(array, placement, gpu);
    };
    expect("auto", true);  // small chunks: the GPU where a decoder exists
    expect("gpu", true);
    expect("cpu", false);
    expect(codec.name + "=cpu", false);
    expect(codec.name + "=cpu,default=gpu", false);
    expect(codec.name + "=gpu,default=cpu", true);
    expect("default=cpu,blosc=gpu", false);  // the entry of another codec changes nothing
    expect("blosc=cpu", true);
  }
}

TEST_F(CodecPlacementGpu, LargeChunksDecodeOnTheGpuUnlessPlacedOnTheCpu) {
  // 4 MiB gzip chunks: block-parallel inflate, faster than zlib on the CPU's cores.
  auto store = std::make_shared<MemoryStore>();
  Array array = make_array(store, int64_t{1} << 20, {kLittle, kGzip});
  truncate_chunk(*store, array);
  array.set_codec_placement(CodecPlacement::parse("auto"));
  std::string message = device_read_error(array);
  ASSERT_FALSE(message.empty());
  EXPECT_TRUE(on_gpu(message)) << message;
  array.set_codec_placement(CodecPlacement::parse("gzip=cpu"));
  message = device_read_error(array);
  ASSERT_FALSE(message.empty());
  EXPECT_FALSE(on_gpu(message)) << message;
}

TEST_F(CodecPlacementGpu, LargeZstdChunksDecodeOnTheGpuAutomatically) {
  // zstd has no size limit: chunks above one zstd block decode block-parallel.
  auto store = std::make_shared<MemoryStore>();
  Array array = make_array(store, int64_t{1} << 20, {kLittle, kZstd});
  truncate_chunk(*store, array);
  array.set_codec_placement(CodecPlacement::parse("auto"));
  const std::string message = device_read_error(array);
  ASSERT_FALSE(message.empty());
  EXPECT_TRUE(on_gpu(message)) << message;
}

// numcodecs.delta before "bytes" decodes on the GPU after the bytes -> bytes codecs, so the chain
// stays there: a truncated zstd or gzip chunk is rejected by the GPU decoder. Placed on the CPU,
// the delta takes the whole chain with it.
TEST_F(CodecPlacementGpu, DeltaChainsPlaceTheirCodecs) {
  const CodecSpec delta{"numcodecs.delta", nlohmann::json::object()};
  // Values whose differences do not compress (iota's would leave a chunk too small to cut).
  NDBuffer scrambled = iota_int32({4 * 4096});
  for (int64_t i = 0; i < scrambled.size(); ++i) {
    uint32_t x = static_cast<uint32_t>(i) * 2654435761u;
    x ^= x >> 15;
    scrambled.data_as<int32_t>()[i] = static_cast<int32_t>(x * 2246822519u);
  }
  for (const CodecSpec& codec : {kZstd, kGzip}) {
    SCOPED_TRACE(codec.name);
    auto store = std::make_shared<MemoryStore>();
    Array array = make_array(store, 4096, {delta, kLittle, codec});
    array.write({}, scrambled);
    truncate_chunk(*store, array);
    const auto expect = [&](const std::string& placement, bool gpu) {
      expect_rejected(array, placement, gpu);
    };
    expect("auto", true);
    expect("delta=gpu", true);
    expect(codec.name + "=gpu", true);
    expect("gpu", true);
    expect("delta=cpu", false);
    expect(codec.name + "=gpu,delta=cpu", false);
    expect(codec.name + "=cpu", false);
  }
}

TEST_F(CodecPlacementGpu, EveryPlacementReadsTheSameValues) {
  const std::vector<std::vector<CodecSpec>> chains = {
      {kLittle, kZstd},
      {kLittle, kGzip, {"crc32c", nlohmann::json::object()}},
      {kLittle,
       {"numcodecs.shuffle", nlohmann::json::object()},
       {"numcodecs.lz4", {{"acceleration", 1}}}},
      // No GPU decoder: "gpu" falls back to the CPU.
      {kLittle, {"numcodecs.bz2", {{"level", 1}}}},
      {{"numcodecs.delta", nlohmann::json::object()}, kLittle, kZstd},
  };
  for (const auto& chain : chains) {
    SCOPED_TRACE(chain.back().name);
    auto store = std::make_shared<MemoryStore>();
    Array array = make_array(store, 3000, chain);
    const auto expected = values(iota_int32({12000}));
    for (const char* placement :
         {"auto", "gpu", "cpu", "zstd=cpu,default=gpu", "crc32c=cpu,gzip=gpu", "gzip=cpu",
          "lz4=gpu,shuffle=cpu", "shuffle=gpu,lz4=cpu", "bz2=gpu", "delta=cpu",
          "delta=gpu,zstd=cpu"}) {
      SCOPED_TRACE(placement);
      array.set_codec_placement(CodecPlacement::parse(placement));
      EXPECT_EQ(values(array.read({}, MemoryKind::device)), expected);
      // A partial selection goes through the scatter too.
      const auto part = values(array.read({Slice{2500, 9100, 3}}, MemoryKind::device));
      std::vector<int32_t> want;
      for (int32_t i = 2500; i < 9100; i += 3) want.push_back(i);
      EXPECT_EQ(part, want);
    }
  }
}

}  // namespace
}  // namespace cuzarr
