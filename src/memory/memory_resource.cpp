#include "cuzarr/memory/memory_resource.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"

namespace cuzarr {
namespace {

// Allocations from this size up are mapped pages of their own, given back to the system when
// freed. (glibc's malloc raises its mmap threshold after large frees and then serves chunk-sized
// blocks from per-thread heaps that rarely shrink: a long read's resident memory would grow far
// past what it holds at any one time.)
constexpr size_t kMappedAllocationBytes = size_t{1} << 20;

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

bool is_mapped_allocation(size_t bytes, size_t alignment) {
  return bytes >= kMappedAllocationBytes && alignment <= page_size();
}

// Mapped blocks are sized in classes, eight per power of two (at most 12.5% more address space;
// pages never touched take no memory), so that blocks of similar sizes can be reused.
size_t mapped_size_class(size_t bytes) {
  const size_t step = std::max(std::bit_floor(bytes) / 8, page_size());
  return (bytes + step - 1) / step * step;
}

// Freed mapped blocks kept for reuse, up to kCachedBytes in all. The chunks of an array have one
// size (or, encoded, similar sizes): a read reuses the pages of the chunks before it instead of
// faulting in fresh zeroed pages for every chunk, and the bound keeps the resident memory small.
// A block that does not fit evicts the blocks freed longest ago (sizes of an array read earlier
// would otherwise fill the cache for good), and reuse takes the block of the size freed last
// (its bytes are the likeliest to be in the CPU's caches still).
class MappedBlockCache {
 public:
  MappedBlockCache() = default;
  MappedBlockCache(const MappedBlockCache&) = delete;
  MappedBlockCache& operator=(const MappedBlockCache&) = delete;
  static constexpr size_t kCachedBytes = size_t{64} << 20;
  static constexpr size_t kHugePageBytes = size_t{2} << 20;

  void* allocate(size_t size) {
    {
      std::lock_guard lock(mutex_);
      // Blocks of one size sit in the order they were freed: take the last.
      auto it = blocks_.upper_bound(size);
      if (it != blocks_.begin() && (--it)->first == size) {
        void* block = it->second.block;
        blocks_.erase(it);
        cached_ -= size;
        return block;
      }
    }
    void* block = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    // Transparent huge pages where the system allows them on request: a large array then takes
    // one page fault per 2 MiB instead of one per 4 KiB. Advice only; failure changes nothing.
    if (size >= kHugePageBytes) ::madvise(block, size, MADV_HUGEPAGE);
#endif
    return block;
  }

  void deallocate(void* block, size_t size) noexcept {
    while (size <= kCachedBytes) {
      Cached evicted{};
      size_t evicted_size = 0;
      {
        std::lock_guard lock(mutex_);
        if (cached_ + size <= kCachedBytes) {
          try {
            blocks_.emplace(size, Cached{block, ++clock_});
            cached_ += size;
            return;
          } catch (const std::bad_alloc&) {  // no room to remember it: give it back
            break;
          }
        }
        const auto oldest = std::min_element(
            blocks_.begin(), blocks_.end(),
            [](const auto& a, const auto& b) { return a.second.freed < b.second.freed; });
        if (oldest == blocks_.end()) break;
        evicted = oldest->second;
        evicted_size = oldest->first;
        cached_ -= evicted_size;
        blocks_.erase(oldest);
      }
      ::munmap(evicted.block, evicted_size);
    }
    ::munmap(block, size);
  }

  ~MappedBlockCache() {
    for (const auto& [size, cached] : blocks_) ::munmap(cached.block, size);
  }

 private:
  struct Cached {
    void* block;
    uint64_t freed;  // when it was freed, in deallocations
  };
  std::mutex mutex_;
  std::multimap<size_t, Cached> blocks_;  // by size; equal sizes in the order freed
  size_t cached_ = 0;
  uint64_t clock_ = 0;
};

class HostMemoryResource final : public MemoryResource {
 public:
  MemoryKind kind() const noexcept override { return MemoryKind::host; }
  void* allocate(size_t bytes, size_t alignment) override {
    if (is_mapped_allocation(bytes, alignment)) return mapped_.allocate(mapped_size_class(bytes));
    return ::operator new(bytes == 0 ? 1 : bytes, std::align_val_t(alignment));
  }
  void deallocate(void* pointer, size_t bytes, size_t alignment) noexcept override {
    if (is_mapped_allocation(bytes, alignment)) {
      mapped_.deallocate(pointer, mapped_size_class(bytes));
      return;
    }
    ::operator delete(pointer, std::align_val_t(alignment));
  }
  // Asynchronous copies from pageable memory have read it when cudaMemcpyAsync returns, and
  // copies into it finish before the call returns, so host memory can go back at once.
  void deallocate_async(void* pointer, size_t bytes, size_t alignment, Stream) noexcept override {
    deallocate(pointer, bytes, alignment);
  }

 private:
  MappedBlockCache mapped_;
};

std::mutex g_mutex;
std::shared_ptr<MemoryResource> g_resources[3];

std::shared_ptr<MemoryResource> default_resource(MemoryKind kind) {
  if (kind == MemoryKind::host) return host_memory_resource();
  if (built_with_cuda()) {
    if (cuda_device_count() == 0) {
      throw UnsupportedError(fmt::format("{} memory requested, but {}", memory_kind_name(kind),
                                         cuda_unavailable_reason()));
    }
    if (kind == MemoryKind::pinned) return default_pinned_memory_resource();
    return default_device_memory_resource();
  }
  throw UnsupportedError(
      fmt::format("{} memory requested, but this build of cuzarr has no CUDA support (configure "
                  "with CUZARR_CUDA=ON)",
                  memory_kind_name(kind)));
}

}  // namespace

void* MemoryResource::allocate_async(size_t bytes, size_t alignment, Stream) {
  return allocate(bytes, alignment);
}

void MemoryResource::deallocate_async(void* pointer, size_t bytes, size_t alignment,
                                      Stream stream) noexcept {
  try {
    stream.synchronize();
  } catch (...) {
    // A stream in an error state: nothing queued on it will run any more.
  }
  deallocate(pointer, bytes, alignment);
}

std::shared_ptr<MemoryResource> host_memory_resource() {
  static auto resource = std::make_shared<HostMemoryResource>();
  return resource;
}

std::shared_ptr<MemoryResource> get_memory_resource(MemoryKind kind) {
  {
    std::lock_guard lock(g_mutex);
    if (auto& r = g_resources[static_cast<int>(kind)]) return r;
  }
  return default_resource(kind);
}

void set_memory_resource(MemoryKind kind, std::shared_ptr<MemoryResource> resource) {
  if (resource && resource->kind() != kind) {
    throw InvalidArgumentError(fmt::format("memory resource of kind {} set for kind {}",
                                           memory_kind_name(resource->kind()),
                                           memory_kind_name(kind)));
  }
  std::lock_guard lock(g_mutex);
  g_resources[static_cast<int>(kind)] = std::move(resource);
}

}  // namespace cuzarr
