// The default host memory resource: small blocks from the heap, large blocks (1 MiB and up) as
// page-aligned mappings of their own, each usable over its whole size.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/memory_resource.hpp"

namespace cuzarr {
namespace {

TEST(HostMemoryResource, LargeBlocksArePageAlignedAndUsable) {
  auto resource = host_memory_resource();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  for (size_t size : {size_t{1} << 20, (size_t{3} << 20) + 17}) {
    void* p = resource->allocate(size, 64);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % page, 0u) << size;
    std::memset(p, 0xAB, size);
    EXPECT_EQ(static_cast<unsigned char*>(p)[size - 1], 0xAB);
    resource->deallocate(p, size, 64);
  }
}

TEST(HostMemoryResource, SmallBlocksKeepTheRequestedAlignment) {
  auto resource = host_memory_resource();
  for (size_t alignment : {size_t{8}, size_t{64}, size_t{256}}) {
    void* p = resource->allocate(1000, alignment);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
    resource->deallocate(p, 1000, alignment);
  }
}

TEST(HostMemoryResource, BuffersOfEverySizeHoldTheirBytes) {
  for (size_t size :
       {size_t{0}, size_t{1}, (size_t{1} << 20) - 1, size_t{1} << 20, size_t{5} << 20}) {
    Buffer b = Buffer::allocate(size);
    EXPECT_EQ(b.size(), size);
    if (size == 0) continue;
    std::memset(b.data(), 0x5C, size);
    Buffer copy = b.copy_to(MemoryKind::host);
    EXPECT_EQ(std::memcmp(copy.data(), b.data(), size), 0);
  }
}

}  // namespace
}  // namespace cuzarr
