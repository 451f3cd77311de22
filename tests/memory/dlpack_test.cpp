#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/dlpack_interop.hpp"
#include "memory_test_arrays.hpp"

namespace cuzarr {
namespace {

using test::int32_elements;
using test::iota_int32;
using test::kInt32;

TEST(DLPack, DataTypesMapBothWays) {
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64", "float16", "float32", "float64", "complex64", "complex128"}) {
    const DataType dtype = DataType::from_name(name);
    const DLDataType dl = to_dlpack_data_type(dtype);
    EXPECT_EQ(dl.bits, dtype.size() * 8) << name;
    EXPECT_EQ(dl.lanes, 1) << name;
    EXPECT_EQ(from_dlpack_data_type(dl), dtype) << name;
  }
  EXPECT_EQ(to_dlpack_data_type(DataType(DataTypeKind::boolean)).code, kDLBool);
  EXPECT_EQ(to_dlpack_data_type(DataType(DataTypeKind::uint16)).code, kDLUInt);
  EXPECT_EQ(to_dlpack_data_type(DataType(DataTypeKind::complex64)).code, kDLComplex);
  try {
    to_dlpack_data_type(DataType::from_name("r24"));
    FAIL();
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("r24"), std::string::npos) << e.what();
  }
  EXPECT_EQ(from_dlpack_data_type({kDLBfloat, 16, 1}), DataType(DataTypeKind::bfloat16));
  EXPECT_EQ(to_dlpack_data_type(DataType(DataTypeKind::bfloat16)).code, kDLBfloat);
  EXPECT_THROW(from_dlpack_data_type({kDLBfloat, 32, 1}), UnsupportedError);
  EXPECT_THROW(to_dlpack_data_type(DataType::from_name("string")), UnsupportedError);
  EXPECT_THROW(from_dlpack_data_type({kDLFloat, 32, 4}), UnsupportedError);
  EXPECT_THROW(from_dlpack_data_type({kDLInt, 24, 1}), UnsupportedError);
}

TEST(DLPack, ExportDescribesAStridedHostView) {
  NDBuffer view = test::strided_view();
  DLManagedTensorVersioned* t = to_dlpack_versioned(view);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->flags, 0u);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.data, view.data());
  EXPECT_EQ(t->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(t->dl_tensor.shape[0], 4);
  EXPECT_EQ(t->dl_tensor.shape[1], 3);
  // Rows reversed (-6 elements), every other column (2 elements).
  EXPECT_EQ(t->dl_tensor.strides[0], -6);
  EXPECT_EQ(t->dl_tensor.strides[1], 2);
  t->deleter(t);
}

TEST(DLPack, ExportKeepsTheBufferAliveUntilTheDeleter) {
  std::weak_ptr<int> alive;
  DLManagedTensorVersioned* t = nullptr;
  {
    auto owner = std::make_shared<int>(7);
    alive = owner;
    std::vector<int32_t> values{1, 2, 3, 4, 5, 6};
    auto storage = std::make_shared<std::vector<int32_t>>(values);
    std::shared_ptr<const void> keep(storage, storage.get());
    // The Buffer's owner also owns `owner`, so `alive` tracks the Buffer's lifetime.
    auto both =
        std::make_shared<std::pair<std::shared_ptr<int>, std::shared_ptr<const void>>>(owner, keep);
    Buffer b = Buffer::wrap(storage->data(), 24, MemoryKind::host, both);
    t = to_dlpack_versioned(NDBuffer(b, kInt32, {2, 3}), /*read_only=*/true);
  }
  EXPECT_FALSE(alive.expired());
  EXPECT_EQ(t->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
  EXPECT_EQ(static_cast<int32_t*>(t->dl_tensor.data)[5], 6);
  t->deleter(t);
  EXPECT_TRUE(alive.expired());
}

TEST(DLPack, RoundTripSharesTheBytesAndKeepsStrides) {
  NDBuffer view = test::strided_view(MemoryKind::host, 100);
  const auto expected = int32_elements(view);
  NDBuffer back = from_dlpack(to_dlpack_versioned(view));
  EXPECT_EQ(back.kind(), MemoryKind::host);
  EXPECT_EQ(back.dtype(), kInt32);
  EXPECT_EQ(back.shape(), view.shape());
  EXPECT_EQ(back.byte_strides(), view.byte_strides());
  EXPECT_EQ(back.data(), view.data());
  EXPECT_EQ(int32_elements(back), expected);
  // Writes through one are seen through the other: no copy was made.
  *back.data_as<int32_t>() = -1;
  EXPECT_EQ(*view.data_as<int32_t>(), -1);

  NDBuffer legacy = from_dlpack(to_dlpack(view));
  EXPECT_EQ(int32_elements(legacy), int32_elements(view));
  EXPECT_EQ(legacy.byte_strides(), view.byte_strides());

  NDBuffer scalar = iota_int32({}, 42);
  EXPECT_EQ(int32_elements(from_dlpack(to_dlpack_versioned(scalar))), std::vector<int32_t>{42});
  NDBuffer empty = iota_int32({3, 0});
  EXPECT_EQ(from_dlpack(to_dlpack_versioned(empty)).shape(), (Shape{3, 0}));
}

// A producer's tensor whose deleter counts its calls.
struct CountedTensor {
  std::vector<int32_t> values{10, 11, 12, 13, 14, 15};
  std::vector<int64_t> shape{2, 3};
  std::vector<int64_t> strides;  // empty: NULL (C order)
  int deleted = 0;
  DLManagedTensorVersioned managed{};

  explicit CountedTensor(DLDataType dtype = {kDLInt, 32, 1}) {
    managed.version = {1, 0};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensorVersioned* self) {
      ++static_cast<CountedTensor*>(self->manager_ctx)->deleted;
    };
    managed.dl_tensor.data = values.data();
    managed.dl_tensor.device = {kDLCPU, 0};
    managed.dl_tensor.ndim = 2;
    managed.dl_tensor.dtype = dtype;
    managed.dl_tensor.shape = shape.data();
    managed.dl_tensor.strides = nullptr;
  }
};

