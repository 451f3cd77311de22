#include "cuzarr/memory/ndbuffer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

const DataType kInt32 = DataType::from_name("int32");

// A C-contiguous int32 array holding 0, 1, 2, ...
NDBuffer iota(Shape shape) {
  NDBuffer a = NDBuffer::allocate(kInt32, std::move(shape));
  std::iota(a.data_as<int32_t>(), a.data_as<int32_t>() + a.size(), 0);
  return a;
}

int32_t at(const NDBuffer& a, const Index& index) {
  const std::byte* p = a.data();
  for (size_t d = 0; d < index.size(); ++d) p += index[d] * a.byte_strides()[d];
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Every element in C order of the view's index space.
std::vector<int32_t> elements(const NDBuffer& a) {
  std::vector<int32_t> out;
  if (a.size() == 0) return out;
  Index index(a.ndim(), 0);
  while (true) {
    out.push_back(at(a, index));
    size_t d = a.ndim();
    while (d > 0 && ++index[d - 1] == a.shape()[d - 1]) index[--d] = 0;
    if (d == 0) return out;
  }
}

std::span<const std::byte> bytes_of(const int32_t& v) { return std::as_bytes(std::span(&v, 1)); }

TEST(NDBuffer, AllocateIsCContiguous) {
  NDBuffer a = NDBuffer::allocate(kInt32, {2, 3, 4});
  EXPECT_EQ(a.byte_strides(), (std::vector<int64_t>{48, 16, 4}));
  EXPECT_EQ(a.size(), 24);
  EXPECT_EQ(a.nbytes(), 96);
  EXPECT_EQ(a.buffer().size(), 96u);
  EXPECT_EQ(a.ndim(), 3u);
  EXPECT_TRUE(a.is_c_contiguous());
  EXPECT_EQ(a.kind(), MemoryKind::host);
  EXPECT_EQ(NDBuffer::allocate(kInt32, {}).size(), 1);
  EXPECT_EQ(NDBuffer::allocate(kInt32, {3, 0}).nbytes(), 0);
}

TEST(NDBuffer, ConstructionChecksTheViewFitsItsBuffer) {
  Buffer b = Buffer::allocate(24);  // six int32
  EXPECT_NO_THROW(NDBuffer(b, kInt32, {2, 3}));
  EXPECT_THROW(NDBuffer(b, kInt32, {2, 4}), InvalidArgumentError);
  EXPECT_THROW(NDBuffer(b, kInt32, {2, 3}, {}, 4), InvalidArgumentError);
  EXPECT_NO_THROW(NDBuffer(b, kInt32, {5}, {}, 4));
  EXPECT_THROW(NDBuffer(b, kInt32, {2, 3}, {12}), InvalidArgumentError);  // strides per dimension
  // Negative strides: element 0 sits at the end, the others before it.
  EXPECT_NO_THROW(NDBuffer(b, kInt32, {6}, {-4}, 20));
  EXPECT_THROW(NDBuffer(b, kInt32, {6}, {-4}, 16), InvalidArgumentError);
  EXPECT_THROW(NDBuffer(b, kInt32, {2}, {4}, -4), InvalidArgumentError);
  // Broadcast and empty views.
  EXPECT_NO_THROW(NDBuffer(b, kInt32, {1000}, {0}));
  EXPECT_NO_THROW(NDBuffer(b, kInt32, {0, 1000}, {4, 4}, 1000));
  EXPECT_THROW(NDBuffer(b, kInt32, {int64_t{1} << 62, 4}, {4, 4}), InvalidArgumentError);
}

TEST(NDBuffer, Permuted) {
  NDBuffer a = iota({2, 3});
  NDBuffer t = a.permuted(std::vector<int64_t>{1, 0});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_FALSE(t.is_c_contiguous());
  EXPECT_EQ(elements(t), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(a.permuted(std::vector<int64_t>{0, 0}), InvalidArgumentError);
  EXPECT_THROW(a.permuted(std::vector<int64_t>{0}), InvalidArgumentError);
  EXPECT_THROW(a.permuted(std::vector<int64_t>{0, 2}), InvalidArgumentError);
}

TEST(NDBuffer, SlicedWithPositiveAndNegativeSteps) {
  NDBuffer a = iota({3, 4});
  EXPECT_EQ(elements(a.sliced(1, 1, 2, 2)), (std::vector<int32_t>{1, 3, 5, 7, 9, 11}));
  NDBuffer reversed = a.sliced(0, 2, -1, 3);
  EXPECT_EQ(elements(reversed), (std::vector<int32_t>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(elements(reversed.sliced(1, 3, -3, 2)), (std::vector<int32_t>{11, 8, 7, 4, 3, 0}));
  EXPECT_EQ(a.sliced(1, 0, 1, 0).size(), 0);
  EXPECT_THROW(a.sliced(1, 0, 2, 3), InvalidArgumentError);   // last index 4 is outside
  EXPECT_THROW(a.sliced(1, 1, -2, 2), InvalidArgumentError);  // last index -1 is outside
  EXPECT_THROW(a.sliced(0, 0, 0, 1), InvalidArgumentError);
  EXPECT_THROW(a.sliced(2, 0, 1, 1), InvalidArgumentError);
}

TEST(NDBuffer, Indexed) {
  NDBuffer a = iota({3, 4});
  EXPECT_EQ(elements(a.indexed(0, 2)), (std::vector<int32_t>{8, 9, 10, 11}));
  EXPECT_EQ(elements(a.indexed(1, 1)), (std::vector<int32_t>{1, 5, 9}));
  NDBuffer scalar = a.indexed(0, 1).indexed(0, 3);
  EXPECT_EQ(scalar.ndim(), 0u);
  EXPECT_EQ(elements(scalar), std::vector<int32_t>{7});
  EXPECT_THROW(a.indexed(0, 3), InvalidArgumentError);
  EXPECT_THROW(a.indexed(1, -1), InvalidArgumentError);
}

TEST(NDBuffer, Reshaped) {
  NDBuffer a = iota({2, 6});
  NDBuffer r = a.reshaped({3, 2, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(elements(r), elements(a));
  EXPECT_EQ(at(r, {2, 1, 0}), 10);
  EXPECT_THROW(a.reshaped({5, 2}), InvalidArgumentError);
  EXPECT_THROW(a.permuted(std::vector<int64_t>{1, 0}).reshaped({12}), InvalidArgumentError);
  // A contiguous sub-view (one row) reshapes with its offset kept.
  EXPECT_EQ(elements(a.indexed(0, 1).reshaped({2, 3})), (std::vector<int32_t>{6, 7, 8, 9, 10, 11}));
}

TEST(NDBuffer, AssignBetweenStridedViews) {
  NDBuffer a = iota({3, 4});
  NDBuffer out = NDBuffer::allocate(kInt32, {4, 3});
  out.assign(a.permuted(std::vector<int64_t>{1, 0}));
  EXPECT_EQ(elements(out), (std::vector<int32_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));

  // Reversed source into a strided destination (every other column of a wider array).
  NDBuffer wide = NDBuffer::allocate(kInt32, {3, 8});
  const int32_t minus_one = -1;
  wide.fill(bytes_of(minus_one));
  wide.sliced(1, 0, 2, 4).assign(a.sliced(0, 2, -1, 3).sliced(1, 3, -1, 4));
  EXPECT_EQ(elements(wide), (std::vector<int32_t>{11, -1, 10, -1, 9, -1, 8, -1,  //
                                                  7,  -1, 6,  -1, 5, -1, 4, -1,  //
                                                  3,  -1, 2,  -1, 1, -1, 0, -1}));

  // Into a reversed destination.
  NDBuffer back = NDBuffer::allocate(kInt32, {3, 4});
  back.sliced(1, 3, -1, 4).assign(a);
  EXPECT_EQ(elements(back), (std::vector<int32_t>{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));

  // Contiguous to contiguous with unit dimensions.
  NDBuffer with_units = NDBuffer::allocate(kInt32, {1, 3, 1, 4});
  with_units.assign(a.reshaped({1, 3, 1, 4}));
  EXPECT_EQ(elements(with_units), elements(a));
}

TEST(NDBuffer, AssignBroadcastsAZeroStrideSource) {
  const int32_t seven = 7;
  Buffer one = Buffer::copy_of(bytes_of(seven));
  NDBuffer out = iota({2, 3});
  out.assign(NDBuffer(one, kInt32, {2, 3}, {0, 0}));
  EXPECT_EQ(elements(out), std::vector<int32_t>(6, 7));
}

TEST(NDBuffer, AssignChecksShapes) {
  NDBuffer a = iota({3, 4});
  NDBuffer out = NDBuffer::allocate(kInt32, {4, 3});
  EXPECT_THROW(out.assign(a), InvalidArgumentError);
  EXPECT_THROW(out.assign(iota({12})), InvalidArgumentError);
  EXPECT_THROW(iota({2}).assign(NDBuffer::allocate(DataType::from_name("int64"), {2})),
               InvalidArgumentError);
  NDBuffer empty = NDBuffer::allocate(kInt32, {0, 4});
  EXPECT_NO_THROW(empty.assign(NDBuffer::allocate(kInt32, {0, 4})));
}

TEST(NDBuffer, FillContiguousAndStrided) {
  NDBuffer a = iota({3, 4});
  const int32_t five = 5, zero = 0;
  a.indexed(1, 2).fill(bytes_of(five));
  EXPECT_EQ(elements(a), (std::vector<int32_t>{0, 1, 5, 3, 4, 5, 5, 7, 8, 9, 5, 11}));
  a.sliced(0, 2, -2, 2).sliced(1, 3, -3, 2).fill(bytes_of(zero));
  EXPECT_EQ(elements(a), (std::vector<int32_t>{0, 1, 5, 0, 4, 5, 5, 7, 0, 9, 5, 0}));
  a.indexed(0, 1).fill(bytes_of(zero));
  EXPECT_EQ(elements(a), (std::vector<int32_t>{0, 1, 5, 0, 0, 0, 0, 0, 0, 9, 5, 0}));
  NDBuffer big = NDBuffer::allocate(kInt32, {1000});
  const int32_t pattern = 0x01020304;
  big.fill(bytes_of(pattern));
  EXPECT_EQ(elements(big), std::vector<int32_t>(1000, pattern));
  EXPECT_THROW(a.fill(std::as_bytes(std::span("ab", 2))), InvalidArgumentError);
}

TEST(NDBuffer, RawElementsOfThreeBytes) {
  NDBuffer r = NDBuffer::allocate(DataType::from_name("r24"), {2, 2});
  EXPECT_EQ(r.byte_strides(), (std::vector<int64_t>{6, 3}));
  const std::byte element[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  r.fill(element);
  EXPECT_EQ(r.data()[9], std::byte{1});
  EXPECT_EQ(r.data()[11], std::byte{3});
}

#ifndef CUZARR_HAVE_CUDA
TEST(NDBuffer, DeviceArraysNeedCuda) {
  EXPECT_THROW(NDBuffer::allocate(kInt32, {4}, MemoryKind::device), UnsupportedError);
  EXPECT_THROW(NDBuffer::allocate(kInt32, {4}, MemoryKind::pinned), UnsupportedError);
}
#endif

TEST(NDBuffer, HostOnlyOperationsRefuseDeviceViews) {
  static int32_t storage[4];
  NDBuffer device(Buffer::wrap(storage, sizeof storage, MemoryKind::device, nullptr), kInt32, {4});
  const int32_t one = 1;
  EXPECT_THROW(device.fill(bytes_of(one)), InvalidArgumentError);
  EXPECT_THROW(device.assign(iota({4})), InvalidArgumentError);
  EXPECT_THROW(iota({4}).assign(device), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
