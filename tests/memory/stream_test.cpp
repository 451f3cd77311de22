#include "cuzarr/memory/stream.hpp"

#include <gtest/gtest.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_array_interface.hpp"
#include "cuzarr/memory/cuda_device.hpp"
#include "memory_test_arrays.hpp"

namespace cuzarr {
namespace {

TEST(Stream, DefaultStreamIsNullAndSynchronizesWithoutADevice) {
  Stream s;
  EXPECT_TRUE(s.is_default());
  EXPECT_EQ(s.native(), nullptr);
  EXPECT_EQ(s, Stream());
  EXPECT_FALSE(Stream::per_thread().is_default());
  EXPECT_NE(Stream::per_thread(), s);
  if (cuda_device_count() == 0) {
    EXPECT_NO_THROW(s.synchronize());
  }
}

TEST(Stream, CreateNeedsCuda) {
  if (built_with_cuda()) GTEST_SKIP() << "this build has CUDA: covered by the gpu tests";
  EXPECT_THROW(Stream::create(), UnsupportedError);
}

TEST(StreamOrderedCopies, HostToHostCopiesWorkOnAnyBuild) {
  NDBuffer view = test::strided_view(MemoryKind::host, 5);
  NDBuffer copy = view.copy_to(MemoryKind::host, Stream());
  EXPECT_TRUE(copy.is_c_contiguous());
  EXPECT_EQ(test::int32_elements(copy), test::int32_elements(view));
  NDBuffer target = test::iota_int32({4, 3});
  target.permuted(std::vector<int64_t>{0, 1}).assign(view, Stream());
  EXPECT_EQ(test::int32_elements(target), test::int32_elements(view));
  Buffer b = Buffer::copy_of(std::string_view("bytes"));
  EXPECT_EQ(b.copy_to(MemoryKind::host, Stream()).as_string_view(), "bytes");
}

TEST(CudaArrayInterface, TypeStrings) {
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::boolean)), "|b1");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::int8)), "|i1");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::uint16)), "<u2");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::int64)), "<i8");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::float16)), "<f2");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::float32)), "<f4");
  EXPECT_EQ(array_interface_typestr(DataType(DataTypeKind::complex128)), "<c16");
  EXPECT_EQ(array_interface_typestr(DataType::from_name("r24")), "|V3");
}

TEST(CudaArrayInterface, NeedsDeviceAccessibleMemory) {
  EXPECT_THROW(cuda_array_interface(test::iota_int32({2})), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
