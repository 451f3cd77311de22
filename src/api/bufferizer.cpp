#include "cuzarr/api/bufferizer.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/dlpack_interop.hpp"

namespace cuzarr {

Bufferizer::Bufferizer(size_t capacity, Shape sample_shape, DataType dtype, MemoryKind kind,
                       Stream stream, BufferizerHooks hooks)
    : capacity_(capacity),
      sample_shape_(std::move(sample_shape)),
      stream_(stream),
      hooks_(std::move(hooks)) {
  if (capacity == 0) throw InvalidArgumentError("Bufferizer: the capacity must be at least 1");
  if (dtype.is_variable_length()) {
    throw InvalidArgumentError(fmt::format(
        "Bufferizer: data type {} has variable-length elements; only fixed-size types can be "
        "buffered",
        dtype.name()));
  }
  Shape shape{static_cast<int64_t>(capacity)};
  shape.insert(shape.end(), sample_shape_.begin(), sample_shape_.end());
  element_count(shape);  // rejects negative extents and overflow
  storage_ = NDBuffer::allocate(dtype, std::move(shape), kind, stream_);
  if (hooks_.on_allocate) hooks_.on_allocate(*this);
}

void Bufferizer::check_sample(const NDBuffer& sample, const char* call,
                              std::optional<size_t> position,
                              std::span<const int64_t> shape) const {
  const std::string what =
      position ? fmt::format("Bufferizer::{}: sample {} of the list", call, *position)
               : fmt::format("Bufferizer::{}", call);
  if (sample.dtype() != dtype()) {
    throw InvalidArgumentError(
        fmt::format("{}: data type {} differs from the buffer's data type {}", what,
                    sample.dtype().description(), dtype().description()));
  }
  if (!std::equal(shape.begin(), shape.end(), sample_shape_.begin(), sample_shape_.end())) {
    throw InvalidArgumentError(
        fmt::format("{}: sample shape {} differs from the buffer's sample "
                    "shape {}",
                    what, shape_to_string(shape), shape_to_string(sample_shape_)));
  }
}

void Bufferizer::check_room(size_t count, const char* call) const {
  if (full()) {
    throw InvalidArgumentError(
        fmt::format("Bufferizer::{}: the buffer is full ({} of {} samples); flush() it first", call,
                    size_, capacity_));
  }
  if (count > free_slots()) {
    throw InvalidArgumentError(fmt::format(
        "Bufferizer::{}: {} samples do not fit, only {} of {} slots are free; nothing was "
        "appended",
        call, count, free_slots(), capacity_));
  }
}

void Bufferizer::appended(size_t count, bool one) {
  size_ += count;
  if (one) {
    if (hooks_.on_append_one) hooks_.on_append_one(*this);
  } else if (hooks_.on_append_multiple) {
    hooks_.on_append_multiple(*this, count);
  }
  if (full() && hooks_.on_full) hooks_.on_full(*this);
}

void Bufferizer::append_one(const NDBuffer& sample) {
  check_sample(sample, "append_one", std::nullopt, sample.shape());
  check_room(1, "append_one");
  storage_.indexed(0, static_cast<int64_t>(size_)).assign(sample, stream_);
  appended(1, true);
}

void Bufferizer::append_multiple(const NDBuffer& batch) {
  if (batch.ndim() != sample_shape_.size() + 1) {
    throw InvalidArgumentError(fmt::format(
        "Bufferizer::append_multiple: a batch of shape {} has {} dimensions, expected {} "
        "([count, ...sample shape {}])",
        shape_to_string(batch.shape()), batch.ndim(), sample_shape_.size() + 1,
        shape_to_string(sample_shape_)));
  }
  check_sample(batch, "append_multiple", std::nullopt,
               std::span<const int64_t>(batch.shape()).subspan(1));
  const auto count = static_cast<size_t>(batch.shape()[0]);
  if (count == 0) return;
  check_room(count, "append_multiple");
  storage_.sliced(0, static_cast<int64_t>(size_), 1, static_cast<int64_t>(count))
      .assign(batch, stream_);
  appended(count, false);
}

void Bufferizer::append_multiple(std::span<const NDBuffer> samples) {
  for (size_t i = 0; i < samples.size(); ++i)
    check_sample(samples[i], "append_multiple", i, samples[i].shape());
  if (samples.empty()) return;
  check_room(samples.size(), "append_multiple");
  for (size_t i = 0; i < samples.size(); ++i)
    storage_.indexed(0, static_cast<int64_t>(size_ + i)).assign(samples[i], stream_);
  appended(samples.size(), false);
}

void Bufferizer::append_in_place(size_t count,
                                 const std::function<void(const NDBuffer& slots)>& writer) {
  if (count == 0) return;
  check_room(count, "append_in_place");
  writer(storage_.sliced(0, static_cast<int64_t>(size_), 1, static_cast<int64_t>(count)));
  appended(count, false);
}

void Bufferizer::flush() {
  size_ = 0;
  if (hooks_.on_flush) hooks_.on_flush(*this);
}

void Bufferizer::flush(std::span<const std::byte> element) {
  if (element.size() != dtype().size()) {
    throw InvalidArgumentError(fmt::format(
        "Bufferizer::flush: fill value of {} bytes for data type {} ({} bytes per element)",
        element.size(), dtype().description(), dtype().size()));
  }
  if (is_host_accessible(kind())) {
    stream_.synchronize();  // queued copies into the buffer must not land after the fill
    storage_.fill(element);
  } else if (storage_.nbytes() > 0) {
    // One sample filled on the host and uploaded, then doubled on the device: log2(capacity)
    // device-to-device copies instead of a kernel.
    NDBuffer sample = NDBuffer::allocate(dtype(), sample_shape_);
    sample.fill(element);
    const auto sample_bytes = static_cast<size_t>(sample.nbytes());
    std::byte* base = storage_.data();
    copy_bytes(base, kind(), sample.data(), MemoryKind::host, sample_bytes, stream_);
    // Pageable sources are staged before cudaMemcpyAsync returns, so `sample` may go.
    for (size_t filled = 1; filled < capacity_;) {
      const size_t count = std::min(filled, capacity_ - filled);
      copy_bytes(base + filled * sample_bytes, kind(), base, kind(), count * sample_bytes, stream_);
      filled += count;
    }
  }
  flush();
}

NDBuffer Bufferizer::view() const { return storage_.sliced(0, 0, 1, static_cast<int64_t>(size_)); }

DLManagedTensorVersioned* Bufferizer::to_dlpack() const { return to_dlpack_versioned(view()); }

}  // namespace cuzarr
