#include "cuzarr/memory/buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/memory_resource.hpp"

namespace cuzarr {
namespace {

TEST(Buffer, DefaultIsEmptyHost) {
  Buffer b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.kind(), MemoryKind::host);
  EXPECT_TRUE(b.bytes().empty());
}

TEST(Buffer, AllocateGivesWritableAlignedHostMemory) {
  Buffer b = Buffer::allocate(1000);
  ASSERT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.kind(), MemoryKind::host);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
  std::memset(b.data(), 0xab, b.size());
  EXPECT_EQ(b.bytes()[999], std::byte{0xab});
  Buffer zero = Buffer::allocate(0);
  EXPECT_TRUE(zero.empty());
}

TEST(Buffer, CopyOfCopiesTheBytes) {
  std::string text("a\0b", 3);
  Buffer b = Buffer::copy_of(text);
  text[0] = 'z';
  EXPECT_EQ(b.as_string_view(), std::string_view("a\0b", 3));
  std::vector<std::byte> raw{std::byte{1}, std::byte{2}};
  Buffer c = Buffer::copy_of(std::span<const std::byte>(raw));
  raw[0] = std::byte{9};
  EXPECT_EQ(c.bytes()[0], std::byte{1});
  EXPECT_TRUE(Buffer::copy_of(std::string_view()).empty());
}

TEST(Buffer, CopiesShareTheBytes) {
  Buffer a = Buffer::copy_of(std::string_view("hello"));
  Buffer b = a;
  b.data()[0] = std::byte{'j'};
  EXPECT_EQ(a.as_string_view(), "jello");
}

TEST(Buffer, SliceIsAViewWithBoundsChecks) {
  Buffer a = Buffer::copy_of(std::string_view("0123456789"));
  Buffer s = a.slice(2, 3);
  EXPECT_EQ(s.as_string_view(), "234");
  s.data()[0] = std::byte{'X'};
  EXPECT_EQ(a.as_string_view(), "01X3456789");
  EXPECT_EQ(s.slice(1, 2).as_string_view(), "34");
  EXPECT_TRUE(a.slice(10, 0).empty());
  EXPECT_EQ(a.slice(0, 10).as_string_view(), a.as_string_view());
  EXPECT_THROW(a.slice(11, 0), InvalidArgumentError);
  EXPECT_THROW(a.slice(5, 6), InvalidArgumentError);
  EXPECT_THROW(a.slice(1, std::numeric_limits<size_t>::max()), InvalidArgumentError);
  EXPECT_THROW(s.slice(0, 4), InvalidArgumentError);
}

TEST(Buffer, SliceKeepsTheOwnerAlive) {
  Buffer s;
  {
    Buffer a = Buffer::copy_of(std::string_view("keep me"));
    s = a.slice(5, 2);
  }
  EXPECT_EQ(s.as_string_view(), "me");
}

TEST(Buffer, WrapKeepsTheGivenOwner) {
  auto owner = std::make_shared<std::string>("wrapped");
  std::weak_ptr<std::string> watch = owner;
  Buffer b = Buffer::wrap(owner->data(), owner->size(), MemoryKind::host, owner);
  owner.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(b.as_string_view(), "wrapped");
  b = Buffer();
  EXPECT_TRUE(watch.expired());
}

TEST(Buffer, CopyToHostIsIndependent) {
  Buffer a = Buffer::copy_of(std::string_view("abc"));
  Buffer b = a.copy_to(MemoryKind::host);
  b.data()[0] = std::byte{'z'};
  EXPECT_EQ(a.as_string_view(), "abc");
  EXPECT_EQ(b.as_string_view(), "zbc");
}

TEST(Buffer, DeviceBytesAreNotHostAccessible) {
  static char storage[4];
  Buffer device = Buffer::wrap(storage, sizeof storage, MemoryKind::device, nullptr);
  EXPECT_THROW(device.bytes(), InvalidArgumentError);
  EXPECT_THROW(device.as_string_view(), InvalidArgumentError);
  EXPECT_EQ(device.slice(1, 2).kind(), MemoryKind::device);
}

#ifndef CUZARR_HAVE_CUDA
TEST(Buffer, PinnedAndDeviceNeedCuda) {
  EXPECT_THROW(Buffer::allocate(16, MemoryKind::pinned), UnsupportedError);
  EXPECT_THROW(Buffer::allocate(16, MemoryKind::device), UnsupportedError);
  EXPECT_THROW(Buffer::copy_of(std::string_view("x")).copy_to(MemoryKind::device),
               UnsupportedError);
  char a = 'a', b = 'b';
  EXPECT_THROW(copy_bytes(&a, MemoryKind::device, &b, MemoryKind::host, 1), UnsupportedError);
  EXPECT_NO_THROW(copy_bytes(&a, MemoryKind::device, &b, MemoryKind::host, 0));
}
#endif

TEST(Buffer, CopyBytesBetweenHostAccessibleKinds) {
  char dst[4] = {}, src[4] = {'w', 'x', 'y', 'z'};
  copy_bytes(dst, MemoryKind::pinned, src, MemoryKind::host, 4);
  EXPECT_EQ(std::string_view(dst, 4), "wxyz");
}

TEST(MemoryKindNames, ParseAndName) {
  EXPECT_EQ(parse_memory_kind("host"), MemoryKind::host);
  EXPECT_EQ(parse_memory_kind("cpu"), MemoryKind::host);
  EXPECT_EQ(parse_memory_kind("pinned"), MemoryKind::pinned);
  EXPECT_EQ(parse_memory_kind("cuda"), MemoryKind::device);
  EXPECT_EQ(memory_kind_name(MemoryKind::device), "device");
  EXPECT_THROW(parse_memory_kind("gpu0"), InvalidArgumentError);
  EXPECT_TRUE(is_host_accessible(MemoryKind::pinned));
  EXPECT_FALSE(is_host_accessible(MemoryKind::device));
}

// Counts what passes through the host resource.
class CountingResource final : public MemoryResource {
 public:
  MemoryKind kind() const noexcept override { return MemoryKind::host; }
  void* allocate(size_t bytes, size_t alignment) override {
    ++allocations;
    return host_memory_resource()->allocate(bytes, alignment);
  }
  void deallocate(void* p, size_t bytes, size_t alignment) noexcept override {
    ++deallocations;
    host_memory_resource()->deallocate(p, bytes, alignment);
  }
  int allocations = 0, deallocations = 0;
};

TEST(MemoryResource, BuffersUseTheResourceSetForTheirKind) {
  auto counting = std::make_shared<CountingResource>();
  set_memory_resource(MemoryKind::host, counting);
  { Buffer b = Buffer::allocate(128); }
  set_memory_resource(MemoryKind::host, nullptr);
  EXPECT_EQ(counting->allocations, 1);
  EXPECT_EQ(counting->deallocations, 1);
  { Buffer b = Buffer::allocate(128); }
  EXPECT_EQ(counting->allocations, 1);
  EXPECT_EQ(get_memory_resource(MemoryKind::host), host_memory_resource());
  EXPECT_THROW(set_memory_resource(MemoryKind::device, counting), InvalidArgumentError);
}

}  // namespace
}  // namespace cuzarr
