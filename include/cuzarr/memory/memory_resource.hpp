// Memory resources: where Buffers get their bytes. One resource per MemoryKind, settable by the
// user (like nvCOMP's set_device_allocator); the host resource is always available, pinned and
// device resources need CUDA. With CUDA and a device, the defaults for pinned and device memory are
// pools (cuda_memory_resources.hpp).
#pragma once

#include <cstddef>
#include <memory>

#include "cuzarr/memory/memory_kind.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

/// Allocates and frees memory of one kind.
class MemoryResource {
 public:
  virtual ~MemoryResource() = default;
  /// The kind of memory this resource hands out.
  virtual MemoryKind kind() const noexcept = 0;
  /// Returns `bytes` bytes aligned to `alignment`; never null for bytes > 0. Throws on failure.
  virtual void* allocate(size_t bytes, size_t alignment) = 0;
  /// Frees memory from allocate() with the same size and alignment.
  virtual void deallocate(void* pointer, size_t bytes, size_t alignment) noexcept = 0;

  /// Stream-ordered allocation: the memory may be used by work queued on `stream` after this call.
  /// The default calls allocate(). Throws like allocate().
  virtual void* allocate_async(size_t bytes, size_t alignment, Stream stream);
  /// Stream-ordered free: the memory is reused only after the work already queued on `stream`.
  /// The default synchronizes `stream`, then calls deallocate().
  virtual void deallocate_async(void* pointer, size_t bytes, size_t alignment,
                                Stream stream) noexcept;
};

/// The default host resource (aligned operator new).
std::shared_ptr<MemoryResource> host_memory_resource();

/// The resource currently used for `kind`. For pinned/device without CUDA support, throws
/// UnsupportedError.
std::shared_ptr<MemoryResource> get_memory_resource(MemoryKind kind);
/// Replaces the resource for resource->kind(); nullptr restores the default for `kind`.
void set_memory_resource(MemoryKind kind, std::shared_ptr<MemoryResource> resource);

}  // namespace cuzarr
