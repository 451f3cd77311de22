// The default host memory resource keeps freed large blocks for reuse: the block of a size freed
// last comes back first, and blocks of a new size displace those freed longest ago instead of
// being given back (so their pages need not be faulted in and zeroed again).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>
#include <vector>

#include "cuzarr/memory/memory_resource.hpp"

namespace cuzarr {
namespace {

constexpr size_t kAlignment = 64;
// Below 2 MiB (no transparent huge pages), so a fresh block faults in page by page.
constexpr size_t kOldSize = size_t{1} << 20;
constexpr size_t kNewSize = (size_t{1} << 20) + (size_t{1} << 18);

long minor_faults_of_this_thread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// Page faults taken writing every byte of a new block of `size` bytes, then freeing it.
long faults_to_fill(MemoryResource& resource, size_t size) {
  void* p = resource.allocate(size, kAlignment);
  const long before = minor_faults_of_this_thread();
  std::memset(p, 0x3C, size);
  const long faults = minor_faults_of_this_thread() - before;
  resource.deallocate(p, size, kAlignment);
  return faults;
}

TEST(HostBlockReuse, TheBlockFreedLastComesBackFirst) {
  auto resource = host_memory_resource();
  void* a = resource->allocate(kOldSize, kAlignment);
  void* b = resource->allocate(kOldSize, kAlignment);
  ASSERT_NE(a, b);
  resource->deallocate(a, kOldSize, kAlignment);
  resource->deallocate(b, kOldSize, kAlignment);
  void* again = resource->allocate(kOldSize, kAlignment);
  EXPECT_EQ(again, b);
  resource->deallocate(again, kOldSize, kAlignment);
}

TEST(HostBlockReuse, ANewSizeDisplacesBlocksFreedLongAgo) {
  auto resource = host_memory_resource();
  // Fill the cache with blocks of the old size (64 MiB in all), touched so they are resident.
  std::vector<void*> old_blocks;
  for (size_t i = 0; i < 64; ++i) {
    old_blocks.push_back(resource->allocate(kOldSize, kAlignment));
    std::memset(old_blocks.back(), 1, kOldSize);
  }
  for (void* p : old_blocks) resource->deallocate(p, kOldSize, kAlignment);
  // The first block of the new size is fresh; once freed it must stay cached, not be unmapped.
  const long first = faults_to_fill(*resource, kNewSize);
  EXPECT_GT(first, 0);
  const long second = faults_to_fill(*resource, kNewSize);
  EXPECT_EQ(second, 0) << "the freed block was given back instead of reused (" << first
                       << " faults the first time)";
}

}  // namespace
}  // namespace cuzarr
