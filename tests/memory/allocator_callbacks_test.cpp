#include "cuzarr/memory/allocator_callbacks.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <new>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/cuda_device.hpp"

namespace cuzarr {
namespace {

// Restores the default host resource when a test ends, whatever happens.
struct RestoreHostAllocator {
  ~RestoreHostAllocator() { set_host_allocator(nullptr, nullptr); }
};

TEST(AllocatorCallbacks, HostBuffersComeFromTheCallbacks) {
  RestoreHostAllocator restore;
  std::map<void*, size_t> live;
  size_t alignment_seen = 0;
  set_host_allocator(
      [&](size_t bytes, size_t alignment) {
        alignment_seen = alignment;
        void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
        live[p] = bytes;
        return p;
      },
      [&](void* p, size_t bytes) {
        ASSERT_EQ(live.at(p), bytes);
        live.erase(p);
        std::free(p);
      });
  {
    Buffer a = Buffer::allocate(100);
    Buffer b = Buffer::copy_of(std::string_view("hello"));
    EXPECT_EQ(live.size(), 2u);
    EXPECT_EQ(live.at(a.data()), 100u);
    EXPECT_EQ(b.as_string_view(), "hello");
    EXPECT_GE(alignment_seen, alignof(std::max_align_t));
  }
  EXPECT_TRUE(live.empty());
  set_host_allocator(nullptr, nullptr);
  Buffer c = Buffer::allocate(10);  // the default resource again
  EXPECT_TRUE(live.empty());
}

TEST(AllocatorCallbacks, NullAndMisalignedPointersAreErrors) {
  RestoreHostAllocator restore;
  int frees = 0;
  set_host_allocator([](size_t, size_t) -> void* { return nullptr; },
                     [&](void*, size_t) { ++frees; });
  EXPECT_THROW(Buffer::allocate(10), std::bad_alloc);
  alignas(256) static std::byte storage[512];
  set_host_allocator([](size_t, size_t alignment) -> void* { return storage + alignment / 2; },
                     [&](void*, size_t) { ++frees; });
  try {
    Buffer::allocate(10);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("not aligned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(frees, 1);  // the misaligned pointer was handed back
}

TEST(AllocatorCallbacks, BothCallbacksOrNeither) {
  EXPECT_THROW(set_device_allocator([](size_t, size_t) -> void* { return nullptr; }, nullptr),
               InvalidArgumentError);
  EXPECT_THROW(make_callback_memory_resource(MemoryKind::pinned, nullptr, [](void*, size_t) {}),
               InvalidArgumentError);
  EXPECT_NO_THROW(set_pinned_allocator(nullptr, nullptr));
}

TEST(AllocatorCallbacks, DeviceCallbacksNeedNoDevice) {
  // The resource layer does not care where the bytes come from; here they are host bytes.
  std::map<void*, size_t> live;
  set_device_allocator(
      [&](size_t bytes, size_t alignment) {
        void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
        live[p] = bytes;
        return p;
      },
      [&](void* p, size_t) {
        live.erase(p);
        std::free(p);
      });
  {
    Buffer d = Buffer::allocate(32, MemoryKind::device);
    EXPECT_EQ(d.kind(), MemoryKind::device);
    EXPECT_EQ(live.size(), 1u);
    EXPECT_THROW(d.bytes(), InvalidArgumentError);
  }
  EXPECT_TRUE(live.empty());
  set_device_allocator(nullptr, nullptr);
}

TEST(MemoryResources, DeviceRequestsWithoutADeviceExplainWhy) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  for (MemoryKind kind : {MemoryKind::pinned, MemoryKind::device}) {
    try {
      Buffer::allocate(16, kind);
      FAIL() << memory_kind_name(kind);
    } catch (const UnsupportedError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(memory_kind_name(kind)), std::string::npos) << message;
      EXPECT_NE(message.find(built_with_cuda() ? "no CUDA device" : "no CUDA support"),
                std::string::npos)
          << message;
    }
  }
  EXPECT_FALSE(cuda_unavailable_reason().empty());
}

}  // namespace
}  // namespace cuzarr
