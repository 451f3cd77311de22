#include "cuzarr/memory/memory_resource.hpp"

#include <fmt/format.h>

#include <mutex>
#include <new>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"

namespace cuzarr {
namespace {

class HostMemoryResource final : public MemoryResource {
 public:
  MemoryKind kind() const noexcept override { return MemoryKind::host; }
  void* allocate(size_t bytes, size_t alignment) override {
    return ::operator new(bytes == 0 ? 1 : bytes, std::align_val_t(alignment));
  }
  void deallocate(void* pointer, size_t, size_t alignment) noexcept override {
    ::operator delete(pointer, std::align_val_t(alignment));
  }
  // Asynchronous copies from pageable memory have read it when cudaMemcpyAsync returns, and
  // copies into it finish before the call returns, so host memory can go back at once.
  void deallocate_async(void* pointer, size_t bytes, size_t alignment, Stream) noexcept override {
    deallocate(pointer, bytes, alignment);
  }
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
