#include "cuzarr/memory/ndbuffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cuzarr/core/error.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/strided_copy_device.hpp"
#endif

namespace cuzarr {
namespace {

void require_host(const NDBuffer& b, const char* what) {
  if (!is_host_accessible(b.kind())) {
    throw InvalidArgumentError(
        fmt::format("{} needs host-accessible memory, got {}", what, memory_kind_name(b.kind())));
  }
}

// Copies between strided views, collapsing the innermost dimensions that are contiguous in both
// into one memcpy.
void copy_strided(std::byte* dst, const int64_t* dst_strides, const std::byte* src,
                  const int64_t* src_strides, const int64_t* shape, size_t ndim,
                  size_t inner_bytes) {
  if (ndim == 0) {
    std::memcpy(dst, src, inner_bytes);
    return;
  }
  const int64_t n = shape[0];
  if (ndim == 1 && dst_strides[0] == static_cast<int64_t>(inner_bytes) &&
      src_strides[0] == static_cast<int64_t>(inner_bytes)) {
    std::memcpy(dst, src, inner_bytes * static_cast<size_t>(n));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    copy_strided(dst + i * dst_strides[0], dst_strides + 1, src + i * src_strides[0],
                 src_strides + 1, shape + 1, ndim - 1, inner_bytes);
  }
}

void require_same_shape(const NDBuffer& dst, const NDBuffer& src) {
  if (src.shape() != dst.shape() || src.dtype().size() != dst.dtype().size()) {
    throw InvalidArgumentError(fmt::format(
        "assign: source of shape {} and {}-byte elements does not match {} with {}-byte elements",
        shape_to_string(src.shape()), src.dtype().size(), shape_to_string(dst.shape()),
        dst.dtype().size()));
  }
}

#if CUZARR_HAVE_CUDA
// Device-to-device strided copy by kernel, with unit dimensions dropped.
void copy_on_device(const NDBuffer& dst, const NDBuffer& src, Stream stream) {
  std::vector<int64_t> shape, ds, ss;
  for (size_t d = 0; d < dst.ndim(); ++d) {
    if (dst.shape()[d] == 1) continue;
    shape.push_back(dst.shape()[d]);
    ds.push_back(dst.byte_strides()[d]);
    ss.push_back(src.byte_strides()[d]);
  }
  detail::copy_strided_on_device(dst.data(), ds, src.data(), ss, shape, dst.dtype().size(), stream);
}
#endif

}  // namespace

NDBuffer::NDBuffer(Buffer buffer, DataType dtype, Shape shape, std::vector<int64_t> byte_strides,
                   int64_t byte_offset)
    : buffer_(std::move(buffer)),
      dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(byte_strides)),
      offset_(byte_offset) {
  const auto elem = static_cast<int64_t>(dtype_.size());
  if (strides_.empty()) strides_ = c_order_strides(shape_, elem);
  if (strides_.size() != shape_.size()) {
    throw InvalidArgumentError(
        fmt::format("NDBuffer: {} strides for {} dimensions", strides_.size(), shape_.size()));
  }
  if (element_count(shape_) == 0) return;
  int64_t lo = offset_, hi = offset_;
  for (size_t d = 0; d < shape_.size(); ++d) {
    int64_t span =
        checked_mul(shape_[d] - 1, strides_[d] < 0 ? -strides_[d] : strides_[d], "NDBuffer extent");
    if (strides_[d] < 0)
      lo -= span;
    else
      hi += span;
  }
  if (lo < 0 || hi + elem > static_cast<int64_t>(buffer_.size())) {
    throw InvalidArgumentError(
        fmt::format("NDBuffer of shape {} does not fit in a buffer of {} bytes",
                    shape_to_string(shape_), buffer_.size()));
  }
}

namespace {

// Variable-length elements point into host memory: such arrays only live in host memory.
void require_host_for_variable_length(const DataType& dtype, MemoryKind kind) {
  if (dtype.is_variable_length() && !is_host_accessible(kind)) {
    throw UnsupportedError(fmt::format(
        "arrays of data type {} cannot be held in device memory (their elements point to host "
        "memory)",
        dtype.name()));
  }
}

}  // namespace

NDBuffer NDBuffer::allocate(DataType dtype, Shape shape, MemoryKind kind) {
  require_host_for_variable_length(dtype, kind);
  int64_t bytes = byte_count(shape, static_cast<int64_t>(dtype.size()));
  Buffer buffer = Buffer::allocate(static_cast<size_t>(bytes), kind);
  // Variable-length elements start as valid empty values ({nullptr, 0}), never stray pointers.
  if (dtype.is_variable_length() && bytes > 0) std::memset(buffer.data(), 0, buffer.size());
  return NDBuffer(std::move(buffer), dtype, std::move(shape));
}

