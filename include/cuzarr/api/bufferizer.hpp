// Bufferizer: a batch buffer of a fixed number of samples (one shape, one data type) in device,
// pinned or host memory, allocated once and reused. Samples are appended one at a time, as a
// batched array or as a list; appends that would overflow are refused whole (nothing is copied).
// flush() empties it (optionally filling it with a value) for the next batch. Copies are queued
// on the Bufferizer's stream.
//
// Hooks, when set, fire after the state they report has changed, in this order:
//   constructor:         on_allocate
//   append_one:          (copy) -> on_append_one -> on_full (when the append filled the buffer)
//   append_multiple:     (copy of all samples) -> on_append_multiple(count) -> on_full (when
//                        full); a list fires on_append_multiple once for the whole list
//   append_in_place:     (writer) -> on_append_multiple(count) -> on_full (when full)
//   flush:               (fill) -> on_flush (size() is then 0)
// A failed call (bad shape, overflow, copy error) fires nothing. Hooks may call any method of the
// Bufferizer, flush() included (on_full is the place to consume and flush a full batch); an
// exception thrown by a hook propagates to the caller, with the state already changed.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/memory/dlpack.h"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

class Bufferizer;

/// Callbacks of a Bufferizer (each may be empty).
struct BufferizerHooks {
  std::function<void(Bufferizer&)> on_allocate;
  std::function<void(Bufferizer&)> on_append_one;
  /// The count of samples the call appended.
  std::function<void(Bufferizer&, size_t count)> on_append_multiple;
  std::function<void(Bufferizer&)> on_full;
  std::function<void(Bufferizer&)> on_flush;
};

class Bufferizer {
 public:
  /// Allocates room for `capacity` (> 0) samples of `sample_shape` and `dtype` in memory of
  /// `kind` (uninitialised), then fires on_allocate. Copies are queued on `stream`. Throws
  /// InvalidArgumentError for a zero capacity or a variable-length data type, UnsupportedError
  /// for pinned/device memory without CUDA.
  Bufferizer(size_t capacity, Shape sample_shape, DataType dtype,
             MemoryKind kind = MemoryKind::device, Stream stream = {}, BufferizerHooks hooks = {});

  Bufferizer(const Bufferizer&) = delete;
  Bufferizer& operator=(const Bufferizer&) = delete;

  /// Copies one sample (sample_shape(), dtype(); any layout and memory kind) into the next slot.
  /// Throws InvalidArgumentError naming what differs when the shape or data type does not match,
  /// or when the buffer is full.
  void append_one(const NDBuffer& sample);
  /// Copies the k samples of `batch` (shape [k, ...sample_shape()]) into the next k slots, or
  /// nothing when they do not fit (InvalidArgumentError naming the free slots). k = 0 does
  /// nothing (no hooks fire).
  void append_multiple(const NDBuffer& batch);
  /// Copies every sample of `samples` into the next slots. Every sample is checked before
  /// anything is copied: a mismatching sample (named by its position) or too many samples throw
  /// InvalidArgumentError and copy nothing. An empty list does nothing (no hooks fire).
  void append_multiple(std::span<const NDBuffer> samples);
  /// Appends `count` samples written by `writer` into the view of the next `count` slots (shape
  /// [count, ...sample_shape()], C order, in this Bufferizer's memory), for producers that write
  /// in place (Array::read_into). The samples count only when `writer` returns normally; when it
  /// throws, size() is unchanged and the exception propagates. Throws InvalidArgumentError when
  /// `count` samples do not fit.
  void append_in_place(size_t count, const std::function<void(const NDBuffer& slots)>& writer);

  /// Empties the buffer, then fires on_flush.
  void flush();
  /// Sets every slot (all capacity() of them) to `element` (dtype().size() bytes, else
  /// InvalidArgumentError), empties the buffer, then fires on_flush. The fill is queued on the
  /// stream for device memory.
  void flush(std::span<const std::byte> element);
  template <class T>
  void flush(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    flush(std::span<const std::byte>(std::as_bytes(std::span<const T, 1>(&value, 1))));
  }

  size_t size() const noexcept { return size_; }
  size_t capacity() const noexcept { return capacity_; }
  size_t free_slots() const noexcept { return capacity_ - size_; }
  bool full() const noexcept { return size_ == capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  const Shape& sample_shape() const noexcept { return sample_shape_; }
  DataType dtype() const noexcept { return storage_.dtype(); }
  MemoryKind kind() const noexcept { return storage_.kind(); }
  Stream stream() const noexcept { return stream_; }

  /// The filled part: shape [size(), ...sample_shape()], C order, sharing the memory (its contents
  /// change with later appends and fills).
  NDBuffer view() const;
  /// All capacity() slots.
  const NDBuffer& storage() const noexcept { return storage_; }
  /// view() as a DLPack tensor (kDLCUDA for device memory) that keeps the memory alive; the
  /// caller owns it and must call its deleter. Throws like to_dlpack_versioned.
  DLManagedTensorVersioned* to_dlpack() const;
  /// Waits until the copies queued on the stream have run.
  void synchronize() const { stream_.synchronize(); }

  const BufferizerHooks& hooks() const noexcept { return hooks_; }
  void set_hooks(BufferizerHooks hooks) { hooks_ = std::move(hooks); }

 private:
  void check_sample(const NDBuffer& sample, const char* call, std::optional<size_t> position,
                    std::span<const int64_t> shape) const;
  void check_room(size_t count, const char* call) const;
  void appended(size_t count, bool one);

  size_t capacity_;
  size_t size_ = 0;
  Shape sample_shape_;
  NDBuffer storage_;
  Stream stream_;
  BufferizerHooks hooks_;
};

}  // namespace cuzarr
