#include <fmt/format.h>

#include <cstdint>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_memory_resources.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/cuda_check.hpp"
#endif

namespace cuzarr {

#if CUZARR_HAVE_CUDA

namespace {
constexpr size_t kPoolAlignment = 256;  // cudaMallocAsync's guaranteed alignment
}

struct DevicePoolMemoryResource::State {
  int device = 0;
  cudaMemPool_t pool = nullptr;
};

DevicePoolMemoryResource::DevicePoolMemoryResource() : state_(std::make_unique<State>()) {
  CUZARR_CUDA_CHECK(cudaGetDevice(&state_->device));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = state_->device;
  CUZARR_CUDA_CHECK(cudaMemPoolCreate(&state_->pool, &props));
  // Keep freed memory in the pool instead of returning it at every synchronization.
  uint64_t threshold = UINT64_MAX;
  CUZARR_CUDA_CHECK(
      cudaMemPoolSetAttribute(state_->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

DevicePoolMemoryResource::~DevicePoolMemoryResource() {
  // Outstanding allocations keep the pool's memory until they are freed (cudaMemPoolDestroy).
  if (state_ && state_->pool) cudaMemPoolDestroy(state_->pool);
}

void* DevicePoolMemoryResource::allocate(size_t bytes, size_t alignment) {
  return allocate_async(bytes, alignment, Stream::wrap(cudaStreamLegacy));
}

void DevicePoolMemoryResource::deallocate(void* pointer, size_t bytes, size_t alignment) noexcept {
  deallocate_async(pointer, bytes, alignment, Stream::wrap(cudaStreamLegacy));
}

void* DevicePoolMemoryResource::allocate_async(size_t bytes, size_t alignment, Stream stream) {
  if (alignment > kPoolAlignment) {
    throw InvalidArgumentError(fmt::format("device memory alignment {} is over the supported {}",
                                           alignment, kPoolAlignment));
  }
  void* pointer = nullptr;
  detail::check_cuda(
      cudaMallocFromPoolAsync(&pointer, bytes == 0 ? 1 : bytes, state_->pool, stream.native()),
      fmt::format("cudaMallocFromPoolAsync({} bytes on device {})", bytes, state_->device).c_str());
  return pointer;
}

void DevicePoolMemoryResource::deallocate_async(void* pointer, size_t, size_t,
                                                Stream stream) noexcept {
  if (pointer != nullptr) cudaFreeAsync(pointer, stream.native());
}

int DevicePoolMemoryResource::device() const noexcept { return state_->device; }

size_t DevicePoolMemoryResource::reserved_bytes() const {
  uint64_t value = 0;
  CUZARR_CUDA_CHECK(
      cudaMemPoolGetAttribute(state_->pool, cudaMemPoolAttrReservedMemCurrent, &value));
  return static_cast<size_t>(value);
}

size_t DevicePoolMemoryResource::used_bytes() const {
  uint64_t value = 0;
  CUZARR_CUDA_CHECK(cudaMemPoolGetAttribute(state_->pool, cudaMemPoolAttrUsedMemCurrent, &value));
  return static_cast<size_t>(value);
}

void DevicePoolMemoryResource::trim(size_t keep_bytes) {
  CUZARR_CUDA_CHECK(cudaMemPoolTrimTo(state_->pool, keep_bytes));
}

std::shared_ptr<DevicePoolMemoryResource> default_device_memory_resource() {
  // Never destroyed: Buffers may be released during static destruction.
  static auto* resource =
      new std::shared_ptr<DevicePoolMemoryResource>(std::make_shared<DevicePoolMemoryResource>());
  return *resource;
}

#else  // no CUDA

struct DevicePoolMemoryResource::State {};

namespace {
[[noreturn]] void no_cuda() {
  throw UnsupportedError("device memory needs CUDA support in this build of cuzarr");
}
}  // namespace

DevicePoolMemoryResource::DevicePoolMemoryResource() { no_cuda(); }
DevicePoolMemoryResource::~DevicePoolMemoryResource() = default;
void* DevicePoolMemoryResource::allocate(size_t, size_t) { no_cuda(); }
void DevicePoolMemoryResource::deallocate(void*, size_t, size_t) noexcept {}
void* DevicePoolMemoryResource::allocate_async(size_t, size_t, Stream) { no_cuda(); }
void DevicePoolMemoryResource::deallocate_async(void*, size_t, size_t, Stream) noexcept {}
int DevicePoolMemoryResource::device() const noexcept { return -1; }
size_t DevicePoolMemoryResource::reserved_bytes() const { return 0; }
size_t DevicePoolMemoryResource::used_bytes() const { return 0; }
void DevicePoolMemoryResource::trim(size_t) {}
std::shared_ptr<DevicePoolMemoryResource> default_device_memory_resource() { no_cuda(); }

#endif

}  // namespace cuzarr
