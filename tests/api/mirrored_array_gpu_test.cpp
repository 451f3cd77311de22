// MirroredArray with device mirrors (skips without a CUDA device).
#include <gtest/gtest.h>

#include "api_gpu_test_support.hpp"
#include "counting_store.hpp"
#include "cuzarr/api/mirrored_array.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

using test::ApiGpu;
using test::iota_int32;
using test::kInt32;
using test::values;

MirroredArrayOptions device_mirror(MemoryKind host_kind = MemoryKind::host,
                                   uint64_t merge_threshold = 0) {
  MirroredArrayOptions o;
  o.mirror_kind = MemoryKind::device;
  o.host_kind = host_kind;
  o.merge_threshold = merge_threshold;
  return o;
}

TEST_F(ApiGpu, MirroredArraySyncUploadsOnlyTheDirtyRanges) {
  for (MemoryKind host_kind : {MemoryKind::host, MemoryKind::pinned}) {
    Stream stream = Stream::create();
    auto a = MirroredArray::copy_of(iota_int32({10, 10}), device_mirror(host_kind));
    EXPECT_EQ(a.mirror().kind(), MemoryKind::device);
    a.sync(stream);
    stream.synchronize();
    EXPECT_EQ(values(a.mirror()), values(iota_int32({10, 10})));
    a.set<int32_t>({0, 0}, -1);
    a.assign({Slice{}, 4}, iota_int32({10}, 500));  // a column: ten ranges
    a.host().data_as<int32_t>()[99] = 12345;        // untracked: must not reach the mirror
    ASSERT_EQ(a.pending().size(), 11u);             // (0, 0) and (0, 4) are separate ranges
    a.sync(stream);
    stream.synchronize();
    EXPECT_EQ(a.counters().ranges_uploaded, 1u + 11u);
    EXPECT_EQ(a.counters().bytes_uploaded, 400u + 44u);
    auto expected = values(iota_int32({10, 10}));
    expected[0] = -1;
    for (int r = 0; r < 10; ++r) expected[r * 10 + 4] = 500 + r;
    EXPECT_EQ(values(a.mirror()), expected);
    // A view writes through the same tracking.
    MirroredArray v = a.view({Slice{5, 7}, Slice{5, 7}});
    v.fill<int32_t>(8);
    EXPECT_EQ(a.pending(), (std::vector<ByteInterval>{{220, 228}, {260, 268}}));
    v.sync(stream);
    stream.synchronize();
    EXPECT_EQ(values(v.mirror()), (std::vector<int32_t>{8, 8, 8, 8}));
  }
}

TEST_F(ApiGpu, MirroredArrayPullAndFlushFromADeviceMirror) {
  auto store = std::make_shared<test::CountingStore>();
  ArrayCreateOptions o;
  o.shape = {8, 8};
  o.data_type = kInt32;
  o.chunk_shape = {4, 4};
  Array array = Array::create(store, "a", o);
  array.write({}, iota_int32({8, 8}));
  store->reset();
  auto a = MirroredArray::load(array, {}, device_mirror());
  EXPECT_EQ(values(a.mirror()), values(iota_int32({8, 8})));
  // "Compute" on the device: overwrite row 6 of the mirror.
  NDBuffer row = a.mirror().indexed(0, 6);
  row.assign(iota_int32({8}, -100), Stream());
  Stream().synchronize();
  a.pull({6});
  EXPECT_EQ(a.get<int32_t>({6, 0}), -100);
  EXPECT_EQ(a.flush(), (std::vector<Index>{{1, 0}, {1, 1}}));
  EXPECT_EQ(store->keys_set(), (std::vector<std::string>{"a/c/1/0", "a/c/1/1"}));
  EXPECT_EQ(values(array.read({6})), values(iota_int32({8}, -100)));
}

}  // namespace
}  // namespace cuzarr
