// Pooled CUDA memory resources, the defaults for MemoryKind::pinned and MemoryKind::device when
// cuzarr is built with CUDA and a device is present.
//
// Ordering contract: allocate()/deallocate() are ordered on the legacy default stream, which every
// blocking stream (Stream::create() makes blocking streams) is ordered with; memory given back
// while blocking streams still use it is not reused before that work finishes. Work on
// non-blocking streams must use allocate_async()/deallocate_async() with its stream.
#pragma once

#include <cstddef>
#include <memory>

#include "cuzarr/memory/memory_resource.hpp"

namespace cuzarr {

/// Page-locked host memory, cached by size class (eighths of powers of two; a request with no free
/// block of its class takes one of a class up to a quarter larger). Blocks of 4 MiB and more are
/// memory of the pool's own, 2 MiB aligned with transparent huge pages advised, registered with
/// cudaHostRegister (faster to pin than cudaMallocHost's); smaller ones come from cudaMallocHost. A
/// freed block is handed out again only once the stream work queued before its release has finished
/// (an event is recorded at release); unless the blocks still in use alone fill the cache's
/// bound, an allocation does not wait for that work but allocates a new block, so the cache
/// grows to what the work in flight holds.
/// Thread-safe. Constructors throw UnsupportedError without CUDA.
class PinnedPoolMemoryResource final : public MemoryResource {
 public:
  /// The cache's bound, without WorkingSet::follow.
  static constexpr size_t kDefaultMaxCachedBytes = size_t{2} << 30;
  /// Whether the cache's bound grows to the most bytes the callers have had in use at once.
  enum class WorkingSet { fixed, follow };

  /// Keeps freed blocks for reuse, up to kDefaultMaxCachedBytes or, when more was in use at once
  /// (the staging batches in flight of a large read into device memory), up to that much and a
  /// quarter more, at most a quarter of physical memory: a read that ends holding what it pinned
  /// reads again without pinning more.
  PinnedPoolMemoryResource();
  /// Keeps at most `max_cached_bytes` of freed blocks for reuse (WorkingSet::follow: or the most
  /// bytes in use at once, as above): a release that finds more cached gives blocks whose work is
  /// done back to CUDA (blocks still in use stay until a later release finds them done).
  explicit PinnedPoolMemoryResource(size_t max_cached_bytes,
                                    WorkingSet working_set = WorkingSet::fixed);
  ~PinnedPoolMemoryResource() override;

  MemoryKind kind() const noexcept override { return MemoryKind::pinned; }
  /// Alignment up to 4096 bytes; throws CudaError when cudaMallocHost fails.
  void* allocate(size_t bytes, size_t alignment) override;
  void deallocate(void* pointer, size_t bytes, size_t alignment) noexcept override;
  void deallocate_async(void* pointer, size_t bytes, size_t alignment,
                        Stream stream) noexcept override;

  /// Bytes held in the cache (freed, not yet given back to CUDA).
  size_t cached_bytes() const;
  /// Gives every cached block back to CUDA (waiting for their pending stream work).
  void release_cached();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Device memory from a CUDA memory pool (cudaMallocFromPoolAsync / cudaFreeAsync) of the device
/// current at construction, which keeps freed memory for reuse (release threshold: unlimited).
/// Allocations are 256-byte aligned. Thread-safe. Constructors throw UnsupportedError without
/// CUDA, CudaError when the pool cannot be made.
class DevicePoolMemoryResource final : public MemoryResource {
 public:
  DevicePoolMemoryResource();
  ~DevicePoolMemoryResource() override;

  MemoryKind kind() const noexcept override { return MemoryKind::device; }
  /// Throws CudaError when the device is out of memory, InvalidArgumentError for alignment > 256.
  void* allocate(size_t bytes, size_t alignment) override;
  void deallocate(void* pointer, size_t bytes, size_t alignment) noexcept override;
  void* allocate_async(size_t bytes, size_t alignment, Stream stream) override;
  void deallocate_async(void* pointer, size_t bytes, size_t alignment,
                        Stream stream) noexcept override;

  /// The device the pool belongs to.
  int device() const noexcept;
  /// Bytes the pool has reserved from the device (in use plus cached).
  size_t reserved_bytes() const;
  /// Bytes handed out and not yet freed.
  size_t used_bytes() const;
  /// Returns cached memory to the device, keeping at least `keep_bytes` reserved.
  void trim(size_t keep_bytes = 0);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The process-wide default pinned pool (made on first use, never destroyed so that it outlives
/// every Buffer). Throws UnsupportedError without CUDA.
std::shared_ptr<PinnedPoolMemoryResource> default_pinned_memory_resource();
/// The process-wide default device pool for the device current at first use. Throws
/// UnsupportedError without CUDA.
std::shared_ptr<DevicePoolMemoryResource> default_device_memory_resource();

}  // namespace cuzarr
