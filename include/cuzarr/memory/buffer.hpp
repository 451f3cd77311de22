// Buffer: flat, untyped bytes of one MemoryKind with shared ownership. Copying a Buffer copies
// the handle, not the bytes (like zarr-python's Buffer); copies between kinds are explicit.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "cuzarr/memory/memory_kind.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

class Buffer {
 public:
  /// An empty host buffer.
  Buffer() = default;

  /// Uninitialised bytes of `kind` from that kind's memory resource. Throws UnsupportedError for
  /// pinned/device without CUDA.
  static Buffer allocate(size_t size, MemoryKind kind = MemoryKind::host);
  /// Stream-ordered allocation: the bytes may be used by work queued on `stream` and are freed in
  /// `stream`'s order when the last handle goes (the stream is kept alive until then).
  static Buffer allocate(size_t size, MemoryKind kind, Stream stream);
  /// A new host buffer holding a copy of `bytes`.
  static Buffer copy_of(std::span<const std::byte> bytes);
  /// A new host buffer holding a copy of `text`'s bytes.
  static Buffer copy_of(std::string_view text);
  /// Wraps memory someone else owns; `owner` (may be null) is kept alive as long as any handle.
  static Buffer wrap(void* data, size_t size, MemoryKind kind, std::shared_ptr<const void> owner);

  std::byte* data() noexcept { return data_; }
  const std::byte* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  MemoryKind kind() const noexcept { return kind_; }

  /// The bytes as a span; throws InvalidArgumentError for device memory (no hidden copies).
  std::span<std::byte> bytes();
  std::span<const std::byte> bytes() const;
  /// The bytes as text (host-accessible buffers only).
  std::string_view as_string_view() const;

  /// A view of [offset, offset + length) sharing ownership; throws InvalidArgumentError when out
  /// of range.
  Buffer slice(size_t offset, size_t length) const;
  /// True when both are views of one allocation (or one wrap): the bytes between them are part
  /// of it too, so one copy may span both.
  bool shares_allocation(const Buffer& other) const noexcept {
    return ownership_ != nullptr && ownership_ == other.ownership_;
  }
  /// A new buffer of `kind` with a copy of the bytes (synchronous). The copy keeps this buffer's
  /// keep-alive owners (its bytes may hold pointers into them).
  Buffer copy_to(MemoryKind kind) const;
  /// A new buffer of `kind` (allocated on `stream`) with a copy of the bytes, queued on `stream`
  /// (see the stream-ordered copy_bytes). This buffer must stay alive until the copy has run.
  Buffer copy_to(MemoryKind kind, Stream stream) const;

  /// Keeps `owner` alive as long as any handle, view or slice of this buffer's memory (all share
  /// the list, also those made before the call). For elements that point at bytes stored
  /// elsewhere (VariableLengthValue). Thread-safe; a buffer without memory ignores the call.
  void keep_alive(std::shared_ptr<const void> owner) const;
  /// Keeps `other`'s memory and everything `other` keeps alive, alive as long as this buffer
  /// (for copying elements that point into `other`'s owners). No-op when both share memory.
  void keep_alive_of(const Buffer& other) const;
  /// Number of distinct keep-alive owners (for tests and diagnostics).
  size_t keep_alive_count() const;

 private:
  struct Ownership;
  std::shared_ptr<Ownership> ownership_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  MemoryKind kind_ = MemoryKind::host;
};

/// Copies `size` bytes between buffers of any kinds (synchronous). Throws UnsupportedError for
/// pinned/device memory without CUDA, CudaError when the copy fails.
void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, size_t size);
/// Queues a copy of `size` bytes on `stream` (cudaMemcpyAsync) and returns; the copy has finished
/// after stream.synchronize(). Copies involving pageable host memory are staged by CUDA and may
/// block the caller. Host-to-host copies (host or pinned on both sides) first wait for `stream`,
/// then copy on the CPU, so they see the results of earlier work on the stream. Throws like the
/// synchronous overload.
void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, size_t size,
                Stream stream);

}  // namespace cuzarr
