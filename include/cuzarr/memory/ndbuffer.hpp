// NDBuffer: a typed, shaped, strided view over a Buffer (like zarr-python's NDBuffer). Strides are
// in bytes and may be negative (reversed views) or zero (broadcast).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/memory/buffer.hpp"

namespace cuzarr {

class NDBuffer {
 public:
  NDBuffer() = default;
  /// A view of `buffer`: element [0,...,0] at `byte_offset`, `byte_strides` per dimension (empty =
  /// C order). Throws InvalidArgumentError if any element would fall outside the buffer.
  NDBuffer(Buffer buffer, DataType dtype, Shape shape, std::vector<int64_t> byte_strides = {},
           int64_t byte_offset = 0);

  /// A new C-contiguous, uninitialised array of `kind` (variable-length kinds start as empty
  /// values; they cannot be in device memory: UnsupportedError).
  static NDBuffer allocate(DataType dtype, Shape shape, MemoryKind kind = MemoryKind::host);
  /// The same, allocated in `stream`'s order (see Buffer::allocate with a stream).
  static NDBuffer allocate(DataType dtype, Shape shape, MemoryKind kind, Stream stream);

  const Buffer& buffer() const noexcept { return buffer_; }
  DataType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  const std::vector<int64_t>& byte_strides() const noexcept { return strides_; }
  int64_t byte_offset() const noexcept { return offset_; }
  size_t ndim() const noexcept { return shape_.size(); }
  MemoryKind kind() const noexcept { return buffer_.kind(); }
  /// Number of elements.
  int64_t size() const;
  /// size() * dtype().size().
  int64_t nbytes() const;
  /// Pointer to element [0, ..., 0].
  std::byte* data() const noexcept { return const_cast<std::byte*>(buffer_.data()) + offset_; }
  template <class T>
  T* data_as() const noexcept {
    return reinterpret_cast<T*>(data());
  }
  /// True when elements are laid out densely in C order.
  bool is_c_contiguous() const;

  /// A view with dimensions permuted: result dim i is this view's dim order[i].
  NDBuffer permuted(std::span<const int64_t> order) const;
  /// A view of elements start + k*step (k < count) in dimension `dim`; step may be negative.
  NDBuffer sliced(size_t dim, int64_t start, int64_t step, int64_t count) const;
  /// A view with dimension `dim` fixed at `index` (one dimension fewer).
  NDBuffer indexed(size_t dim, int64_t index) const;
  /// The same bytes seen with another shape (only for C-contiguous views).
  NDBuffer reshaped(Shape shape) const;

  /// Copies `source` (same shape and data type) into this view. Both must be host-accessible.
  /// For variable-length kinds this buffer then also keeps alive what `source` keeps alive.
  void assign(const NDBuffer& source) const;
  /// Copies `source` (same shape and element size, any kind) into this view of any kind, queued
  /// on `stream`. When both views are C-contiguous this is one cudaMemcpyAsync. Otherwise a
  /// non-contiguous source is first made contiguous on its own side (a CPU copy for host/pinned,
  /// a kernel for device), copied across, then scattered into this view on its side; device <->
  /// device and device <-> pinned copies of strided views run as one kernel. Every step that
  /// touches host memory on the CPU first waits for `stream`, and a host-accessible destination
  /// is complete when this returns. Both views must stay alive until `stream` has run the copy.
  /// Throws InvalidArgumentError for mismatched shapes, UnsupportedError without CUDA.
  void assign(const NDBuffer& source, Stream stream) const;
  /// A new C-contiguous array of `kind` with this view's elements (synchronous).
  NDBuffer copy_to(MemoryKind kind) const;
  /// A new C-contiguous array of `kind` with this view's elements, allocated and copied in
  /// `stream`'s order (see assign with a stream). This view must stay alive until the copy ran.
  NDBuffer copy_to(MemoryKind kind, Stream stream) const;
  /// Sets every element to `element` (dtype().size() bytes). Host-accessible views only. A
  /// variable-length `element` must point at bytes that outlive the buffer (interned ones).
  void fill(std::span<const std::byte> element) const;

 private:
  Buffer buffer_;
  DataType dtype_;
  Shape shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

}  // namespace cuzarr
