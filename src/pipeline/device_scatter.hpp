// The scatter step of reads into device memory: one kernel places many decoded chunks (or the
// fill value) into their regions of the output, with an optional byte swap of each element's
// endian units (the "bytes" codec's big-endian data). CUDA builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::detail {

/// The most dimensions one scatter item may have once unit dimensions are dropped and
/// dimensions contiguous on both sides are merged.
inline constexpr int kMaxScatterDims = 8;

/// One copy: destination[i] = source[i] for every index i of `shape`. Strides are in bytes; a
/// source stride may be 0 (the fill value is one element repeated).
struct DeviceScatterItem {
  const std::byte* source = nullptr;
  std::byte* destination = nullptr;
  int32_t ndim = 0;
  int64_t shape[kMaxScatterDims] = {};
  int64_t source_strides[kMaxScatterDims] = {};
  int64_t destination_strides[kMaxScatterDims] = {};
};

/// The item copying `source` into `destination` (same shape; both device-accessible views), with
/// unit dimensions dropped and contiguous dimensions merged; nullopt-like `false` return when it
/// still has more than kMaxScatterDims dimensions.
bool make_scatter_item(const NDBuffer& source, const NDBuffer& destination,
                       DeviceScatterItem& item);

/// Queues all `items` as one kernel on `stream`. `element_size` bytes per element; `swap_unit`
/// > 1 reverses the bytes of each unit of that size inside every element on the way. The
/// descriptors are uploaded through stream-ordered pinned and device allocations, so `items` may
/// go away when this returns. Throws CudaError when a launch fails.
void scatter_on_device(std::span<const DeviceScatterItem> items, size_t element_size,
                       size_t swap_unit, Stream stream);

}  // namespace cuzarr::detail
