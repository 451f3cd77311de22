// MirroredArray: a host array (C order) with a mirror in device (or pinned, or host) memory. Writes
// through its API mark dirty byte ranges; sync() uploads exactly those ranges to the mirror. The
// array may be bound to a region of a Zarr array: load() reads it, flush() writes back only the
// chunks that changed since the last flush.
//
// A MirroredArray is a handle, like Buffer: copies share the host array, the mirror and the dirty
// ranges. view(region) gives a handle on a sub-region that writes into the same host array and
// marks the same dirty ranges (byte offsets always count from the start of the whole array).
// sync(), pull() of the whole array, flush() and the counters act on the whole array from any
// view. Not thread-safe: one thread at a time per array and its views.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/dirty_ranges.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/selection.hpp"
#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

struct MirroredArrayOptions {
  /// Where the mirror lives. Pinned and device mirrors need CUDA (UnsupportedError otherwise).
  MemoryKind mirror_kind = MemoryKind::device;
  /// Where the host array lives: host (pageable) or pinned (faster, truly asynchronous uploads).
  MemoryKind host_kind = MemoryKind::host;
  /// Dirty ranges closer than this many bytes are merged into one upload (see DirtyRanges).
  uint64_t merge_threshold = 0;
};

/// What a MirroredArray has moved so far (whole array, shared by all views).
struct MirrorCounters {
  uint64_t syncs = 0;            ///< calls of sync(), also those with nothing to upload
  uint64_t ranges_uploaded = 0;  ///< copies queued by sync()
  uint64_t bytes_uploaded = 0;
  uint64_t pulls = 0;
  uint64_t bytes_pulled = 0;
  uint64_t flushes = 0;         ///< calls of flush()
  uint64_t chunks_written = 0;  ///< chunk writes issued by flush()
};

class MirroredArray {
 public:
  /// A new array of `shape` (host contents uninitialised, mirror allocated, nothing dirty).
  /// Throws UnsupportedError for a variable-length data type (its elements point into host
  /// memory), InvalidArgumentError for a host_kind of device.
  MirroredArray(DataType dtype, Shape shape, MirroredArrayOptions options = {});
  /// A new array holding a copy of `initial` (any layout, host-accessible); everything is dirty.
  static MirroredArray copy_of(const NDBuffer& initial, MirroredArrayOptions options = {});
  /// A new array bound to `region` of `array`: its shape is the region's result shape, its
  /// contents are read from the array, and the mirror is uploaded (nothing dirty afterwards).
  /// Throws like Array::read_into, and UnsupportedError for rectilinear chunk grids.
  static MirroredArray load(const Array& array, const Selection& region = {},
                            MirroredArrayOptions options = {}, Stream stream = {});

  DataType dtype() const noexcept { return view_.dtype(); }
  /// The shape of this handle (a view's region for a view).
  const Shape& shape() const noexcept { return view_.shape(); }
  size_t ndim() const noexcept { return view_.ndim(); }
  /// This handle's part of the host array. Writing through it directly is not tracked: call
  /// mark_dirty() afterwards.
  const NDBuffer& host() const noexcept { return view_; }
  /// This handle's part of the mirror (same strides as host()).
  NDBuffer mirror() const;
  /// The whole host array and the whole mirror, whatever region this handle covers.
  const NDBuffer& whole_host() const noexcept;
  const NDBuffer& whole_mirror() const noexcept;
  /// True for handles made by view().
  bool is_view() const noexcept { return is_view_; }

  /// A handle on `region` (numpy basic selection: integers drop dimensions) that shares the host
  /// array, the mirror and the dirty ranges. Throws InvalidArgumentError for a bad selection.
  MirroredArray view(const Selection& region) const;

  // Writes. Each copies into the host array and marks the written bytes dirty (for sync and for
  // flush). Throws InvalidArgumentError for a bad index, selection, shape or element size.

