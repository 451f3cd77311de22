// Bufferizer in device memory (skips without a CUDA device).
#include <gtest/gtest.h>

#include "api_gpu_test_support.hpp"
#include "cuzarr/api/bufferizer.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using test::ApiGpu;
using test::iota_int32;
using test::kInt32;
using test::values;

TEST_F(ApiGpu, BufferizerAppendsFillsAndExportsDeviceMemory) {
  Stream stream = Stream::create();
  std::vector<std::string> log;
  BufferizerHooks hooks;
  hooks.on_full = [&](Bufferizer&) { log.push_back("full"); };
  hooks.on_flush = [&](Bufferizer&) { log.push_back("flush"); };
  Bufferizer b(5, {2, 3}, kInt32, MemoryKind::device, stream, hooks);
  EXPECT_EQ(b.kind(), MemoryKind::device);
  b.append_one(iota_int32({2, 3}, 0));                              // host sample
  b.append_one(iota_int32({2, 3}, 6).copy_to(MemoryKind::device));  // device sample
  b.append_multiple(iota_int32({3, 2, 3}, 12).copy_to(MemoryKind::pinned));
  b.synchronize();
  EXPECT_TRUE(b.full());
  EXPECT_EQ(values(b.view()), values(iota_int32({5, 2, 3})));
  EXPECT_THROW(b.append_one(iota_int32({2, 3})), InvalidArgumentError);
  DLManagedTensorVersioned* t = b.to_dlpack();
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(t->dl_tensor.shape[0], 5);
  t->deleter(t);
  b.flush(int32_t{-3});
  b.synchronize();
  EXPECT_EQ(values(b.storage()), std::vector<int32_t>(30, -3));
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(log, (std::vector<std::string>{"full", "flush"}));
}

}  // namespace
}  // namespace cuzarr
