#include "cuzarr/memory/buffer.hpp"

#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <set>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/memory_resource.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/cuda_check.hpp"
#endif

namespace cuzarr {
namespace {
constexpr size_t kAlignment = 64;
}

// Shared by every handle of one piece of memory: the memory's owner and the keep-alive owners.
// Keep-alive lists are flat (keep_alive_of copies the other buffer's list rather than referring
// to its Ownership), so buffers that keep each other alive form no reference cycle.
struct Buffer::Ownership {
  explicit Ownership(std::shared_ptr<const void> m) : memory(std::move(m)) {}
  std::shared_ptr<const void> memory;
  mutable std::mutex mutex;
  std::set<std::shared_ptr<const void>, std::owner_less<>> kept;
};

Buffer Buffer::allocate(size_t size, MemoryKind kind) {
  auto resource = get_memory_resource(kind);
  void* p = resource->allocate(size, kAlignment);
  Buffer b;
  b.ownership_ =
      std::make_shared<Ownership>(std::shared_ptr<const void>(p, [resource, size](const void* q) {
        resource->deallocate(const_cast<void*>(q), size, kAlignment);
      }));
  b.data_ = static_cast<std::byte*>(p);
  b.size_ = size;
  b.kind_ = kind;
  return b;
}

Buffer Buffer::allocate(size_t size, MemoryKind kind, Stream stream) {
  auto resource = get_memory_resource(kind);
  void* p = resource->allocate_async(size, kAlignment, stream);
  Buffer b;
  // The deleter holds `stream`, so a stream made by Stream::create() outlives the bytes.
  b.ownership_ = std::make_shared<Ownership>(
      std::shared_ptr<const void>(p, [resource, size, stream](const void* q) {
        resource->deallocate_async(const_cast<void*>(q), size, kAlignment, stream);
      }));
  b.data_ = static_cast<std::byte*>(p);
  b.size_ = size;
  b.kind_ = kind;
  return b;
}

Buffer Buffer::copy_of(std::span<const std::byte> bytes) {
  Buffer b = allocate(bytes.size());
  if (!bytes.empty()) std::memcpy(b.data_, bytes.data(), bytes.size());
  return b;
}

Buffer Buffer::copy_of(std::string_view text) {
  return copy_of(std::as_bytes(std::span(text.data(), text.size())));
}

Buffer Buffer::wrap(void* data, size_t size, MemoryKind kind, std::shared_ptr<const void> owner) {
  Buffer b;
  b.ownership_ = std::make_shared<Ownership>(std::move(owner));
  b.data_ = static_cast<std::byte*>(data);
  b.size_ = size;
  b.kind_ = kind;
  return b;
}

std::span<std::byte> Buffer::bytes() {
  if (!is_host_accessible(kind_))
    throw InvalidArgumentError(
        "device buffer bytes are not host-accessible; copy_to(MemoryKind::host) first");
  return {data_, size_};
}

std::span<const std::byte> Buffer::bytes() const {
  if (!is_host_accessible(kind_))
    throw InvalidArgumentError(
        "device buffer bytes are not host-accessible; copy_to(MemoryKind::host) first");
  return {data_, size_};
}

std::string_view Buffer::as_string_view() const {
  auto b = bytes();
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

Buffer Buffer::slice(size_t offset, size_t length) const {
  if (offset > size_ || length > size_ - offset) {
    throw InvalidArgumentError(fmt::format("slice [{}, {}+{}) is outside a buffer of {} bytes",
                                           offset, offset, length, size_));
  }
  Buffer b = *this;
  b.data_ = data_ + offset;
  b.size_ = length;
  return b;
}

Buffer Buffer::copy_to(MemoryKind kind) const {
  Buffer b = allocate(size_, kind);
  copy_bytes(b.data_, kind, data_, kind_, size_);
  if (ownership_) {
    std::lock_guard lock(ownership_->mutex);
    b.ownership_->kept = ownership_->kept;
  }
  return b;
}

void Buffer::keep_alive(std::shared_ptr<const void> owner) const {
  if (!ownership_ || !owner) return;
  std::lock_guard lock(ownership_->mutex);
  ownership_->kept.insert(std::move(owner));
}

void Buffer::keep_alive_of(const Buffer& other) const {
  if (!ownership_ || !other.ownership_ || ownership_ == other.ownership_) return;
  std::set<std::shared_ptr<const void>, std::owner_less<>> owners;
  {
    std::lock_guard lock(other.ownership_->mutex);
    owners = other.ownership_->kept;
  }
  if (other.ownership_->memory) owners.insert(other.ownership_->memory);
  std::lock_guard lock(ownership_->mutex);
  ownership_->kept.merge(owners);
}

size_t Buffer::keep_alive_count() const {
  if (!ownership_) return 0;
  std::lock_guard lock(ownership_->mutex);
  return ownership_->kept.size();
}

Buffer Buffer::copy_to(MemoryKind kind, Stream stream) const {
  Buffer b = allocate(size_, kind, stream);
  copy_bytes(b.data_, kind, data_, kind_, size_, stream);
  if (ownership_) {
    std::lock_guard lock(ownership_->mutex);
    b.ownership_->kept = ownership_->kept;
  }
  return b;
}

void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, size_t size) {
  if (size == 0) return;
  if (is_host_accessible(dst_kind) && is_host_accessible(src_kind)) {
    std::memcpy(dst, src, size);
    return;
  }
#if CUZARR_HAVE_CUDA
  // With unified addressing the runtime infers the direction from the pointers.
  detail::check_cuda(cudaMemcpy(dst, src, size, cudaMemcpyDefault),
                     fmt::format("cudaMemcpy of {} bytes from {} to {} memory", size,
                                 memory_kind_name(src_kind), memory_kind_name(dst_kind))
                         .c_str());
#else
  throw UnsupportedError("copies to or from device memory need CUDA support in this build");
#endif
}

void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, size_t size,
                Stream stream) {
  if (size == 0) return;
  if (is_host_accessible(dst_kind) && is_host_accessible(src_kind)) {
    stream.synchronize();
    std::memcpy(dst, src, size);
    return;
  }
#if CUZARR_HAVE_CUDA
  detail::check_cuda(cudaMemcpyAsync(dst, src, size, cudaMemcpyDefault, stream.native()),
                     fmt::format("cudaMemcpyAsync of {} bytes from {} to {} memory", size,
                                 memory_kind_name(src_kind), memory_kind_name(dst_kind))
                         .c_str());
#else
  throw UnsupportedError("copies to or from device memory need CUDA support in this build");
#endif
}

}  // namespace cuzarr
