// SampleLoader into device memory (skips without a CUDA device). Needs Array::read_into into
// device memory.
#include <gtest/gtest.h>

#include "api_gpu_test_support.hpp"
#include "counting_store.hpp"
#include "cuzarr/api/sample_loader.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using test::ApiGpu;
using test::iota_int32;
using test::kInt32;
using test::values;

TEST_F(ApiGpu, SampleLoaderReadsBatchesIntoDeviceMemory) {
  auto store = std::make_shared<test::CountingStore>();
  ArrayCreateOptions o;
  o.shape = {10, 3, 2};
  o.data_type = kInt32;
  o.chunk_shape = {4, 3, 2};
  Array array = Array::create(store, "samples", o);
  array.write({}, iota_int32({10, 3, 2}));
  for (bool shuffle : {false, true}) {
    SampleLoaderOptions options;
    options.batch_size = 4;
    options.kind = MemoryKind::device;
    options.shuffle = shuffle;
    options.seed = 5;
    SampleLoader loader(array, options);
    size_t batches = 0;
    while (const Bufferizer* batch = loader.next()) {
      EXPECT_EQ(batch->kind(), MemoryKind::device);
      std::vector<int32_t> expected;
      for (int64_t s : loader.batch_samples())
        for (int32_t k = 0; k < 6; ++k) expected.push_back(static_cast<int32_t>(s * 6 + k));
      EXPECT_EQ(values(batch->view()), expected);
      ++batches;
    }
    EXPECT_EQ(batches, 3u);
  }
}

}  // namespace
}  // namespace cuzarr