NDBuffer NDBuffer::allocate(DataType dtype, Shape shape, MemoryKind kind, Stream stream) {
  require_host_for_variable_length(dtype, kind);
  int64_t bytes = byte_count(shape, static_cast<int64_t>(dtype.size()));
  return NDBuffer(Buffer::allocate(static_cast<size_t>(bytes), kind, stream), dtype,
                  std::move(shape));
}

int64_t NDBuffer::size() const { return element_count(shape_); }
int64_t NDBuffer::nbytes() const { return size() * static_cast<int64_t>(dtype_.size()); }

bool NDBuffer::is_c_contiguous() const {
  int64_t expected = static_cast<int64_t>(dtype_.size());
  for (size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] != 1 && strides_[d] != expected) return false;
    expected *= shape_[d];
  }
  return true;
}

NDBuffer NDBuffer::permuted(std::span<const int64_t> order) const {
  if (order.size() != ndim())
    throw InvalidArgumentError("permutation length does not match dimensions");
  std::vector<bool> seen(ndim(), false);
  Shape shape(ndim());
  std::vector<int64_t> strides(ndim());
  for (size_t i = 0; i < order.size(); ++i) {
    auto o = order[i];
    if (o < 0 || static_cast<size_t>(o) >= ndim() || seen[o])
      throw InvalidArgumentError("invalid permutation");
    seen[o] = true;
    shape[i] = shape_[o];
    strides[i] = strides_[o];
  }
  return NDBuffer(buffer_, dtype_, std::move(shape), std::move(strides), offset_);
}

NDBuffer NDBuffer::sliced(size_t dim, int64_t start, int64_t step, int64_t count) const {
  if (dim >= ndim() || step == 0 || count < 0)
    throw InvalidArgumentError("invalid slice of NDBuffer");
  if (count > 0) {
    int64_t last = start + (count - 1) * step;
    if (start < 0 || start >= shape_[dim] || last < 0 || last >= shape_[dim]) {
      throw InvalidArgumentError(
          fmt::format("slice start {} step {} count {} outside dimension {} of extent {}", start,
                      step, count, dim, shape_[dim]));
    }
  }
  Shape shape = shape_;
  auto strides = strides_;
  shape[dim] = count;
  strides[dim] = strides_[dim] * step;
  return NDBuffer(buffer_, dtype_, std::move(shape), std::move(strides),
                  count > 0 ? offset_ + start * strides_[dim] : offset_);
}

NDBuffer NDBuffer::indexed(size_t dim, int64_t index) const {
  if (dim >= ndim() || index < 0 || index >= shape_[dim])
    throw InvalidArgumentError("index outside NDBuffer");
  Shape shape = shape_;
  auto strides = strides_;
  shape.erase(shape.begin() + static_cast<ptrdiff_t>(dim));
  strides.erase(strides.begin() + static_cast<ptrdiff_t>(dim));
  return NDBuffer(buffer_, dtype_, std::move(shape), std::move(strides),
                  offset_ + index * strides_[dim]);
}

NDBuffer NDBuffer::reshaped(Shape shape) const {
  if (!is_c_contiguous()) throw InvalidArgumentError("reshape of a non-contiguous NDBuffer");
  if (element_count(shape) != size()) {
    throw InvalidArgumentError(
        fmt::format("cannot reshape {} into {}", shape_to_string(shape_), shape_to_string(shape)));
  }
  return NDBuffer(buffer_, dtype_, std::move(shape), {}, offset_);
}

void NDBuffer::assign(const NDBuffer& source) const {
  require_host(*this, "NDBuffer::assign (use the overload with a Stream for device memory)");
  require_host(source, "NDBuffer::assign (use the overload with a Stream for device memory)");
  require_same_shape(*this, source);
  if (size() == 0) return;
  // Variable-length elements point at bytes the source's buffer keeps alive: keep them alive here.
  if (dtype_.is_variable_length() || source.dtype_.is_variable_length())
    buffer_.keep_alive_of(source.buffer_);
  const size_t elem = dtype_.size();
  // Drop unit dimensions, then copy (memmove-safe only for non-overlapping views, as numpy's
  // copyto).
  Shape shape;
  std::vector<int64_t> ds, ss;
  for (size_t d = 0; d < ndim(); ++d) {
    if (shape_[d] == 1) continue;
    shape.push_back(shape_[d]);
    ds.push_back(strides_[d]);
    ss.push_back(source.strides_[d]);
  }
  // Merge trailing dimensions that are contiguous in both views.
  size_t inner = elem;
  while (!shape.empty() && ds.back() == static_cast<int64_t>(inner) &&
         ss.back() == static_cast<int64_t>(inner)) {
    inner *= static_cast<size_t>(shape.back());
    shape.pop_back();
    ds.pop_back();
    ss.pop_back();
  }
  copy_strided(data(), ds.data(), source.data(), ss.data(), shape.data(), shape.size(), inner);
}

