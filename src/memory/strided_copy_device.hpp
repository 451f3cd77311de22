// Element-wise copy between two strided views of the same shape, run by a CUDA kernel. Both views
// must be device-accessible (device memory, or pinned memory through unified addressing). CUDA
// builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cuzarr/memory/stream.hpp"

namespace cuzarr::detail {

/// The most dimensions the kernel handles (after unit dimensions are dropped).
inline constexpr size_t kMaxStridedCopyDims = 32;

/// Queues dst[i] = src[i] for every index i of `shape` on `stream`; strides are in bytes and may
/// be negative or zero (zero only in `src`). Throws UnsupportedError above kMaxStridedCopyDims
/// dimensions, CudaError when the launch fails.
void copy_strided_on_device(std::byte* dst, std::span<const int64_t> dst_strides,
                            const std::byte* src, std::span<const int64_t> src_strides,
                            std::span<const int64_t> shape, size_t element_size, Stream stream);

}  // namespace cuzarr::detail
