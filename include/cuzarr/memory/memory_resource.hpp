// Memory resources: where Buffers get their bytes. One resource per MemoryKind, settable by the
// user (like nvCOMP's set_device_allocator); the host resource is always available, pinned and
// device resources need CUDA.
#pragma once

#include <cstddef>
#include <memory>

#include "cuzarr/memory/memory_kind.hpp"

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
};

/// The default host resource (aligned operator new).
std::shared_ptr<MemoryResource> host_memory_resource();

/// The resource currently used for `kind`. For pinned/device without CUDA support, throws
/// UnsupportedError.
std::shared_ptr<MemoryResource> get_memory_resource(MemoryKind kind);
/// Replaces the resource for resource->kind(); nullptr restores the default for `kind`.
void set_memory_resource(MemoryKind kind, std::shared_ptr<MemoryResource> resource);

}  // namespace cuzarr