void NDBuffer::assign(const NDBuffer& source, Stream stream) const {
  require_same_shape(*this, source);
  if (size() == 0) return;
  if (is_host_accessible(kind()) && is_host_accessible(source.kind())) {
    stream.synchronize();
    assign(source);
    return;
  }
#if CUZARR_HAVE_CUDA
  const auto byte_size = static_cast<size_t>(nbytes());
  if (is_c_contiguous() && source.is_c_contiguous()) {
    copy_bytes(data(), kind(), source.data(), source.kind(), byte_size, stream);
    return;
  }
  if (kind() == MemoryKind::device && source.kind() == MemoryKind::device) {
    copy_on_device(*this, source, stream);
    return;
  }
  // 1. Make the source contiguous on its own side. Temporaries are allocated and freed in
  // stream order, so they live until the copies that read them have run.
  NDBuffer contiguous = source;
  if (!source.is_c_contiguous()) {
    contiguous = allocate(source.dtype(), source.shape(), source.kind(), stream);
    if (source.kind() == MemoryKind::device) {
      copy_on_device(contiguous, source, stream);
    } else {
      stream.synchronize();
      contiguous.assign(source);
    }
  }
  // 2. Copy across, straight into this view when it is contiguous.
  if (is_c_contiguous()) {
    copy_bytes(data(), kind(), contiguous.data(), contiguous.kind(), byte_size, stream);
    return;
  }
  // 3. Scatter into this view on its side.
  if (kind() == MemoryKind::device) {
    if (contiguous.kind() != MemoryKind::device) {
      NDBuffer staged = allocate(dtype_, shape_, MemoryKind::device, stream);
      copy_bytes(staged.data(), staged.kind(), contiguous.data(), contiguous.kind(), byte_size,
                 stream);
      contiguous = staged;
    }
    copy_on_device(*this, contiguous, stream);
  } else {
    NDBuffer staged = allocate(dtype_, shape_, kind(), stream);
    copy_bytes(staged.data(), staged.kind(), contiguous.data(), contiguous.kind(), byte_size,
               stream);
    stream.synchronize();
    assign(staged);
  }
#else
  throw UnsupportedError(fmt::format("copies from {} to {} memory need CUDA support in this build",
                                     memory_kind_name(source.kind()), memory_kind_name(kind())));
#endif
}

NDBuffer NDBuffer::copy_to(MemoryKind kind) const {
  if (is_host_accessible(kind) && is_host_accessible(this->kind())) {
    NDBuffer result = allocate(dtype_, shape_, kind);
    result.assign(*this);
    return result;
  }
  NDBuffer result = copy_to(kind, Stream());
  Stream().synchronize();
  return result;
}

NDBuffer NDBuffer::copy_to(MemoryKind kind, Stream stream) const {
  NDBuffer result = allocate(dtype_, shape_, kind, stream);
  result.assign(*this, stream);
  return result;
}

void NDBuffer::fill(std::span<const std::byte> element) const {
  require_host(*this, "NDBuffer::fill");
  if (element.size() != dtype_.size())
    throw InvalidArgumentError("fill value size does not match the data type");
  const int64_t n = size();
  if (n == 0) return;
  const size_t elem = dtype_.size();
  bool all_zero =
      std::all_of(element.begin(), element.end(), [](std::byte b) { return b == std::byte{0}; });
  if (is_c_contiguous()) {
    if (all_zero) {
      std::memset(data(), 0, static_cast<size_t>(n) * elem);
      return;
    }
    std::byte* p = data();
    std::memcpy(p, element.data(), elem);
    size_t filled = elem, total = static_cast<size_t>(n) * elem;
    while (filled < total) {  // doubling copy
      size_t chunk = std::min(filled, total - filled);
      std::memcpy(p + filled, p, chunk);
      filled += chunk;
    }
    return;
  }
  // Strided: fill one contiguous element-sized source broadcast over the view.
  Buffer one = Buffer::copy_of(element);
  NDBuffer src(one, dtype_, shape_, std::vector<int64_t>(ndim(), 0), 0);
  assign(src);
}

}  // namespace cuzarr
