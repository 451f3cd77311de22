#include "cuzarr/memory/allocator_callbacks.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <new>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class CallbackMemoryResource final : public MemoryResource {
 public:
  CallbackMemoryResource(MemoryKind kind, AllocateCallback allocate, DeallocateCallback deallocate)
      : kind_(kind), allocate_(std::move(allocate)), deallocate_(std::move(deallocate)) {}

  MemoryKind kind() const noexcept override { return kind_; }

  void* allocate(size_t bytes, size_t alignment) override {
    void* pointer = allocate_(bytes, alignment);
    if (pointer == nullptr) throw std::bad_alloc();
    if (reinterpret_cast<uintptr_t>(pointer) % alignment != 0) {
      deallocate_(pointer, bytes);
      throw InvalidArgumentError(
          fmt::format("the {} allocator returned {} for {} bytes, which is not aligned to {} bytes",
                      memory_kind_name(kind_), pointer, bytes, alignment));
    }
    return pointer;
  }

  void deallocate(void* pointer, size_t bytes, size_t) noexcept override {
    deallocate_(pointer, bytes);
  }

 private:
  MemoryKind kind_;
  AllocateCallback allocate_;
  DeallocateCallback deallocate_;
};

void set_allocator(MemoryKind kind, AllocateCallback allocate, DeallocateCallback deallocate) {
  if (!allocate && !deallocate) {
    set_memory_resource(kind, nullptr);
    return;
  }
  set_memory_resource(
      kind, make_callback_memory_resource(kind, std::move(allocate), std::move(deallocate)));
}

}  // namespace

std::shared_ptr<MemoryResource> make_callback_memory_resource(MemoryKind kind,
                                                              AllocateCallback allocate,
                                                              DeallocateCallback deallocate) {
  if (!allocate || !deallocate) {
    throw InvalidArgumentError(fmt::format(
        "{} allocator: both an allocate and a deallocate callback are needed (or neither, to "
        "restore the default)",
        memory_kind_name(kind)));
  }
  return std::make_shared<CallbackMemoryResource>(kind, std::move(allocate), std::move(deallocate));
}

void set_host_allocator(AllocateCallback allocate, DeallocateCallback deallocate) {
  set_allocator(MemoryKind::host, std::move(allocate), std::move(deallocate));
}
void set_pinned_allocator(AllocateCallback allocate, DeallocateCallback deallocate) {
  set_allocator(MemoryKind::pinned, std::move(allocate), std::move(deallocate));
}
void set_device_allocator(AllocateCallback allocate, DeallocateCallback deallocate) {
  set_allocator(MemoryKind::device, std::move(allocate), std::move(deallocate));
}

}  // namespace cuzarr