  /// Sets one element to `element` (dtype().size() bytes).
  void set(std::span<const int64_t> index, std::span<const std::byte> element);
  template <class T>
  void set(std::initializer_list<int64_t> index, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    set(std::span<const int64_t>(index.begin(), index.size()),
        std::as_bytes(std::span<const T, 1>(&value, 1)));
  }
  /// Copies `data` (the region's result shape, same data type, any memory kind) into `region`.
  void assign(const Selection& region, const NDBuffer& data);
  /// Copies `data` (this handle's shape) over everything this handle covers.
  void assign(const NDBuffer& data) { assign(Selection{}, data); }
  /// Sets every element of `region` to `element` (dtype().size() bytes).
  void fill(const Selection& region, std::span<const std::byte> element);
  void fill(std::span<const std::byte> element) { fill(Selection{}, element); }
  template <class T>
  void fill(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    fill(Selection{}, std::as_bytes(std::span<const T, 1>(&value, 1)));
  }
  /// Marks `region` dirty without writing (after writing through host() directly).
  void mark_dirty(const Selection& region = {});

  /// Reads one element of the host array. Throws InvalidArgumentError for a bad index or when
  /// sizeof(T) is not the element size.
  template <class T>
  T get(std::initializer_list<int64_t> index) const {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value,
                element_address(std::span<const int64_t>(index.begin(), index.size()), sizeof(T)),
                sizeof(T));
    return value;
  }

  /// The byte ranges (from the start of the whole array) written since the last sync, sorted.
  std::vector<ByteInterval> pending() const;
  /// The byte ranges written (or pulled) since the last flush, sorted.
  std::vector<ByteInterval> pending_flush() const;
  uint64_t merge_threshold() const noexcept;
  /// Changes the merge threshold of both range sets (merging what is now close enough).
  void set_merge_threshold(uint64_t bytes);

  /// Queues one copy per dirty range from the host array to the mirror on `stream` and clears
  /// the ranges (dirty-for-flush stays). With a device mirror the copies run when the stream gets
  /// to them: a pinned host array must not be written before then (stream.synchronize()); a
  /// pageable one may (CUDA stages it). With a host-accessible mirror the copies are done on
  /// return. Throws CudaError when a copy cannot be queued (the ranges then stay dirty).
  void sync(Stream stream = {});
  /// Copies the mirror back into the host array (this handle's region, or `region` of it) and
  /// waits for the copy. The copied bytes no longer need a sync (their dirty-for-sync marks are
  /// cleared, overwriting unsynced host writes there) and are marked dirty-for-flush, so that
  /// flush() writes results computed on the mirror back to the Zarr array.
  void pull(Stream stream = {}) { pull(Selection{}, stream); }
  void pull(const Selection& region, Stream stream = {});

  /// True when made by load() (flush() has somewhere to write).
  bool is_bound() const noexcept;
  /// Reads the bound region from the Zarr array again into the host array and uploads it to the
  /// mirror; clears both range sets. Throws InvalidArgumentError when not bound.
  void reload(Stream stream = {});
  /// Writes back to the bound Zarr array the part of the region in each chunk that a
  /// dirty-for-flush range touches (one Array::write per chunk), then clears dirty-for-flush.
  /// Returns the grid coordinates of the chunks written, in increasing order. Throws
  /// InvalidArgumentError when not bound; on a write error the ranges stay dirty.
  std::vector<Index> flush();

  MirrorCounters counters() const noexcept;

 private:
  struct State;
  MirroredArray(std::shared_ptr<State> state, NDBuffer view, bool is_view);
  const std::byte* element_address(std::span<const int64_t> index, size_t element_size) const;
  NDBuffer host_region(const Selection& region) const;
  void mark(const NDBuffer& host_view);

  std::shared_ptr<State> state_;
  NDBuffer view_;  // this handle's part of the host array
  bool is_view_ = false;
};

}  // namespace cuzarr
