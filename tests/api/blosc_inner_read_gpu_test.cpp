// GPU tests of device reads of arrays whose blosc chunks hold zstd or zlib blocks: they decode on
// the GPU (a damaged chunk's error says "decoded on the GPU", unless blosc is placed on the CPU)
// and read the values written, whole and in part. Skips without a CUDA device or c-blosc.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "api_gpu_test_support.hpp"
#include "codec/cuda/blosc_inner_jobs.hpp"
#include "cuzarr/api/array.hpp"
#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#include "cuzarr/store/memory_store.hpp"

namespace cuzarr {
namespace {

using test::device_read_error;
using test::iota_int32;
using test::values;

class BloscInnerDeviceRead : public test::ApiGpu {
 protected:
  void SetUp() override {
    test::ApiGpu::SetUp();
    if (!BloscCodec::available()) GTEST_SKIP() << "blosc support was not built";
    set_log_sink([](std::string_view) {});
  }
};

constexpr int64_t kChunk = 50000;  // int32 elements: 200 KB chunks

Array make_array(const std::shared_ptr<Store>& store, const std::string& cname,
                 const std::string& shuffle) {
  ArrayCreateOptions o;
  o.shape = {4 * kChunk};
  o.chunk_shape = {kChunk};
  o.data_type = test::kInt32;
  o.codecs = {{"bytes", {{"endian", "little"}}},
              {"blosc", {{"cname", cname}, {"clevel", 5}, {"shuffle", shuffle}, {"blocksize", 0}}}};
  Array array = Array::create(store, "a", o);
  array.write({}, iota_int32({4 * kChunk}));
  return array;
}

TEST_F(BloscInnerDeviceRead, ZstdAndZlibChunksDecodeOnTheGpu) {
  for (const std::string cname : {"zstd", "zlib"}) {
    for (const std::string shuffle : {"noshuffle", "shuffle", "bitshuffle"}) {
      SCOPED_TRACE(cname + " " + shuffle);
      auto store = std::make_shared<MemoryStore>();
      Array array = make_array(store, cname, shuffle);
      const std::string key = array.chunk_key(std::vector<int64_t>{1});
      // The stored chunks are compressed zstd / zlib blosc chunks (not memcpyed).
      const auto stored = store->get(key);
      ASSERT_TRUE(stored.has_value());
      const auto* bytes = reinterpret_cast<const unsigned char*>(stored->data());
      const auto plan = gpu::blosc_inner_plan(bytes, stored->size(), UINT64_MAX);
      ASSERT_EQ(plan.status, gpu::DeviceChunkStatus::ok);
      EXPECT_EQ(plan.header.compressor,
                cname == "zstd" ? gpu::BloscCompressor::zstd : gpu::BloscCompressor::zlib);

      EXPECT_EQ(values(array.read({}, MemoryKind::device)), values(iota_int32({4 * kChunk})));
      const Selection part = parse_selection("30000:170000:3");
      EXPECT_EQ(values(array.read(part, MemoryKind::device)), values(array.read(part)));

      // A damaged stream (chunk 1's first stream said one byte shorter: the zstd frame or zlib
      // stream is cut) fails in the GPU's inner decoder.
      std::vector<unsigned char> damaged(bytes, bytes + stored->size());
      const uint32_t first = gpu::load_le32(damaged.data() + gpu::kBloscHeaderSize);
      gpu::store_le32(damaged.data() + first, gpu::load_le32(damaged.data() + first) - 1);
      store->set(key, std::as_bytes(std::span(damaged)));
      const std::string message = device_read_error(array);
      ASSERT_FALSE(message.empty()) << "the damaged chunk was accepted";
      EXPECT_NE(message.find(key), std::string::npos) << message;
      EXPECT_NE(message.find("decoded on the GPU"), std::string::npos) << message;
      array.set_codec_placement(CodecPlacement::parse("blosc=cpu"));
      const std::string on_cpu = device_read_error(array);
      ASSERT_FALSE(on_cpu.empty());
      EXPECT_EQ(on_cpu.find("decoded on the GPU"), std::string::npos) << on_cpu;
    }
  }
}

TEST_F(BloscInnerDeviceRead, Lz4ArraysWithZstdChunksStillRead) {
  // An array declared lz4 whose chunks were written with zstd blocks: its GPU decoder takes lz4
  // only, so those chunks decode on the CPU and the read still returns the values.
  auto zstd_store = std::make_shared<MemoryStore>();
  Array zstd_array = make_array(zstd_store, "zstd", "shuffle");
  auto store = std::make_shared<MemoryStore>();
  Array array = make_array(store, "lz4", "shuffle");
  const std::string key = array.chunk_key(std::vector<int64_t>{2});
  store->set(key, zstd_store->get(key)->bytes());
  EXPECT_EQ(values(array.read({}, MemoryKind::device)), values(iota_int32({4 * kChunk})));
}

}  // namespace
}  // namespace cuzarr