TEST(DLPack, ImportCallsTheProducersDeleterExactlyOnce) {
  CountedTensor producer;
  {
    NDBuffer a = from_dlpack(&producer.managed);
    NDBuffer copy = a;
    NDBuffer view = a.indexed(0, 1);
    a = NDBuffer();
    EXPECT_EQ(producer.deleted, 0);
    EXPECT_EQ(int32_elements(view), (std::vector<int32_t>{13, 14, 15}));
    EXPECT_EQ(int32_elements(copy), (std::vector<int32_t>{10, 11, 12, 13, 14, 15}));
  }
  EXPECT_EQ(producer.deleted, 1);
}

TEST(DLPack, ImportHonoursByteOffsetAndElementStrides) {
  CountedTensor producer;
  // The transpose of the last two columns: element (i, j) is values[1 + i + 3 * j].
  producer.shape = {2, 2};
  producer.strides = {1, 3};
  producer.managed.dl_tensor.shape = producer.shape.data();
  producer.managed.dl_tensor.strides = producer.strides.data();
  producer.managed.dl_tensor.byte_offset = 4;
  NDBuffer a = from_dlpack(&producer.managed);
  EXPECT_EQ(int32_elements(a), (std::vector<int32_t>{11, 14, 12, 15}));
  a = NDBuffer();
  EXPECT_EQ(producer.deleted, 1);
}

TEST(DLPack, FailedImportsStillCallTheDeleterOnce) {
  {
    CountedTensor bfloat({kDLBfloat, 32, 1});
    EXPECT_THROW(from_dlpack(&bfloat.managed), UnsupportedError);
    EXPECT_EQ(bfloat.deleted, 1);
  }
  {
    CountedTensor future;
    future.managed.version = {2, 0};
    EXPECT_THROW(from_dlpack(&future.managed), UnsupportedError);
    EXPECT_EQ(future.deleted, 1);
  }
  {
    CountedTensor opencl;
    opencl.managed.dl_tensor.device = {kDLOpenCL, 0};
    EXPECT_THROW(from_dlpack(&opencl.managed), UnsupportedError);
    EXPECT_EQ(opencl.deleted, 1);
  }
  {
    CountedTensor read_only;
    read_only.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    EXPECT_THROW(from_dlpack(&read_only.managed), InvalidArgumentError);
    EXPECT_EQ(read_only.deleted, 1);
  }
  {
    CountedTensor read_only;
    read_only.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    EXPECT_EQ(from_dlpack(&read_only.managed, /*allow_read_only=*/true).size(), 6);
    EXPECT_EQ(read_only.deleted, 1);
  }
  EXPECT_THROW(from_dlpack(static_cast<DLManagedTensorVersioned*>(nullptr)), InvalidArgumentError);
}

TEST(DLPack, ExportRejectsStridesThatAreNotWholeElements) {
  // int32 elements 2 bytes apart cannot be described in element strides.
  Buffer bytes = Buffer::allocate(64);
  NDBuffer odd(bytes, kInt32, {4}, {2}, 0);
  EXPECT_THROW(to_dlpack_versioned(odd), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
