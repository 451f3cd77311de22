// Plugging an application's allocator into cuzarr with two callbacks (like nvCOMP's
// set_device_allocator): every Buffer of that kind then gets its bytes from them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "cuzarr/memory/memory_resource.hpp"

namespace cuzarr {

/// Returns `bytes` bytes aligned to `alignment` (a power of two, at most 256), or nullptr / throws
/// when it cannot.
using AllocateCallback = std::function<void*(size_t bytes, size_t alignment)>;
/// Frees memory returned by the matching AllocateCallback; `bytes` is the size that was asked for.
using DeallocateCallback = std::function<void(void* pointer, size_t bytes)>;

/// A MemoryResource of `kind` calling the two callbacks. Its allocate() throws std::bad_alloc when
/// the callback returns nullptr and InvalidArgumentError when the pointer is not aligned as asked.
/// Throws InvalidArgumentError when either callback is empty.
std::shared_ptr<MemoryResource> make_callback_memory_resource(MemoryKind kind,
                                                              AllocateCallback allocate,
                                                              DeallocateCallback deallocate);

/// Installs the callbacks as the resource for host / pinned / device memory; two empty callbacks
/// restore the default resource, one empty callback throws InvalidArgumentError. Buffers allocated
/// before the call keep the resource that made them.
void set_host_allocator(AllocateCallback allocate, DeallocateCallback deallocate);
void set_pinned_allocator(AllocateCallback allocate, DeallocateCallback deallocate);
void set_device_allocator(AllocateCallback allocate, DeallocateCallback deallocate);

}  // namespace cuzarr
